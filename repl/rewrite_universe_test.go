package repl

import "testing"

// Variables and constants named like predeclared identifiers, at the
// prompt and inside functions, and the rewrites' own code in their
// scope; nil spread into a variadic parameter; new of an interface type.
func TestUniverseNames(t *testing.T) {
	s, out, _ := newTestSession(t)
	steps := []evalStep{
		{in: "nil := \"none\"\nfmt.Println(nil, len(nil))", out: "none 4\n"},
		{in: "iota := 4\nfmt.Println(iota * 2)", out: "8\n"},
		{in: "len := 3\nlen++", out: ""},
		{in: "len", out: "4 (int)\n"},
		// x := x + 1 of such a variable takes the session's value.
		{in: "len := len * 10\nfmt.Println(len)", out: "40\n"},
		{in: "const cap = 7\nfmt.Println(cap + 1)", out: "8\n"},
		// The rewrites name any, nil, len and true in the code they
		// write: a type switch and a comma-ok lookup in the scope of
		// variables with those names.
		{in: "type Shape interface{ Area() float64 }\ntype Sq struct{ S float64 }\nfunc (s Sq) Area() float64 { return s.S * s.S }"},
		{in: "func classify(xs []any) (string, int) {\n\tany, len, true := false, 0, \"\"\n\tfor _, x := range xs {\n\t\tswitch v := x.(type) {\n\t\tcase int:\n\t\t\tany = true == \"\"\n\t\t\tlen += v\n\t\tcase Shape:\n\t\t\ttrue += fmt.Sprint(v.Area())\n\t\t}\n\t}\n\treturn fmt.Sprint(true, any), len\n}"},
		{in: "fmt.Println(classify([]any{1, Sq{2}, 3}))", out: "4false 4\n"},
		{in: "func lookup(m map[int]Shape, k int) float64 {\n\tnil := 0.5\n\tif s, ok := m[k]; ok {\n\t\treturn s.Area() + nil\n\t}\n\treturn nil\n}"},
		{in: "fmt.Println(lookup(map[int]Shape{1: Sq{3}}, 1), lookup(map[int]Shape{}, 2))", out: "9.5 0.5\n"},
		// Struct fields keep their names.
		{in: "type Buf struct{ len, cap int }\nb := Buf{len: 1, cap: 2}\nfmt.Printf(\"%+v %d\\n\", b, b.len)", out: "{len:1 cap:2} 1\n"},
	}
	evalSteps(t, s, out, steps)

	s, out, _ = newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "func count(xs ...int) int { return len(xs) }\nfmt.Println(count(nil...), count(1, 2), fmt.Sprint(nil...) == \"\")", out: "0 2 true\n"},
		{in: "type Namer interface{ Name() string }\np := new(Namer)\nfmt.Println(*p == nil, p != nil)", out: "true true\n"},
	})
}

// Generic type aliases, declared in one input and used in later ones;
// an alias of an instance of a generic type declared, with the type's
// methods above it, in the same input as its use.
func TestGenericAliases(t *testing.T) {
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "type Set[T comparable] = map[T]struct{}\nfunc add[T comparable](s Set[T], v T) { s[v] = struct{}{} }\ns := Set[string]{}\nadd(s, \"a\")\nadd(s, \"a\")\nfmt.Printf(\"%d %T\\n\", len(s), s)", out: "1 map[string]struct {}\n"},
		{in: "n := Set[int]{1: {}, 2: {}}\nadd(n, 3)\nlen(n)", out: "3 (int)\n"},
		{in: "type Stack[T any] struct{ items []T }\nfunc (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }\ntype IntStack = Stack[int]\nvar st IntStack\nst.Push(1)\nst.Push(2)\nfmt.Println(st.items)", out: "[1 2]\n"},
	})
}

// A func main typed at the prompt runs when called, as any function
// (the interpreter ran it at once and after every later input).
func TestPromptMain(t *testing.T) {
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "n := 0\nfunc main() { n++; fmt.Println(\"main ran\", n) }", out: ""},
		{in: "x := 1", out: ""},
		{in: "main()", out: "main ran 1\n"},
		{in: "f := main\nf()\nn", out: "main ran 2\n2 (int)\n"},
		{in: "func main() { fmt.Println(\"another main\") }\nmain()", out: "another main\n"},
	})
}
