//go:build ignore

// The full slice expression a[low:high:max] limits the capacity.
package main

import "fmt"

func main() {
	a := []int{0, 1, 2, 3, 4, 5}
	t := a[1:3:4]
	fmt.Println(t, len(t), cap(t))
	t = append(t, 30)
	fmt.Println(a)
	t = append(t, 40)
	t[0] = 100
	fmt.Println(a, t)
}
