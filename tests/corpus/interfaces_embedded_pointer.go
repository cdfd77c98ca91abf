//go:build ignore

// Types that get an interface's methods through an embedded pointer
// field (type Dog struct{ *base }, base's Name with a pointer receiver)
// implement the interface: conversions, assertions to the type and to
// the interface, type switches and %T all see it.
package main

import "fmt"

type Animal interface {
	Sound() string
	Name() string
}

type base struct{ name string }

func (b *base) Name() string   { return b.name }
func (b *base) String() string { return "base " + b.name }

type Dog struct{ *base }

func (d Dog) Sound() string { return "woof" }

type Cat struct{ base }

func (c *Cat) Sound() string { return "meow" }

type Show struct {
	Dog
	Ring string
}

func describe(a Animal) string {
	switch v := a.(type) {
	case Show:
		return "show dog " + v.Name() + " in " + v.Ring
	case Dog:
		return "dog " + v.Name()
	case *Cat:
		return "cat " + v.Name()
	}
	return "?"
}

func main() {
	rex := Dog{&base{"rex"}}
	zoo := []Animal{rex, &Cat{base{"tom"}}, Show{Dog{&base{"fifi"}}, "A"}}
	for _, a := range zoo {
		fmt.Printf("%-18s %-6s %T\n", describe(a), a.Sound(), a)
	}
	var a Animal = rex
	d, ok := a.(Dog)
	_, isCat := a.(*Cat)
	fmt.Println(d.Name(), ok, isCat)

	var s fmt.Stringer = rex
	s2, ok2 := any(rex).(fmt.Stringer)
	fmt.Println(s, fmt.Stringer(rex).String(), s2, ok2, rex)
}
