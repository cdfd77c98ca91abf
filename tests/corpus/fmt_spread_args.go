//go:build ignore

// Arguments spread into fmt's variadic parameter (args...): a logging
// wrapper's values print as they would passed one by one.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type Level int

func (l Level) String() string { return [...]string{"DEBUG", "INFO", "WARN"}[l] }

type Account struct {
	Owner   string
	Balance float64
	tags    []string
}

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

var lines []string

func logf(level Level, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	lines = append(lines, msg)
	fmt.Printf("[%v] ", level)
	fmt.Printf(format+"\n", args...)
}

func show(args ...any) { fmt.Println(args...) }

func joined(args ...any) string { return fmt.Sprint(args...) }

func main() {
	p := Point{1, 2}
	acct := &Account{Owner: "ann", Balance: 12.5, tags: []string{"vip"}}
	logf(1, "moved to %v from %v", p, Point{})
	logf(2, "account %+v, level %v", *acct, Level(0))
	logf(0, "pair %v %+v", Pair[string, int]{"a", 1}, &Pair[int, string]{2, "b"})
	fmt.Printf("%T %v\n", []any{Pair[string, int]{}}...)
	show(p, acct, Level(2), nil, 3.5, "s")
	show([]int{1, 2}, map[string]int{"o": 0}, [2]bool{true})
	var err error = &NotFound{"k"}
	show(err, errors.New("plain"))
	fmt.Println(joined(p, " ", Level(1), " ", 7))
	vals := []any{p, Level(1), acct}
	fmt.Fprintln(os.Stdout, vals...)
	fmt.Fprint(os.Stdout, vals...)
	fmt.Println()
	s := fmt.Sprintln(vals...)
	fmt.Print(strings.ToUpper(s))
	wrapped := fmt.Errorf("lookup %v: %w", append([]any{p}, err)...)
	fmt.Println(wrapped, errors.Is(wrapped, err))
	var nf *NotFound
	fmt.Println(errors.As(wrapped, &nf), nf.Key)
	fmt.Println(len(lines), lines[0])
	none := []any{}
	fmt.Println(none...)
	fmt.Printf("%d items\n", len(none))
}
