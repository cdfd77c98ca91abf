//go:build ignore

// A value converted to an interface type and handed on at once, as an
// argument or to an assertion, keeps its dynamic type: assertions to the
// concrete type and to a wider interface, and a type switch, find it.
package main

import "fmt"

type Counter struct{ n int }

func (c Counter) Get() int { return c.n }
func (c *Counter) Inc()    { c.n++ }

type Getter interface{ Get() int }
type Incer interface {
	Getter
	Inc()
}

func isPtr(g Getter) bool {
	_, ok := g.(*Counter)
	return ok
}

func kind(g Getter) string {
	switch g.(type) {
	case *Counter:
		return "*Counter"
	case Counter:
		return "Counter"
	}
	return "?"
}

func main() {
	c := Counter{1}
	fmt.Println(isPtr(Getter(&c)), kind(Getter(&c)), kind(Getter(c)))
	_, ok := Getter(&c).(Incer)
	_, ok2 := Getter(c).(Incer)
	fmt.Println(ok, ok2)
	if in, ok := Getter(&c).(Incer); ok {
		in.Inc()
	}
	fmt.Println(c.n, Getter(&c).(*Counter).n)
}
