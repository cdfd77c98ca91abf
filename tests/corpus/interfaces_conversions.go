//go:build ignore

// Conversions to interface types: a concrete value converted explicitly
// to an interface keeps its type and its methods.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d, %d)", p.X, p.Y) }

type Counter struct{ n int }

func (c *Counter) String() string { return fmt.Sprintf("counter at %d", c.n) }

type NotFound struct{ Name string }

func (e NotFound) Error() string { return e.Name + " not found" }

type Shape interface {
	fmt.Stringer
	Area() float64
}

type Square struct{ Side float64 }

func (s Square) String() string { return fmt.Sprintf("square %g", s.Side) }
func (s Square) Area() float64  { return s.Side * s.Side }

func lookup(name string) error {
	if name == "" {
		return error(NotFound{"empty name"})
	}
	return nil
}

func main() {
	fmt.Println(fmt.Stringer(Celsius(21.5)).String())
	fmt.Println(fmt.Stringer(Point{1, 2}))
	fmt.Println(fmt.Stringer(&Counter{3}).String())
	fmt.Println(fmt.Stringer(time.Second).String())

	err := lookup("")
	fmt.Println(err)

	var all []fmt.Stringer
	for i := range 3 {
		all = append(all, fmt.Stringer(Celsius(float64(i)*10)))
	}
	fmt.Println(all)

	sh := Shape(Square{2})
	fmt.Println(sh.String(), sh.Area(), fmt.Stringer(sh).String())

	w := io.Writer(os.Stdout)
	fmt.Fprintln(w, "written through io.Writer")
	var b strings.Builder
	fmt.Fprint(io.Writer(&b), "built")
	fmt.Println(b.String())

	fmt.Println(any(42), any("text"), any(Point{3, 4}))
	var e error = NotFound{"key"}
	fmt.Println(error(e).Error())
}
