//go:build ignore

// A failed type assertion of one value panics with a runtime.Error that
// names the types as Go does: the interface and the value's dynamic type,
// and for an interface the first method the value lacks; an interface
// value that is nil says so. A nil panic value and a call of a nil
// function are run-time errors too.
package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
)

type Shape interface{ Area() float64 }

type Perimeter interface {
	Area() float64
	Perim() float64
}

type Sq struct{ s float64 }

func (q Sq) Area() float64 { return q.s * q.s }

type Circle struct{ r float64 }

func (c *Circle) Area() float64  { return 3 * c.r * c.r }
func (c *Circle) Perim() float64 { return 6 * c.r }

func try(what string, f func()) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		var re runtime.Error
		err, _ := r.(error)
		fmt.Printf("%-14s %v %v\n", what, errors.As(err, &re), r)
	}()
	f()
	fmt.Printf("%-14s no panic\n", what)
}

func main() {
	var none Shape
	var s Shape = Sq{2}
	var c Shape = &Circle{1}
	var a any = &Circle{2}
	var e error = errors.New("x")
	var f func()
	try("nil to iface", func() { _ = none.(Perimeter) })
	try("nil to type", func() { _ = none.(Sq) })
	try("missing", func() { _ = s.(Perimeter) })
	try("has it", func() { fmt.Println(c.(Perimeter).Perim()) })
	try("wrong type", func() { _ = s.(*Circle) })
	try("pointer", func() { _ = a.(Circle) })
	try("any to iface", func() { _ = a.(fmt.Stringer) })
	try("compiled", func() { _ = e.(io.Reader) })
	try("literal iface", func() { _ = s.(interface{ Volume() float64 }) })
	try("panic(nil)", func() { panic(nil) })
	try("nil error", func() {
		var err error
		panic(err)
	})
	try("nil func", func() { f() })
	arr := []int{1, 2, 3}
	try("to array", func() { _ = [4]int(arr) })
	p, ok := s.(Perimeter)
	fmt.Println(p, ok)
}
