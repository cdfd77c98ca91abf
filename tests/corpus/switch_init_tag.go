//go:build ignore

package main

import "fmt"

func main() {
	switchTags()
	for i := 0; i < 3; i++ {
	L:
		switch x := i; x * 2 {
		case 2:
			fmt.Println("two")
			break L
		case 4:
			for {
				break L
			}
		default:
			switch y := x + 1; y * y {
			case 1:
				fmt.Println("one")
				fallthrough
			default:
				fmt.Println("fell")
			}
		}
		fmt.Println("i", i)
	}
	f := func(s string) string {
		switch n := len(s); n % 2 {
		case 0:
			return "even"
		}
		return "odd"
	}
	fmt.Println(f("ab"), f("abc"))
}
func f() int { return 10 }

func switchTags() {
	switch x := 5; x {
	case 5:
		fmt.Println("a ok")
	default:
		fmt.Println("a bad")
	}
	switch x := 5; x + 5 {
	case 10:
		fmt.Println("b ok")
	default:
		fmt.Println("b bad")
	}
	y := 5
	switch z := 1; y * 2 {
	case 10:
		fmt.Println("c ok", z)
	default:
		fmt.Println("c bad")
	}
	switch z := 1; f() {
	case 10:
		fmt.Println("d ok", z)
	default:
		fmt.Println("d bad")
	}
	switch y * 2 {
	case 10:
		fmt.Println("e ok")
	default:
		fmt.Println("e bad")
	}
	switch x := 5; -x {
	case -5:
		fmt.Println("f ok")
	default:
		fmt.Println("f bad")
	}
	switch x := []int{10}; x[0] {
	case 10:
		fmt.Println("g ok")
	default:
		fmt.Println("g bad")
	}
}
