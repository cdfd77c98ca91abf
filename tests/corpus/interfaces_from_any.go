//go:build ignore

// Values in an any asserted to interfaces the program declares: comma-ok,
// single-value, and as a type switch's cases, a value receiver and a
// pointer one.
package main

import "fmt"

type Animal interface{ Sound() string }

type Walker interface {
	Animal
	Legs() int
}

type Dog struct{ name string }

func (d Dog) Sound() string { return d.name + ": woof" }
func (d Dog) Legs() int     { return 4 }

type Fish struct{ fins int }

func (f *Fish) Sound() string { return fmt.Sprint("blub with ", f.fins, " fins") }

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case Walker:
		return fmt.Sprint(x.Sound(), " on ", x.Legs(), " legs")
	case Animal:
		return x.Sound()
	case fmt.Stringer:
		return "a stringer"
	default:
		return fmt.Sprintf("a %T", x)
	}
}

func main() {
	var v any = Dog{"rex"}
	if a, ok := v.(Animal); ok {
		fmt.Println("animal:", a.Sound())
	}
	w := v.(Walker)
	fmt.Println(w.Legs())
	_, ok := any(Fish{2}).(Animal)
	fmt.Println("a Fish value is an Animal:", ok)
	for _, x := range []any{Dog{"max"}, &Fish{3}, Fish{1}, nil, 7} {
		fmt.Println(describe(x))
	}
	var none Animal
	fmt.Println(none, none == nil)
	fmt.Printf("%v %T\n", none, none)
	fmt.Println(find("cat"), isNil(find("cat")), isNil(find("rex")), find("rex"))
	fmt.Println(lookup("cat"))
	fmt.Println(report(lookup("rex")))
}

func lookup(name string) (Animal, error) {
	if a := find(name); a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("no %s", name)
}

func report(a Animal, err error) string {
	if a == nil {
		return "none: " + err.Error()
	}
	return a.Sound()
}

func find(name string) Animal {
	if name == "rex" {
		return Dog{name}
	}
	return nil
}

func isNil(a Animal) bool { return a == nil }
