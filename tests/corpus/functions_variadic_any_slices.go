//go:build ignore

// A []any passed to a ...any parameter without ... is one argument, as
// are the arguments around it; with ... its elements are the arguments.
package main

import (
	"fmt"
	"strings"
)

func report(label string, items ...any) {
	fmt.Printf("%s: %d item(s)\n", label, len(items))
	for i, it := range items {
		fmt.Printf("  %d: %v (%T)\n", i, it, it)
	}
}

func row(cells ...any) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprint(c)
	}
	return strings.Join(parts, " | ")
}

type logger struct{ lines []string }

func (l *logger) log(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func main() {
	batch := []any{"x", 2}
	report("one slice", batch)
	report("spread", batch...)
	report("mixed", 1, batch, "end")
	report("literal", []any{3.5})
	var boxed any = batch
	report("boxed", boxed)
	fmt.Println(row("id", 7, batch))
	fmt.Println(row(batch...))
	l := &logger{}
	l.log("%v and %v", batch, 9)
	l.log("%v %v", batch...)
	fmt.Println(strings.Join(l.lines, "; "))
	nested := [][]any{{1, 2}, {3}}
	for _, n := range nested {
		report("nested", n)
	}
}
