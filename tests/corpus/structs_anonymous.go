//go:build ignore

// Anonymous struct types for one-off values and tables of cases.
package main

import "fmt"

func main() {
	pt := struct{ X, Y int }{3, 4}
	fmt.Println(pt, pt.X*pt.Y)
	cases := []struct {
		in   string
		want int
	}{
		{"a", 1},
		{"abc", 3},
		{"", 0},
	}
	for _, c := range cases {
		fmt.Println(c.in, len(c.in) == c.want)
	}
	var cfg struct {
		Verbose bool
		Level   int
	}
	cfg.Level = 2
	fmt.Printf("%+v\n", cfg)
}
