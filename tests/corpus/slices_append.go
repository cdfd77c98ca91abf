//go:build ignore

// append grows a slice; appending to a shared prefix can overwrite.
package main

import "fmt"

func main() {
	var s []int
	for i := 0; i < 5; i++ {
		s = append(s, i*i)
	}
	fmt.Println(s, len(s))
	s = append(s, 100, 200)
	more := []int{7, 8}
	s = append(s, more...)
	fmt.Println(s)
	base := make([]int, 3, 10)
	x := append(base, 1)
	y := append(base, 2)
	fmt.Println(x[3], y[3])
	bs := append([]byte("abc"), "def"...)
	fmt.Println(string(bs))
}
