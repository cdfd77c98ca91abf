//go:build ignore

// Values in an any asserted to the program's own interfaces: declared
// types that are not structs (type Cube float64), and types whose
// declarations come after main in the file.
package main

import (
	"fmt"
	"sort"
)

type Solid interface{ Volume() float64 }

type Named interface{ Name() string }

type Cube float64

func (c Cube) Volume() float64 { return float64(c * c * c) }
func (c Cube) Name() string    { return fmt.Sprintf("cube(%g)", float64(c)) }

type Bag []Solid

func (b Bag) Volume() float64 {
	total := 0.0
	for _, s := range b {
		total += s.Volume()
	}
	return total
}

func describe(v any) string {
	switch s := v.(type) {
	case Named:
		if sv, ok := v.(Solid); ok {
			return fmt.Sprintf("%s, volume %.1f", s.Name(), sv.Volume())
		}
		return s.Name()
	case Solid:
		return fmt.Sprintf("a solid of volume %.1f", s.Volume())
	}
	return fmt.Sprintf("%v is no solid", v)
}

func main() {
	items := []any{Cube(2), Box{1, 2, 3}, Bag{Cube(1), Box{2, 2, 2}}, Sphere{1}, 42, "cube"}
	for _, it := range items {
		fmt.Println(describe(it))
	}
	var solids []Solid
	for _, it := range items {
		if s, ok := it.(Solid); ok {
			solids = append(solids, s)
		}
	}
	sort.Slice(solids, func(i, j int) bool { return solids[i].Volume() < solids[j].Volume() })
	for _, s := range solids {
		fmt.Printf("%T %.2f\n", s, s.Volume())
	}
	var v any = Cube(3)
	s := v.(Solid)
	fmt.Println(s.Volume())
	_, isNamed := any(Box{}).(Named)
	fmt.Println(isNamed)
}

type Box struct{ W, H, D float64 }

func (b Box) Volume() float64 { return b.W * b.H * b.D }

type Sphere struct{ R float64 }

func (s Sphere) Volume() float64 { return 4.0 / 3 * 3.14159 * s.R * s.R * s.R }
func (s Sphere) Name() string    { return "sphere" }
