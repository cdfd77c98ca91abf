//go:build ignore

// %#v of values whose fields, elements and map entries hold the
// program's struct types, local ones too: each written with its type's
// name.
package main

import "fmt"

type P struct{ X, Y int }
type Line struct {
	From, To P
	Tags     []string
	Meta     map[string]P
}
type Key struct{ A, B int }

func main() {
	type Local struct{ N int }
	type Wrap struct {
		L  Local
		Ps []P
	}
	l := Line{P{1, 2}, P{3, 4}, []string{"a"}, map[string]P{"m": {5, 6}}}
	fmt.Printf("%#v\n", l)
	fmt.Printf("%#v\n", Wrap{Local{1}, []P{{0, 1}}})
	fmt.Printf("%#v\n", map[Key]P{{1, 2}: {3, 4}})
	fmt.Printf("%#v %#v\n", [2]P{}, &l.From)
	s := fmt.Sprintf("%#v|%+v|%v", []P{{1, 2}}, []P{{1, 2}}, Line{})
	fmt.Println(s)
	fmt.Printf("%#v\n", struct{ X, Y int }{1, 2})
}
