//go:build ignore

// make creates a slice with a length and a capacity.
package main

import "fmt"

func main() {
	a := make([]int, 5)
	b := make([]int, 0, 5)
	c := b[:2]
	d := c[2:5]
	fmt.Println(len(a), cap(a), a)
	fmt.Println(len(b), cap(b), b)
	fmt.Println(len(c), cap(c), c)
	fmt.Println(len(d), cap(d), d)
	board := make([][]rune, 3)
	for i := range board {
		board[i] = make([]rune, 3)
		for j := range board[i] {
			board[i][j] = '.'
		}
	}
	board[1][1] = 'X'
	for _, row := range board {
		fmt.Println(string(row))
	}
}
