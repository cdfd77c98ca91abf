//go:build ignore

// Structs of comparable fields compare with == and serve as map keys.
package main

import "fmt"

type key struct {
	row, col int
}

type rgb struct{ R, G, B uint8 }

func main() {
	a, b := rgb{1, 2, 3}, rgb{1, 2, 3}
	fmt.Println(a == b, a != rgb{})
	grid := map[key]string{}
	grid[key{0, 0}] = "origin"
	grid[key{2, 3}] = "far"
	fmt.Println(grid[key{2, 3}], grid[key{1, 1}] == "", len(grid))
	seen := map[rgb]bool{a: true}
	fmt.Println(seen[b], seen[rgb{3, 2, 1}])
}
