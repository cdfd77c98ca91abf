//go:build ignore

// A type with its own Format method formats itself for every verb,
// with the flags, width and precision fmt gives it.
package main

import (
	"fmt"
	"strings"
)

type Status int

func (s Status) Format(f fmt.State, verb rune) {
	w, hasW := f.Width()
	p, hasP := f.Precision()
	fmt.Fprintf(f, "S%d(%c", int(s), verb)
	if f.Flag('+') {
		fmt.Fprint(f, "+")
	}
	if f.Flag('#') {
		fmt.Fprint(f, "#")
	}
	if hasW {
		fmt.Fprintf(f, " w%d", w)
	}
	if hasP {
		fmt.Fprintf(f, " p%d", p)
	}
	fmt.Fprint(f, ")")
}

type Money struct{ Cents int }

func (m Money) Format(f fmt.State, verb rune) {
	switch verb {
	case 'd':
		fmt.Fprintf(f, "%d", m.Cents)
	default:
		fmt.Fprintf(f, "$%d.%02d", m.Cents/100, m.Cents%100)
	}
}

func main() {
	s := Status(3)
	fmt.Printf("%v %d %x %s %q\n", s, s, s, s, s)
	fmt.Printf("%+v %#v %8.2f %-5d|\n", s, s, s, s)
	fmt.Println(s, Status(1))
	m := Money{1234}
	fmt.Printf("%v %d %s\n", m, m, m)
	fmt.Println(m, []Money{{5}, {100}})
	fmt.Println(strings.ToUpper(fmt.Sprint(m, " ", s)))
	fmt.Printf("%T %T\n", s, m)
}
