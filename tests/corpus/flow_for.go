//go:build ignore

// The for loop in its three forms.
package main

import "fmt"

func main() {
	sum := 0
	for i := 0; i < 10; i++ {
		sum += i
	}
	fmt.Println(sum)
	n := 1
	for n < 1000 {
		n += n
	}
	fmt.Println(n)
	k := 0
	for {
		k++
		if k == 5 {
			break
		}
	}
	fmt.Println(k)
	for i, j := 0, 10; i < j; i, j = i+1, j-2 {
		fmt.Print(i, ":", j, " ")
	}
	fmt.Println()
}
