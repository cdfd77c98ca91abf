//go:build ignore

package main

import "fmt"

func safe(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	f()
	return nil
}

func main() {
	fmt.Println(recover())
	var _ int
	var _, _ string
	var (
		_ float64
		_ []int
	)
	for i := range 2 {
		var _ bool
		fmt.Println("loop", i)
	}
	fmt.Println(safe(func() { panic("boom") }), safe(func() {}))
	r := recover()
	fmt.Println(r == nil, "after")
}
