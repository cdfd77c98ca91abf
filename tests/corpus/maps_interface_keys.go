//go:build ignore

// Maps keyed by interfaces with methods find their entries by the values
// the keys hold: shapes, errors counted by kind, nil keys, nested maps,
// a named map type, and ranges that call the keys' methods.
package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
)

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

type Circle struct{ R float64 }

func (s Sq) Area() float64      { return s.S * s.S }
func (c *Circle) Area() float64 { return 3 * c.R * c.R }

type Registry map[Shape]string

func (r Registry) Names() []string {
	var out []string
	for s, name := range r {
		out = append(out, fmt.Sprintf("%s:%.0f", name, s.Area()))
	}
	sort.Strings(out)
	return out
}

func lookup(m map[Shape]int, s Shape) (int, bool) {
	n, ok := m[s]
	return n, ok
}

func main() {
	c := &Circle{1}
	reg := Registry{Sq{2}: "square", c: "circle"}
	reg[Sq{3}] = "big square"
	fmt.Println(reg.Names(), reg[Sq{2}], reg[c], reg[&Circle{1}] == "")

	var a, b Shape = Sq{1}, Sq{1}
	seen := map[Shape]int{}
	seen[a]++
	seen[b]++
	seen[Sq{1}]++
	seen[nil] = -1
	n, ok := lookup(seen, Sq{1})
	fmt.Println(len(seen), n, ok, seen[nil])
	delete(seen, b)
	fmt.Println(len(seen))

	counts := map[error]int{}
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, io.EOF, errors.New("io"), io.EOF} {
		counts[err]++
	}
	fmt.Println(len(counts), counts[io.EOF], counts[io.ErrUnexpectedEOF])

	var last Shape
	var area float64
	for last, area = range map[Shape]float64{Sq{4}: 16} {
	}
	fmt.Println(last.Area() == area, last == Sq{4})

	var calls []func() float64
	for s := range map[Shape]bool{Sq{5}: true, Sq{6}: true} {
		calls = append(calls, s.Area)
	}
	total := 0.0
	for _, f := range calls {
		total += f()
	}
	fmt.Println(total)

	nested := map[Shape]map[Shape]bool{a: {b: true}}
	fmt.Println(nested[Sq{1}][Sq{1}], nested[Sq{2}][Sq{1}])
	fmt.Printf("%T %T\n", reg, nested)
}
