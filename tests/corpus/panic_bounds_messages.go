//go:build ignore

// Index and slice expressions out of range: the run-time error names the
// bounds as Go's runtime does, a negative one alone, whatever the bounds
// are computed from.
package main

import "fmt"

func try(what string, f func()) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		fmt.Printf("%-12s %v %v\n", what, ok, err)
	}()
	f()
}

func main() {
	s := []int{1, 2, 3}
	j := -1
	grid := [][]int{{1}, {2, 3}}
	word := "héllo"
	arr := [4]int{}
	try("s[j+5]", func() { _ = s[j+5] })
	try("s[2*j]", func() { _ = s[2*j] })
	try("s[len(s)]", func() { _ = s[len(s)] })
	try("grid[1][j+3]", func() { _ = grid[1][j+3] })
	try("s[:j]", func() { _ = s[:j] })
	try("s[:j-1]", func() { _ = s[:j-1] })
	try("s[j:]", func() { _ = s[j:] })
	try("s[2:j+2]", func() { _ = s[2 : j+2] })
	try("s[:len(s)+1]", func() { _ = s[:len(s)+1] })
	try("s[4:]", func() { _ = s[j+5:] })
	try("word[:j+9]", func() { _ = word[:j+9] })
	try("word[j+8]", func() { _ = word[j+8] })
	try("arr[j+6:]", func() { _ = arr[j+6:] })
	try("arr[:]", func() { _ = arr[:] })
	try("s[1:2]", func() { fmt.Println(s[1:j+3], grid[j+2][0]) })
}
