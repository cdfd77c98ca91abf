//go:build ignore

// Different types behind one interface, chosen at run time.
package main

import (
	"fmt"
	"strings"
)

type Formatter interface{ Format(rows [][]string) string }

type CSV struct{}
type Table struct{ Sep string }

func (CSV) Format(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	return b.String()
}

func (t Table) Format(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				b.WriteString(t.Sep)
			}
			fmt.Fprintf(&b, "%-6s", c)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func main() {
	rows := [][]string{{"name", "n"}, {"ann", "3"}}
	for _, f := range []Formatter{CSV{}, Table{"|"}} {
		fmt.Print(f.Format(rows))
	}
}
