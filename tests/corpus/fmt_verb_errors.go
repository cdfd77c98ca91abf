//go:build ignore

// fmt's reports of wrong verbs and arguments (MISSING, BADINDEX, EXTRA,
// NOVERB, BADWIDTH), with the program's own types among the arguments,
// whose %T names them, as does a verb wrong for their values.
package main

import "fmt"

type Point struct{ X, Y int }

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

func main() {
	p := Point{1, 2}
	t := Celsius(21.5)
	fmt.Printf("%T %v\n", p)
	fmt.Printf("%T %[3]v %d\n", p, 2)
	fmt.Printf("%T %v %v\n", p, p)
	fmt.Printf("%T %*d|\n", p, 5)
	fmt.Printf("%T %v\n", p, p, t, 3)
	fmt.Printf("%[2]T %[1]v\n", p, t)
	fmt.Printf("%[2]v %T\n", p, t, 9)
	fmt.Printf("%T %!\n", p)
	fmt.Printf("%T %[0]v %v\n", t, p)
	fmt.Printf("%T %v %", t, t)
	fmt.Println()
	fmt.Printf("%T %.*f|\n", t, 2, 3.14159)
	fmt.Printf("%T %*v|\n", p, "x", 4)
	s := fmt.Sprintf("%v %T %d%%", t, p)
	fmt.Println(s)
	fmt.Println(fmt.Sprintf("%T", nil), fmt.Sprintf("%v %T", p, nil))
	err := fmt.Errorf("at %v: %w %T", p, nil)
	fmt.Println(err)
	fmt.Printf("%d|%x|%5.1f|%s|%t\n", t, Celsius(1.5), t, t, t)
}
