//go:build ignore

// All the comma-ok forms in one function body: map index, type assertion and receive.
package main

import "fmt"

func main() {
	m := map[string]int{"a": 1}
	v, ok := m["a"]
	fmt.Println(v, ok)
	w, ok := m["z"]
	fmt.Println(w, ok)
	var x any = "text"
	s, ok := x.(string)
	fmt.Println(s, ok)
	n, ok := x.(int)
	fmt.Println(n, ok)
	ch := make(chan int, 1)
	ch <- 9
	r, ok := <-ch
	fmt.Println(r, ok)
	close(ch)
	r, ok = <-ch
	fmt.Println(r, ok)
}
