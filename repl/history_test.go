package repl

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"x := 1", "x := 1"},
		{"func add(a, b int) int {\n\treturn a + b\n}\n", "func add(a, b int) int { return a + b; }"},
		{"for i := 0; i < 3; i++ {\n\tfmt.Println(i) // each\n}", "for i := 0; i < 3; i++ { fmt.Println(i) /* each */; }"},
		{"xs := []int{\n\t1,\n\t2,\n}\nlen(xs)", "xs := []int{ 1, 2, }; len(xs)"},
		{"s := `two\nlines`\nlen(s)", `s := "two\nlines"; len(s)`},
		{"f(1,\n  2)", "f(1, 2)"},
		{"// a note with */ in it\nx++", "x++"},
		{"/* block\ncomment */ y := 2", "/* block comment */ y := 2"},
		{"if x > 1 {\n\tx--\n} else {\n\tx++\n}", "if x > 1 { x--; } else { x++; }"},
	} {
		got := historyEntry(tc.in)
		if got != tc.want {
			t.Errorf("historyEntry(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "\n") {
			t.Errorf("historyEntry(%q) = %q has a line break", tc.in, got)
		}
		// The line parses as the input does.
		wrap := func(s string) string { return "package p; func _() {\n" + s + "\n}" }
		if strings.HasPrefix(tc.in, "func ") {
			wrap = func(s string) string { return "package p\n" + s }
		}
		_, errIn := parser.ParseFile(token.NewFileSet(), "", wrap(tc.in), 0)
		_, errOut := parser.ParseFile(token.NewFileSet(), "", wrap(got), 0)
		if (errIn == nil) != (errOut == nil) {
			t.Errorf("%q parses with %v, its one line %q with %v", tc.in, errIn, got, errOut)
		}
	}
}
