//go:build ignore

// Labeled break and continue leave or restart an outer loop.
package main

import "fmt"

func main() {
	grid := [][]int{{1, 2, 3}, {4, -5, 6}, {7, 8, 9}}
	found := false
search:
	for r, row := range grid {
		for c, v := range row {
			if v < 0 {
				fmt.Println("negative at", r, c)
				found = true
				break search
			}
		}
	}
	fmt.Println(found)
	count := 0
outer:
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			if j > i {
				continue outer
			}
			count++
		}
	}
	fmt.Println(count)
}
