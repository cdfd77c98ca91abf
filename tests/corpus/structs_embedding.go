//go:build ignore

// An embedded struct promotes its fields and methods.
package main

import "fmt"

type Animal struct {
	Name string
	Legs int
}

func (a Animal) Describe() string { return fmt.Sprintf("%s has %d legs", a.Name, a.Legs) }

type Dog struct {
	Animal
	Breed string
}

type Loud struct {
	*Dog
	Volume int
}

func main() {
	d := Dog{Animal{"Rex", 4}, "collie"}
	fmt.Println(d.Name, d.Legs, d.Breed)
	fmt.Println(d.Describe())
	d.Legs = 3
	fmt.Println(d.Animal.Describe())
	l := Loud{&d, 11}
	l.Name = "Rex!"
	fmt.Println(l.Describe(), d.Name, l.Volume)
}
