//go:build ignore

// Methods named as fmt's (Format, String, Error) with other signatures, own or
// promoted from an embedded time.Time: fmt calls only the methods that fit its
// interfaces.
package main

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

type Date struct{ Y, M, D int }

func (d Date) Format(sep string) string {
	return fmt.Sprintf("%04d%s%02d%s%02d", d.Y, sep, d.M, sep, d.D)
}

type Event struct {
	time.Time
	Name string
}

type Log struct {
	When  Event
	Dates []Date
}

type Tree struct{ Kids []*Tree }

func (t *Tree) String(indent int) string { return strings.Repeat(" ", indent) + "tree" }

type CodeErr struct{ Code int }

func (e CodeErr) Error() string               { return fmt.Sprintf("code %d", e.Code) }
func (e CodeErr) Format(prefix string) string { return prefix + e.Error() }

type Named struct{ N string }

func (n Named) String() string      { return "named:" + n.N }
func (n Named) Format(x int) string { return "x" }

func main() {
	t := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	d := Date{2024, 3, 1}
	e := Event{t, "launch"}
	fmt.Println([]Date{d, {2025, 1, 2}}, map[string]Date{"a": d})
	fmt.Println([]Event{e}, map[string]Event{"x": e})
	fmt.Printf("%v\n%+v\n", Log{e, []Date{d}}, &Log{e, nil})
	fmt.Println(&Tree{}, Tree{})
	var err error = CodeErr{7}
	fmt.Println(err, CodeErr{8})
	fmt.Println(fmt.Errorf("wrap: %w", CodeErr{9}))
	var ce CodeErr
	fmt.Println(errors.As(fmt.Errorf("w: %w", CodeErr{10}), &ce), ce.Code)
	fmt.Println(Named{"a"}, &Named{"b"}, []Named{{"c"}})
	s := fmt.Sprint(d, " ", e, " ", Named{"z"})
	fmt.Println(s)
	fmt.Printf("%T %T %T %T\n", d, e, &e, Named{})
	var any1 any = d
	var any2 any = e
	fmt.Println(any1, any2)
	fmt.Printf("%s|%d|%x\n", Named{"q"}, d, Named{"r"})
}
