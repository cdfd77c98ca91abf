//go:build ignore

// copy copies min(len(dst), len(src)) elements and handles overlap.
package main

import "fmt"

func main() {
	src := []int{1, 2, 3, 4, 5}
	dst := make([]int, 3)
	n := copy(dst, src)
	fmt.Println(n, dst)
	copy(src[1:], src)
	fmt.Println(src)
	b := make([]byte, 5)
	n = copy(b, "hello world")
	fmt.Println(n, string(b))
	clone := append([]int(nil), dst...)
	clone[0] = -1
	fmt.Println(dst[0], clone[0])
}
