package repl

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchSession is a session with the declarations of a working session:
// types with methods, functions, variables.
func benchSession(b *testing.B) *Session {
	s, err := New(Options{Stdout: discard{}, Stderr: discard{}, Master: "local[1]"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	var src strings.Builder
	for i := range 20 {
		fmt.Fprintf(&src, "type T%d struct{ A, B int; Name string }\n", i)
		fmt.Fprintf(&src, "func (t *T%d) Sum() int { return t.A + t.B }\n", i)
		fmt.Fprintf(&src, "func f%d(xs []int) map[string]int { m := map[string]int{}; for i, x := range xs { m[fmt.Sprint(i)] = x }; return m }\n", i)
		fmt.Fprintf(&src, "v%d := &T%d{A: %d}\n", i, i, i)
	}
	if err := s.Eval(context.Background(), src.String()); err != nil {
		b.Fatal(err)
	}
	return s
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// input100 is an input of 100 lines: declarations, loops, closures,
// calls into sparknet's packages and the earlier inputs' names.
func input100() string {
	var b strings.Builder
	b.WriteString("type point struct{ X, Y float64 }\n")
	b.WriteString("func (p point) Norm() float64 { return math.Sqrt(p.X*p.X + p.Y*p.Y) }\n")
	for i := range 24 {
		fmt.Fprintf(&b, "p%d := point{%d, %d}\n", i, i, i+1)
		fmt.Fprintf(&b, "if n := p%d.Norm(); n > 3 {\n\tv%d.A += int(n)\n}\n", i, i%20)
	}
	b.WriteString("total := 0; for i := range 10 { total += f0([]int{i})[\"0\"] + v1.Sum() }\n")
	b.WriteString("a := ndarray.Arange(0, 6, 1).Reshape(2, 3); _ = a.MatMul(a.T())\n")
	return b.String()
}

// BenchmarkCheck measures the type check of a 100-line input in a
// session with 80 earlier declarations: what checking adds to an input
// (the goal is at most 20 ms).
func BenchmarkCheck(b *testing.B) {
	s := benchSession(b)
	src := input100()
	if n := strings.Count(src, "\n"); n != 100 {
		b.Fatalf("input has %d lines", n)
	}
	sp := splitUnits(src)
	p, err := s.parseUnits(inputFile, src, sp.units, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.prepare(inputFile, p.imports); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		saved := s.scope.save()
		if _, err := s.check(inputFile, p.files, p.kinds, true); err != nil {
			b.Fatal(err)
		}
		s.scope.restore(saved)
	}
}

// BenchmarkEval measures the whole evaluation of the same input (parse,
// check, rewrite, compile, run), for comparison with BenchmarkCheck.
func BenchmarkEval(b *testing.B) {
	s := benchSession(b)
	src := input100()
	b.ResetTimer()
	for range b.N {
		if err := s.Eval(context.Background(), src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewSession measures a session's start: the interpreter, its
// symbols and sc (the shell's start-up to its first prompt adds the
// banner; the goal is under 0.3 s).
func BenchmarkNewSession(b *testing.B) {
	for range b.N {
		s, err := New(Options{Stdout: discard{}, Stderr: discard{}, Master: "local[1]"})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
