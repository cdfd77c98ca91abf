//go:build ignore

// Values of operator expressions (a % b, x << n, -x, ^x, !ok, a receive)
// assigned to variables, elements, fields and pointees of interface type,
// returned as an interface, and sent on a channel of one.
package main

import "fmt"

type S struct{ V any }

func ret(i int) any    { return i % 7 }
func retNeg(i int) any { return -i }

func main() {
	items := make([]any, 3)
	i := 12
	items[0] = i % 7
	items[1] = -i
	items[2] = i << 2
	fmt.Println("slice", items)
	m := map[string]any{}
	m["a"] = i % 7
	m["b"] = ^i
	fmt.Println("map", m)
	var s S
	s.V = -i
	fmt.Println("field", s.V)
	p := new(any)
	*p = i >> 1
	fmt.Println("ptr", *p)
	var a any
	a = -i
	fmt.Println("var", a)
	b := true
	a = !b
	fmt.Println("not", a)
	fmt.Println("ret", ret(i), retNeg(i))
	ch := make(chan int, 1)
	ch <- 3
	items[0] = <-ch
	fmt.Println("recv", items[0])
	cha := make(chan any, 1)
	cha <- i % 5
	fmt.Println("chan", <-cha)
	var f float64 = 2.5
	a = -f
	fmt.Println("float", a)
}
