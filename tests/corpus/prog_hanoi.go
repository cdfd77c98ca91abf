//go:build ignore

// The towers of Hanoi, recursively.
package main

import "fmt"

func hanoi(n int, from, to, via string, moves *[]string) {
	if n == 0 {
		return
	}
	hanoi(n-1, from, via, to, moves)
	*moves = append(*moves, from+"->"+to)
	hanoi(n-1, via, to, from, moves)
}

func main() {
	var moves []string
	hanoi(3, "A", "C", "B", &moves)
	fmt.Println(len(moves), moves)
	var many []string
	hanoi(10, "A", "C", "B", &many)
	fmt.Println(len(many))
}
