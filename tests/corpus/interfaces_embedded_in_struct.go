//go:build ignore

// A struct that embeds an interface has its methods, and can override them to decorate the value inside.
package main

import (
	"fmt"
	"strings"
)

type Animal interface{ Sound() string }

type Dog struct{ Name string }

func (d Dog) Sound() string { return d.Name + " says woof" }

type Pet struct {
	Animal
	Age int
}

type Loud struct{ Animal }

func (l Loud) Sound() string { return strings.ToUpper(l.Animal.Sound()) }

type Home struct{ *Pet }

func main() {
	pet := Pet{Dog{"rex"}, 3}
	fmt.Println(pet.Sound())
	sound := pet.Sound
	fmt.Println(sound())
	home := Home{&pet}
	fmt.Println(home.Sound(), home.Age)
	var a Animal = Loud{pet}
	fmt.Println(a.Sound())
	fmt.Printf("%v %+v\n", pet, pet)
	animals := []Animal{Dog{"a"}, pet, Loud{Dog{"b"}}}
	for _, x := range animals {
		fmt.Println(x.Sound())
	}
	fmt.Println(animals)
}
