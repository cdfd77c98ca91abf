package repl

import (
	"go/parser"
	"go/token"
	"testing"
)

// TestUndefinedName checks the name that a failed compile is blamed on:
// an undefined one, and none in a file whose names are all defined (its
// package clause's name is none: the interpreter's crashes in a whole
// file, whose main function the session renames, were reported as
// "undefined: main").
func TestUndefinedName(t *testing.T) {
	known := func(name string) bool { return name == "fmt" }
	for _, c := range []struct{ src, want string }{
		{"package main\nimport \"fmt\"\nfunc main() { fmt.Println(nope) }\n", "nope"},
		{"package main\nimport \"fmt\"\ntype pair[K comparable, V any] struct{ k K; v V }\nfunc _sn_main1() { p := pair[string, int]{\"a\", 1}; fmt.Println(p.k) }\n", ""},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if id := undefinedName(f, known); id != nil {
			got = id.Name
		}
		if got != c.want {
			t.Errorf("%q: blamed %q, want %q", c.src, got, c.want)
		}
	}
}
