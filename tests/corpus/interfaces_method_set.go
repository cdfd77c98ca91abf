//go:build ignore

// A pointer-receiver method belongs to *T's method set, not T's.
package main

import "fmt"

type Speaker interface{ Speak() string }

type Dog struct{ name string }

func (d *Dog) Speak() string { return d.name + ": woof" }

type Cat struct{ name string }

func (c Cat) Speak() string { return c.name + ": meow" }

func main() {
	var s Speaker = &Dog{"rex"}
	fmt.Println(s.Speak())
	s = Cat{"tom"}
	fmt.Println(s.Speak())
	s = &Cat{"kit"}
	fmt.Println(s.Speak())
	_, isSpeaker := any(Dog{"plain"}).(Speaker)
	fmt.Println(isSpeaker)
}
