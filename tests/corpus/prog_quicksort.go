//go:build ignore

// Quicksort on a slice, in place.
package main

import "fmt"

func quicksort(a []int) {
	if len(a) < 2 {
		return
	}
	pivot := a[len(a)/2]
	i, j := 0, len(a)-1
	for i <= j {
		for a[i] < pivot {
			i++
		}
		for a[j] > pivot {
			j--
		}
		if i <= j {
			a[i], a[j] = a[j], a[i]
			i++
			j--
		}
	}
	quicksort(a[:j+1])
	quicksort(a[i:])
}

func main() {
	a := []int{38, 27, 43, 3, 9, 82, 10, 3, -5}
	quicksort(a)
	fmt.Println(a)
}
