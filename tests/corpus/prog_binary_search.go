//go:build ignore

// Binary search, iterative and recursive.
package main

import "fmt"

func search(a []int, x int) int {
	lo, hi := 0, len(a)-1
	for lo <= hi {
		mid := lo + (hi-lo)/2
		switch {
		case a[mid] == x:
			return mid
		case a[mid] < x:
			lo = mid + 1
		default:
			hi = mid - 1
		}
	}
	return -1
}

func searchRec(a []int, x, lo, hi int) int {
	if lo > hi {
		return -1
	}
	mid := (lo + hi) / 2
	if a[mid] == x {
		return mid
	}
	if a[mid] < x {
		return searchRec(a, x, mid+1, hi)
	}
	return searchRec(a, x, lo, mid-1)
}

func main() {
	a := []int{1, 4, 9, 16, 25, 36, 49}
	for _, x := range []int{1, 25, 49, 50} {
		fmt.Println(x, search(a, x), searchRec(a, x, 0, len(a)-1))
	}
}
