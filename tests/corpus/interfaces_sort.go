//go:build ignore

// sort.Interface implemented by a named slice type.
package main

import (
	"fmt"
	"sort"
)

type Person struct {
	Name string
	Age  int
}

type ByAge []Person

func (a ByAge) Len() int           { return len(a) }
func (a ByAge) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }
func (a ByAge) Less(i, j int) bool { return a[i].Age < a[j].Age }

func main() {
	people := []Person{{"Alice", 25}, {"Bob", 30}, {"Carol", 20}, {"Dan", 25}}
	sort.Stable(ByAge(people))
	fmt.Println(people)
	sort.Sort(sort.Reverse(ByAge(people)))
	fmt.Println(people[0].Name, sort.IsSorted(ByAge(people)))
}
