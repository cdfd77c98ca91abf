package repl

import (
	"context"
	"strings"
	"testing"
)

// TestRedeclaredFunctionCallers checks that a function declared again in
// a later input is what the functions and methods of earlier inputs
// call, and theirs in turn, as a notebook's cell run again with a fix
// expects; and that callers the new declaration does not fit are
// reported and keep running.
func TestRedeclaredFunctionCallers(t *testing.T) {
	s, out, errOut := newTestSession(t)
	steps := []evalStep{
		{in: "func rate() float64 { return 0.1 }"},
		{in: "// tax is the tax on an amount.\nfunc tax(x float64) float64 { return x * rate() }"},
		{in: "func total(x float64) float64 { return x + tax(x) }\ntype Bill struct{ Amount float64 }\nfunc (b Bill) Due() float64 { return total(b.Amount) }"},
		{in: "fmt.Println(tax(100), total(100), Bill{10}.Due())", out: "10 110 11\n"},
		{in: "func rate() float64 { return 0.2 }"},
		{in: "fmt.Println(tax(100), total(100), Bill{10}.Due())", out: "20 120 12\n"},
		{in: "f := tax\nfunc tax(x float64) float64 { return 0 }"},
		{in: "fmt.Println(f(100), tax(100), total(100))", out: "20 0 100\n"},
	}
	evalSteps(t, s, out, steps)
	errOut.Reset()
	if err := s.Eval(context.Background(), `func tax(x float64) string { return "none" }`); err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); !strings.Contains(got, "kept the earlier declaration of") || !strings.Contains(got, "total,") || !strings.Contains(got, "mismatched types") {
		t.Errorf("a caller the new declaration does not fit: stderr %q, want a note naming total", got)
	}
	out.Reset()
	if err := s.Eval(context.Background(), "fmt.Println(total(100), tax(1))"); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "100 none\n"; got != want {
		t.Errorf("after it: printed %q, want %q", got, want)
	}
}

// TestRedeclaredGenericFunction checks that a generic function declared
// again runs its new body for the type arguments that calls used before,
// at the top level and in the functions and methods of earlier inputs,
// which are declared again after it.
func TestRedeclaredGenericFunction(t *testing.T) {
	s, out, _ := newTestSession(t)
	steps := []evalStep{
		{in: "func Chunk[T any](xs []T, n int) [][]T {\n\tvar out [][]T\n\tfor i := 0; i+n <= len(xs); i += n {\n\t\tout = append(out, xs[i:i+n])\n\t}\n\treturn out\n}"},
		{in: "func Show() { fmt.Println(Chunk([]int{1, 2, 3, 4, 5}, 2)) }\ntype P struct{ X int }\nfunc (p P) Pairs() int { return len(Chunk([]int{p.X, 1, 2}, 2)) }"},
		{in: "Show()\nfmt.Println(Chunk([]string{\"a\", \"b\", \"c\"}, 2), P{0}.Pairs())", out: "[[1 2] [3 4]]\n[[a b]] 1\n"},
		{in: "func Chunk[T any](xs []T, n int) [][]T {\n\tvar out [][]T\n\tfor i := 0; i < len(xs); i += n {\n\t\tout = append(out, xs[i:min(i+n, len(xs))])\n\t}\n\treturn out\n}"},
		{in: "Show()\nfmt.Println(Chunk([]string{\"a\", \"b\", \"c\"}, 2), P{0}.Pairs())", out: "[[1 2] [3 4] [5]]\n[[a b] [c]] 2\n"},
		{in: "func Sum[T int | float64](xs ...T) (s T) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn\n}\nfunc Avg(xs ...float64) float64 { return Sum(xs...) / float64(len(xs)) }"},
		{in: "fmt.Println(Avg(1, 2, 3), Sum(1, 2))", out: "2 3\n"},
		{in: "func Sum[T int | float64](xs ...T) (s T) {\n\tfor _, x := range xs {\n\t\ts += 2 * x\n\t}\n\treturn\n}"},
		{in: "fmt.Println(Avg(1, 2, 3), Sum(1, 2))", out: "4 6\n"},
	}
	evalSteps(t, s, out, steps)
}

// TestRedeclaredTypeUsers checks that a type declared again (a
// notebook's cell of a type run again, changed or not) keeps the methods
// that other inputs declared for it, and the functions that take it take
// the new type; and that those the new declaration does not fit are
// reported and left out.
func TestRedeclaredTypeUsers(t *testing.T) {
	s, out, errOut := newTestSession(t)
	steps := []evalStep{
		{in: "type Money struct{ Cents int }"},
		{in: `func (m Money) String() string { return fmt.Sprintf("$%d.%02d", m.Cents/100, m.Cents%100) }`},
		{in: "func (m Money) Double() Money { return Money{Cents: 2 * m.Cents} }\nfunc show(m Money) { fmt.Println(\"show\", m) }"},
		{in: "price := Money{1999}\nfmt.Println(price)", out: "$19.99\n"},
		{in: "type Money struct{ Cents int }"},
		{in: "price := Money{1999}\nfmt.Println(price)\nshow(price.Double())", out: "$19.99\nshow $39.98\n"},
		{in: "type Money struct {\n\tCents int\n\tCur   string\n}"},
		{in: `show(Money{250, "EUR"}.Double())`, out: "show $5.00\n"},
	}
	evalSteps(t, s, out, steps)
	errOut.Reset()
	if err := s.Eval(context.Background(), "type Money struct{ Units int }"); err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); !strings.Contains(got, "Money.Double, Money.String") || !strings.Contains(got, "do not fit") || strings.Contains(got, "show") {
		t.Errorf("methods the new declaration does not fit: stderr %q, want a note naming Money.Double and Money.String alone", got)
	}
	out.Reset()
	if err := s.Eval(context.Background(), "show(Money{3})"); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "show {3}\n"; got != want {
		t.Errorf("after it: printed %q, want %q", got, want)
	}
}

// TestPromotedMethods checks that a value of a type declared at the
// prompt that embeds a compiled type has the methods promoted from it
// where it is printed or put into an interface, in the input that
// declares the type and in later ones, and that a method of the same
// name declared later replaces the promoted one.
func TestPromotedMethods(t *testing.T) {
	s, out, errOut := newTestSession(t)
	steps := []evalStep{
		{in: "type Named struct {\n\t*bytes.Buffer\n\tName string\n}"},
		{in: "n := Named{bytes.NewBufferString(\"hi\"), \"x\"}\nfmt.Println(n)", out: "hi\n"},
		{in: "type Lengther interface{ Len() int }\nvar l Lengther = n\nfmt.Println(l.Len())", out: "2\n"},
		{in: "func (n Named) String() string { return \"named \" + n.Name }\nfmt.Println(n)", out: "named x\n"},
		{in: "type Doc struct {\n\t*strings.Builder\n\tT string\n}\nd := Doc{&strings.Builder{}, \"t\"}\nd.WriteString(\"body\")\nfmt.Println(d)", out: "body\n"},
	}
	evalSteps(t, s, out, steps)
	if errOut.Len() > 0 {
		t.Errorf("stderr: %q", errOut.String())
	}
}

// A variable or constant declared again: the functions of earlier
// inputs that use it, and their callers, use the new one (they read the
// old one for ever, even after an assignment to the new one).
func TestRefreshVarUsers(t *testing.T) {
	s, out, errb := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "p, q := 1, 2\nfunc getQ() int { return q }\nfunc twiceQ() int { return 2 * getQ() }"},
		{in: "r, q := 3, 4\ngetQ()", out: "4 (int)\n"},
		{in: "q = 7\ntwiceQ()", out: "14 (int)\n"},
		{in: "const K = 2\nfunc k2() int { return K * 2 }"},
		// A constant: from the next input on.
		{in: "const K = 5"},
		{in: "k2()", out: "10 (int)\n"},
		// The same type: the same variable, in the same input too.
		{in: "q := 8\nfmt.Println(getQ(), twiceQ())", out: "8 16\n"},
	})
	// A type that no longer fits leaves the function as it was.
	evalSteps(t, s, out, []evalStep{{in: "q := \"s\"\ngetQ()", out: "8 (int)\n"}})
	if !strings.Contains(errb.String(), "note: getQ, declared before q was declared again, do not fit it") {
		t.Errorf("no note on getQ: %q", errb.String())
	}
}
