package repl

import (
	"errors"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/repl/display"
)

func TestFormat(t *testing.T) {
	type point struct{ X, Y int }
	// A session's struct with an unexported field m, as the interpreter
	// builds it (see unexportedTags), and an exported field Xy.
	type interpStruct struct {
		Xm int `json:"-" xml:"-"`
		Xy int
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"int", 42, "42 (int)"},
		{"float", 0.5, "0.5 (float64)"},
		{"string", "go", `"go" (string)`},
		{"text", "two\nlines", "two\nlines\n(string)"},
		{"nil", nil, "<nil>"},
		{"slice", []string{"a"}, "[a] ([]string)"},
		{"struct", point{1, 2}, "{X:1 Y:2} (repl.point)"},
		{"pointer to struct", &point{1, 2}, "&{X:1 Y:2} (*repl.point)"},
		{"unexported field", &interpStruct{1, 2}, "&{m:1 Xy:2} (*repl.interpStruct)"},
		{"error", errors.New("bad"), "bad (*errors.errorString)"},
		{"array", ndarray.FromValues(1, 2), "Array[2] float32\n[1. 2.]"},
		{"typed nil array", (*ndarray.Array)(nil), "<nil> (*ndarray.Array)"},
		{"table", display.NewTable("a").Add(1), "┌───┐\n│ a │\n├───┤\n│ 1 │\n└───┘"},
		{"figure", display.NewFigure("f").Line("s", []float64{1, 2}), "f\ns ▁█  1 → 2 (min 1, max 2)"},
		{"long", strings.Repeat("x", maxEcho+10), `"` + strings.Repeat("x", maxEcho-1) + "… (12 more characters) (string)"},
	}
	for _, tc := range tests {
		if got := Format(tc.v); got != tc.want {
			t.Errorf("%s: Format = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// An error that holds a nil pointer echoes as fmt prints it, where its
// Error method panics on the nil receiver; one of the program's runs
// its method.
func TestEchoNilPointerError(t *testing.T) {
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "var err error = (*strconv.NumError)(nil)\nerr", out: "<nil> (*strconv.NumError)\n"},
		{in: "type E struct{}\nfunc (e *E) Error() string { return \"E on nil\" }\nvar p *E\nvar e2 error = p\nfmt.Println(e2 == nil, e2)", out: "false E on nil\n"},
	})
}
