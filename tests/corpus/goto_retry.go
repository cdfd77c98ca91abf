//go:build ignore

// goto back to a label of main's body (a retry loop), and forward past
// statements, with labeled loops beside them.
package main

import (
	"errors"
	"fmt"
)

var attempts int

func fetch() (string, error) {
	attempts++
	if attempts < 3 {
		return "", errors.New("busy")
	}
	return "data", nil
}

func main() {
	tries := 0
retry:
	tries++
	v, err := fetch()
	if err != nil {
		fmt.Println("attempt", tries, "failed:", err)
		if tries < 5 {
			goto retry
		}
	}
	fmt.Println("got", v, "after", tries, "tries")

	n := 0
	if n == 0 {
		goto skip
	}
	fmt.Println("not printed")
skip:
	fmt.Println("skipped ahead")

outer:
	for i := range 3 {
		for j := range 3 {
			if j == 2 {
				continue outer
			}
			if i == 2 {
				break outer
			}
			fmt.Print(i, j, " ")
		}
	}
	fmt.Println()

	k := 0
loop:
	if k < 3 {
		fmt.Print("k=", k, " ")
		k++
		goto loop
	}
	fmt.Println("done", k)
}
