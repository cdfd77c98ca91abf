//go:build ignore

// An interface value that holds a nil pointer is not nil: a function that
// returns a nil *NotFound as an error returns a non-nil error, whose
// Error method runs on the nil pointer (the classic mistake).
package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Key string }

func (e *NotFound) Error() string {
	if e == nil {
		return "not found (nil)"
	}
	return "not found: " + e.Key
}

type Name struct{ s string }

func (n *Name) String() string {
	if n == nil {
		return "anonymous"
	}
	return n.s
}

func lookup(k string) error {
	var nf *NotFound
	if k == "x" {
		nf = &NotFound{k}
	}
	return nf // the classic mistake: never a nil error
}

func safe(k string) error {
	if k == "x" {
		return &NotFound{k}
	}
	return nil
}

func main() {
	err := lookup("a")
	fmt.Println(err == nil, err != nil)
	fmt.Println(err)
	fmt.Printf("%v|%T\n", err, err)
	nf, ok := err.(*NotFound)
	fmt.Println(ok, nf == nil)
	var target *NotFound
	fmt.Println(errors.As(err, &target), target == nil)
	fmt.Println(safe("a") == nil, safe("x"))
	e1, e2 := lookup("b"), lookup("c")
	fmt.Println(e1 == e2)
	var n *Name
	var s fmt.Stringer = n
	fmt.Println(s == nil, s.String(), s)
	switch v := err.(type) {
	case *NotFound:
		fmt.Println("switch: *NotFound", v == nil)
	default:
		fmt.Println("switch: other")
	}
	wrapped := fmt.Errorf("wrap: %w", err)
	fmt.Println(wrapped, errors.Unwrap(wrapped) == err)
}
