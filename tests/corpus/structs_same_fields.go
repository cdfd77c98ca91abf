//go:build ignore

// Types of the same fields are distinct types: a type switch, an
// assertion, errors.As, == on interfaces and map keys of type any tell
// them apart, and each has its own methods; a conversion between them
// copies the fields. Their literals, positional or keyed, their zero
// values and their printing are as any struct's.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
)

type Cat struct{ Name string }
type Dog struct{ Name string }
type Robot struct{ Name string }

func (c Cat) Sound() string    { return c.Name + ": meow" }
func (d Dog) Sound() string    { return d.Name + ": woof" }
func (d *Dog) Rename(n string) { d.Name = n }

type Sounder interface{ Sound() string }

func kind(v any) string {
	switch v := v.(type) {
	case Dog:
		return "dog " + v.Name
	case Cat:
		return "cat " + v.Name
	case *Dog:
		return "*dog " + v.Name
	case Robot:
		return "robot " + v.Name
	}
	return "?"
}

type NotFound struct{ Key string }
type Denied struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }
func (e *Denied) Error() string   { return "denied: " + e.Key }

type Point struct{ X, Y int }
type Vec struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("P(%d,%d)", p.X, p.Y) }

type Pet struct {
	Dog
	Age int
}

func main() {
	c, d, r := Cat{"tom"}, Dog{Name: "rex"}, Robot{"r2"}
	fmt.Println(kind(c), "|", kind(d), "|", kind(&d), "|", kind(r))
	animals := []Sounder{c, d, Cat{"kit"}, &Dog{"fido"}}
	for _, a := range animals {
		fmt.Printf("%T %v %s\n", a, a, a.Sound())
	}
	var x any = d
	_, isCat := x.(Cat)
	_, isDog := x.(Dog)
	fmt.Println(isCat, isDog, x == any(Cat{"rex"}), x == any(Dog{"rex"}))
	m := map[any]int{Cat{"a"}: 1, Dog{"a"}: 2, Robot{"a"}: 3}
	fmt.Println(len(m), m[Dog{"a"}], m[Robot{"a"}])

	var err error = fmt.Errorf("lookup: %w", &Denied{"k"})
	var nf *NotFound
	var dn *Denied
	fmt.Println(errors.As(err, &nf), errors.As(err, &dn), dn.Key, err)

	p := Point{1, 2}
	v := Vec(p)
	q := Point(Vec{3, 4})
	fmt.Println(p, v, q, Vec{5, 6})
	fmt.Printf("%v %+v %#v %T\n", v, v, v, v)
	fmt.Printf("%#v %#v\n", Cat{"z"}, []Dog{{"a"}, {Name: "b"}})

	var zero Dog
	zero.Rename("new")
	pets := []Pet{{Dog{"spot"}, 3}, {Dog: Dog{Name: "max"}, Age: 5}}
	pets[0].Rename("spotty")
	fmt.Printf("%v %+v %s\n", zero, pets, pets[1].Sound())

	b, _ := json.Marshal(struct {
		C Cat
		D Dog
		V Vec
	}{c, d, v})
	fmt.Println(string(b))
	back := Dog(c)
	fmt.Println(back.Sound(), Cat(back).Sound(), Cat{"tom"} == c)
}
