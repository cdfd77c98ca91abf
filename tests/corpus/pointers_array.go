//go:build ignore

// A pointer to an array can be indexed and ranged directly.
package main

import "fmt"

func double(a *[4]int) {
	for i := range a {
		a[i] *= 2
	}
}

func main() {
	arr := [4]int{1, 2, 3, 4}
	double(&arr)
	fmt.Println(arr, len(&arr))
	p := &arr
	p[0] = 100
	fmt.Println(arr[0], p[1:3])
}
