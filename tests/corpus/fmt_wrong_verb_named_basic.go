//go:build ignore

// A verb wrong for a value of a declared type of a basic kind names the
// type in fmt's complaint.
package main

import "fmt"

type Level int

type Name string

type Ratio float64

type On bool

func main() {
	fmt.Printf("%s|%t|%d|%x\n", Level(2), Level(1), Level(3), Level(255))
	fmt.Printf("%d|%s|%q|%t\n", Name("a"), Name("b"), Name("c"), Name("d"))
	fmt.Printf("%d|%.2f|%s\n", Ratio(1.5), Ratio(2), Ratio(3))
	fmt.Printf("%d|%t|%v\n", On(true), On(false), On(true))
}
