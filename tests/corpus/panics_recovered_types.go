//go:build ignore

// Run-time panics recovered: their messages, their types (%T), and that
// they are runtime.Errors, beside a program's own error type whose Error
// method has a value receiver.
package main

import (
	"fmt"
	"runtime"
)

type E struct{ code int }

func (e E) Error() string { return fmt.Sprintf("E%d", e.code) }

func try(name string, f func()) {
	defer func() {
		r := recover()
		_, isRuntime := r.(runtime.Error)
		fmt.Printf("%-10s %T %v runtime.Error=%v\n", name, r, r, isRuntime)
	}()
	f()
}

func main() {
	s := []int{1, 2}
	i, j := 5, 1
	var m map[string]int
	var p *E
	var x any = "text"
	zero := 0
	try("index", func() { _ = s[i] })
	try("slice", func() { _ = s[j:i] })
	try("nil map", func() { m["k"] = 1 })
	try("nil deref", func() { _ = p.code })
	try("assert", func() { _ = x.(int) })
	try("divide", func() { _ = 10 / zero })
	try("own value", func() { panic(E{7}) })
	try("own ptr", func() { panic(&E{8}) })
	try("string", func() { panic("plain") })
	var err error = E{9}
	fmt.Printf("%T %v\n", err, err)
}
