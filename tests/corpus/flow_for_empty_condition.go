//go:build ignore

package main

import "fmt"

func main() {
	for i := 0; ; i++ {
		if i > 2 {
			break
		}
		fmt.Println(i)
	}
	n := 0
	for ; ; n++ {
		if n == 2 {
			break
		}
	}
	for {
		break
	}
	fmt.Println(n)
}
