//go:build ignore

// Struct types, literals with and without field names, and field access.
package main

import "fmt"

type Person struct {
	Name string
	Age  int
	Tags []string
}

func main() {
	a := Person{"Ada", 36, nil}
	b := Person{Name: "Bob"}
	b.Age = a.Age + 1
	b.Tags = append(b.Tags, "new")
	fmt.Println(a)
	fmt.Printf("%+v\n", b)
	fmt.Println(a.Name, len(b.Tags))
	people := []Person{a, b, {Name: "Cy", Age: 5}}
	oldest := people[0]
	for _, p := range people[1:] {
		if p.Age > oldest.Age {
			oldest = p
		}
	}
	fmt.Println(oldest.Name)
}
