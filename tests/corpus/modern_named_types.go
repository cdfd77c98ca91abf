//go:build ignore

// Named types keep their names and methods: %T, %v and String.
package main

import "fmt"

type Celsius float64

type Point struct{ X, Y int }

type Temp struct{ C Celsius }

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type IDs []int

func main() {
	c := Celsius(21.5)
	fmt.Printf("%T %v %s\n", c, c, c)
	p := &Point{1, 2}
	fmt.Printf("%T %v %+v\n", p, p, *p)
	fmt.Printf("%T %v\n", Temp{c}, Temp{c})
	fmt.Printf("%T %v %d\n", IDs{1, 2}, IDs{1, 2}, len(IDs{}))
	fmt.Println(c, []Celsius{1, 2})
	var s fmt.Stringer = c
	fmt.Println(s.String())
}
