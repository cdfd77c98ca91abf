//go:build ignore

// continue skips to the next iteration; break leaves the loop.
package main

import "fmt"

func main() {
	for i := 0; i < 20; i++ {
		if i%3 != 0 {
			continue
		}
		if i > 12 {
			break
		}
		fmt.Print(i, " ")
	}
	fmt.Println()
	words := []string{"keep", "", "these", "", "words"}
	var kept []string
	for _, w := range words {
		if w == "" {
			continue
		}
		kept = append(kept, w)
	}
	fmt.Println(len(kept), kept)
}
