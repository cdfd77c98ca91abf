//go:build ignore

// Map values are not addressable: update a struct value by reassigning, or store pointers.
package main

import "fmt"

type account struct {
	owner   string
	balance int
}

func main() {
	byID := map[int]account{1: {"ann", 10}}
	a := byID[1]
	a.balance += 5
	byID[1] = a
	fmt.Println(byID[1].balance)
	ptrs := map[int]*account{2: {"bob", 20}}
	ptrs[2].balance *= 2
	fmt.Println(ptrs[2].balance, ptrs[2].owner)
}
