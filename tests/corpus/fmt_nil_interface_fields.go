//go:build ignore

// Structs with interface fields, nil and not, printed with %v, %+v, %#v
// and other verbs: a nil one is <nil>, and %#v writes its type.
package main

import (
	"errors"
	"fmt"
)

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64 { return s.S * s.S }

type Result struct {
	Name  string
	Err   error
	Extra any
	shape Shape
	note  fmt.Stringer
}

type Tag struct{ n int }

func (t Tag) String() string { return fmt.Sprint("tag", t.n) }

func main() {
	empty := Result{Name: "empty"}
	fmt.Printf("%v\n%+v\n%#v\n", empty, empty, empty)
	fmt.Printf("%x %d\n", empty, empty)
	full := Result{"full", errors.New("bad"), 7, Sq{2}, Tag{1}}
	fmt.Printf("%v\n%+v\n", full, full)
	fmt.Println([]Result{empty}, &empty)
}
