//go:build ignore

// Interfaces embed interfaces; a value satisfies all of them at once.
package main

import "fmt"

type Namer interface{ Name() string }
type Sounder interface{ Sound() string }

type Animal interface {
	Namer
	Sounder
}

type Cow struct{}

func (Cow) Name() string  { return "cow" }
func (Cow) Sound() string { return "moo" }

func speak(a Animal) string { return a.Name() + " says " + a.Sound() }

func main() {
	var a Animal = Cow{}
	fmt.Println(speak(a))
	var n Namer = a
	fmt.Println(n.Name())
	if s, ok := n.(Sounder); ok {
		fmt.Println("also a Sounder:", s.Sound())
	}
}
