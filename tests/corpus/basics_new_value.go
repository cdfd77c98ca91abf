//go:build ignore

package main

import "fmt"

type Config struct {
	Retries *int
	Name    *string
	Ratio   *float64
}

type Point struct{ X, Y int }

func def() *Config {
	return &Config{Retries: new(3), Name: new("x"), Ratio: new(0.5)}
}

func main() {
	p := new(42)
	s := new("go" + "pher")
	c := def()
	fmt.Println(*p, *s, *c.Retries, *c.Name, *c.Ratio)
	*p++
	q := new(*p)
	*q *= 2
	fmt.Println(*p, *q)
	pt := new(Point{1, 2})
	pt.X = 7
	fmt.Println(*pt, new(int) != nil, *new(int))
	b := new(byte('a'))
	fmt.Printf("%T %T %T %v\n", p, b, pt, *b)
	var xs []*int
	for i := range 3 {
		xs = append(xs, new(i*i))
	}
	for _, x := range xs {
		fmt.Print(*x, " ")
	}
	fmt.Println()
}
