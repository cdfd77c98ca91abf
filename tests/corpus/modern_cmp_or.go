//go:build ignore

// cmp.Or returns the first non-zero value; with cmp.Compare it sorts by several keys.
package main

import (
	"cmp"
	"fmt"
	"slices"
)

type Person struct {
	Name string
	Age  int
}

func main() {
	fmt.Println(cmp.Or("", "default"), cmp.Or(0, 0, 3), cmp.Or("set", "default"))
	people := []Person{{"Bo", 30}, {"Al", 30}, {"Cy", 20}}
	slices.SortFunc(people, func(a, b Person) int {
		return cmp.Or(cmp.Compare(a.Age, b.Age), cmp.Compare(a.Name, b.Name))
	})
	fmt.Println(people)
	i, found := slices.BinarySearchFunc(people, 30, func(p Person, age int) int { return cmp.Compare(p.Age, age) })
	fmt.Println(i, found)
}
