package repl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newTestSession starts a session writing to buffers.
func newTestSession(t *testing.T) (*Session, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: &errb, Master: "local[2]"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &out, &errb
}

// evalStep is one input and what it must print, and the error it must
// return ("" for none; otherwise a part of its message).
type evalStep struct {
	in, out, err string
}

func TestEval(t *testing.T) {
	tests := []struct {
		name  string
		steps []evalStep
	}{
		{"declare and echo", []evalStep{
			{in: "x := 40 + 2"},
			{in: "x", out: "42 (int)\n"},
			{in: "float64(x) * 2.5", out: "105 (float64)\n"},
			{in: `"go"`, out: "\"go\" (string)\n"},
			{in: "[]int{1, 2}", out: "[1 2] ([]int)\n"},
		}},
		{"print calls print only their output", []evalStep{
			{in: `fmt.Println("answer", 42)`, out: "answer 42\n"},
			{in: `fmt.Printf("%d\n", 7)`, out: "7\n"},
		}},
		{"mixed declarations and statements", []evalStep{
			{in: "func sq(v int) int { return v * v }\nsq(5)", out: "25 (int)\n"},
			{in: "type P struct{ X int }\nfunc (p P) Twice() int { return 2 * p.X }\nP{4}.Twice()", out: "8 (int)\n"},
			{in: "var m map[string]int; len(m)", out: "0 (int)\n"},
		}},
		{"results of calls", []evalStep{
			{in: "func two() (int, error) { return 2, nil }"},
			{in: "two()", out: "2 (int)\n"},
			{in: `func fail() (int, error) { return 0, errors.New("no") }`},
			{in: "fail()", out: "error: no (*errors.errorString)\n"},
			{in: "func none() {}"},
			{in: "none()", out: ""},
			{in: `func onlyErr() error { return nil }`},
			{in: "onlyErr()", out: ""},
		}},
		{"arrays and tables", []evalStep{
			{in: "ndarray.Arange(0, 4, 1).Reshape(2, 2)", out: "Array[2 2] float32\n[[0. 1.]\n [2. 3.]]\n"},
			{in: `w := ndarray.NewWeightCollection(); w.Set("ip", ndarray.Ones(2)); w`, out: "WeightCollection{1 layers, 2 params}\n" +
				"┌───────┬──────┬───────┬─────────┐\n" +
				"│ layer │ blob │ shape │ norm    │\n" +
				"├───────┼──────┼───────┼─────────┤\n" +
				"│ ip    │    0 │ 2     │ 1.41421 │\n" +
				"└───────┴──────┴───────┴─────────┘\n"},
		}},
		{"sc and ctx", []evalStep{
			{in: "sc", out: "rdd.Context{master: local[2], workers: 2} (*rdd.Context)\n"},
			{in: "ctx.Err()", out: ""}, // a call returning a nil error prints nothing
			{in: "ctx.Err() == nil", out: "true (bool)\n"},
		}},
		{"range over an integer", []evalStep{
			{in: "for i := range 3 { fmt.Print(i) }", out: "012"},
			{in: "n := 2; for range n { fmt.Print(\"x\") }", out: "xx"},
			{in: "for i := range len(\"abc\") { fmt.Print(i) }", out: "012"},
		}},
		{"parallel assignments mixing constants and calls", []evalStep{
			{in: "type O struct{ N int; F float64 }\ng := func() float64 { return 0.25 }\nh := func() int { return 7 }"},
			{in: "var o O; o.N, o.F = 4, g(); fmt.Println(o)", out: "{4 0.25}\n"},
			{in: "var p O; p.N, p.F = h(), 1; fmt.Println(p)", out: "{7 1}\n"},
			{in: "a, b := 0, 0.0; a, b = 5, g(); fmt.Println(a, b)", out: "5 0.25\n"},
			{in: "x := []int{0, 0}; x[0], x[1] = 3, h(); x", out: "[3 7] ([]int)\n"},
			{in: "r := O{F: 0.5}; var q O; q.N, q.F = h(), r.F; fmt.Println(q)", out: "{7 0.5}\n"},
			{in: "i, j := 1, 2; i, j = j, i; fmt.Println(i, j)", out: "2 1\n"},
			{in: "func f() { var a int; var b float64; a, b = 1, g(); fmt.Println(a, b) }; f()", out: "1 0.25\n"},
			{in: "a, b = b2(), 9", err: "undefined: b2"},
		}},
		{"defines mixing composite literals with other values", []evalStep{
			{in: "type T struct{ a int }\nf := func() int { fmt.Print(\"f \"); return 2 }\ng := func() int { fmt.Print(\"g \"); return 3 }"},
			{in: "n, v := 5, T{1}; fmt.Println(n, v)", out: "5 {1}\n"},
			{in: "v2, p := T{1}, &T{2}; fmt.Println(v2, p)", out: "{1} &{2}\n"},
			{in: "s, k := []int{1}, len(\"ab\"); m, z := map[string]int{\"x\": 1}, 2.5; fmt.Println(s, k, m, z)", out: "[1] 2 map[x:1] 2.5\n"},
			{in: "a, b, c := f(), T{g()}, f(); fmt.Println(a, b, c)", out: "f g f 2 {3} 2\n"},
			{in: "func fx() { var x float64; x, w := 5, T{4}; fmt.Println(x, w) }; fx()", out: "5 {4}\n"},
			{in: "func h() (int, T) { i, t := 7, T{8}; return i, t }; fmt.Println(h())", out: "7 {8}\n"},
			{in: "if i, t := 1, (T{9}); i > 0 { fmt.Println(i, t) }", out: "1 {9}\n"},
			{in: "for i, xs := 0, []int{4, 5}; i < len(xs); i++ { fmt.Print(xs[i], \" \") }", out: "4 5 "},
			{in: "outer: for i, xs := 0, []int{6, 7}; i < 5; i++ { for range 2 { if i == len(xs) { break outer }; fmt.Print(xs[i], \" \"); continue outer } }", out: "6 7 "},
			{in: "q, r := T{1}, T{2}; fmt.Println(q, r)", out: "{1} {2}\n"},
			{in: "var gn, gv = 5, T{1}", out: ""},
			{in: "var gs, gp = []int{1}, &T{2}\nfmt.Println(gn, gv, gs, gp)", out: "5 {1} [1] &{2}\n"},
			{in: "func fv() { var n, v = 6, T{3}; var (a, b = 1, []string{\"q\"}; c = 3); fmt.Println(n, v, a, b, c) }; fv()", out: "6 {3} 1 [q] 3\n"},
		}},
		{"branches in select cases", []evalStep{
			{in: "ch := make(chan int, 1)"},
			{in: "ch <- 1; n, k := 0, 0; for n < 3 { n++; select { case <-ch: k += 10; continue; default: k++ }; k += 100 }; fmt.Println(n, k)", out: "3 212\n"},
			{in: "ch <- 1; n = 0; loop: for { n++; select { case <-ch: break loop } }; fmt.Println(n)", out: "1\n"},
			{in: "k = 0; for i := 0; i < 3; i++ { ch <- i; select { case v := <-ch: if v == 1 { break }; k += 10 }; k++ }; fmt.Println(k)", out: "23\n"},
			{in: "func drain(c chan int) (s int) { for { select { case v, ok := <-c: if !ok { goto end }; s += v } }; end: return }"},
			{in: "c := make(chan int, 2); c <- 3; c <- 4; close(c); fmt.Println(drain(c))", out: "7\n"},
			{in: "func spin(c chan int) int { n := 0; back: n++; select { case c <- n: <-c; if n < 3 { goto back } }; return n }", err: "goto back goes back around a select statement"},
		}},
		{"methods of generic types beside generic functions", []evalStep{
			{in: "type P[K comparable, V any] struct { K K; V V }\nfunc (p P[K, V]) String() string { return fmt.Sprint(p.K, \"=\", p.V) }"},
			{in: "func mk[K comparable, V any](k K, v V) []P[K, V] { var ps []P[K, V]; return append(ps, P[K, V]{k, v}) }"},
			{in: "fmt.Println(mk(\"a\", 1))", out: "[a=1]\n"},
		}},
		{"methods of generic types calling ones declared after them", []evalStep{
			{in: "type Box[T any] struct{ v T }\nfunc (b *Box[T]) Get() T { return b.inner() }\nfunc (b *Box[T]) inner() T { return b.v }\nfunc (b Box[T]) Show() string { return fmt.Sprint(b.v, b.twice()) }\nfunc (b Box[T]) twice() int { return 2 }"},
			{in: "b := &Box[int]{5}; fmt.Println(b.Get(), b.Show())", out: "5 5 2\n"},
		}},
		{"ranges over collections of channels", []evalStep{
			{in: "a, b := make(chan int, 1), make(chan int, 1); b <- 5"},
			{in: "for _, ch := range []chan int{a, b} { select { case v := <-ch: fmt.Println(v); default: } }", out: "5\n"},
			{in: "m := map[string]chan int{\"a\": a}; for k, ch := range m { fmt.Println(k, len(ch)) }", out: "a 0\n"},
			{in: "arr := [2]chan int{a, b}; n := 0; for _, c := range &arr { n += cap(c) }; n", out: "2 (int)\n"},
		}},
		{"range clauses that assign", []evalStep{
			{in: "var i, v int; for i, v = range []int{4, 5} {}; fmt.Println(i, v)", out: "1 5\n"},
			{in: "var j int; var r rune; for j, r = range \"a\\xffb\" { fmt.Print(j, r, \" \") }; fmt.Println(j)", out: "0 97 1 65533 2 98 2\n"},
		}},
		{"select cases that send computed values", []evalStep{
			{in: "type pr struct { n int; s string }; lab := func(i int) string { return fmt.Sprint(\"v\", i) }; out := make(chan pr, 1); y := 2"},
			{in: "select { case out <- pr{y, lab(y + 1)}: }; fmt.Println(<-out)", out: "{2 v3}\n"},
		}},
		{"multiple results in nested blocks", []evalStep{
			{in: "func two() (int, error) { return 2, nil }"},
			{in: "for i := 0; i < 2; i++ { v, err := two(); w, err := two(); fmt.Print(v+w+i, err, \" \") }", out: "4 <nil> 5 <nil> "},
			{in: `m := map[string]int{"a": 1}; if true { v, ok := m["a"]; fmt.Print(v, ok) }`, out: "1 true"},
			{in: "var a any = 3; switch v := a.(type) { case int: fmt.Print(v + 1) }", out: "4"},
		}},
		{"goroutines keep their arguments", []evalStep{
			{in: "ch := make(chan int, 3); for i := 0; i < 3; i++ { go func(v int) { ch <- v }(i) }"},
			{in: "<-ch + <-ch + <-ch", out: "3 (int)\n"},
		}},
		{"errors", []evalStep{
			{in: "undefinedName", err: "in[1]:1:1: undefined: undefinedName"},
			{in: "y := undefinedName + 1", err: "in[2]:1:6: undefined: undefinedName"},
			{in: "x := )", err: "in[3]:1:6: expected operand"},
			{in: "x := 1 +", err: "unexpected end of input"},
			{in: "for i := range 3 {\n\tfmt.Println(i\n}", err: "in[5]:2:15: missing ',' before newline in argument list"},
			{in: "s := []int{1, 2", err: "in[6]:1:16: unexpected end of input: a bracket, string or comment is not closed"},
			{in: "defer fmt.Println()", err: "defer at the top level"},
			{in: "1 + 1", out: "2 (int)\n"},
		}},
		{"panics", []evalStep{
			{in: "func boom(v int) { panic(v) }"},
			{in: "x := 1\nboom(x)", err: "panic: 1\n\tin boom at in[1]:1:6\n\tat in[2]:2:1"},
			{in: `a := ndarray.Ones(2); a.Add(ndarray.Ones(3))`, err: "panic: ndarray: shapes [2] and [3] do not broadcast"},
			{in: "x + 1", out: "2 (int)\n"},
		}},
		{"return among top-level statements ends the input", []evalStep{
			{in: "n := 0\nfor i := 0; i < 5; i++ {\n\tif i == 2 {\n\t\treturn\n\t}\n\tn += 10\n\tfmt.Println(i)\n}\nfmt.Println(\"not reached\")", out: "0\n1\n"},
			{in: "n", out: "20 (int)\n"},
			{in: "a := 1\nif a > 0 { return }\nb := 2\nfmt.Println(b)", out: ""},
			{in: "a", out: "1 (int)\n"},
			{in: "return\nfmt.Println(\"not reached\")", out: ""},
			// Deferred calls of the enclosing statement run, and recover
			// returns nil in them, as after a return in a function.
			{in: "for i := range 3 {\n\tdefer func() { fmt.Println(\"deferred\", i, recover()) }()\n\tif i == 1 {\n\t\treturn\n\t}\n}\nfmt.Println(\"not reached\")", out: "deferred 1 <nil>\ndeferred 0 <nil>\n"},
			{in: "f := func() int {\n\tfor i := range 9 {\n\t\tif i == 4 {\n\t\t\treturn i\n\t\t}\n\t}\n\treturn -1\n}\nf()", out: "4 (int)\n"},
			{in: "return 1", err: "too many return values"},
			{in: "a + 1", out: "2 (int)\n"},
		}},
		{"os.Exit", []evalStep{
			{in: "os.Exit(3)", err: "exit status 3"},
		}},
		{"imports", []evalStep{
			{in: `import "math/rand/v2"`},
			{in: "rand.IntN(1)", out: "0 (int)\n"},
			{in: `import "fmt"`}, // imported already: accepted
			{in: "strings.Repeat(\"ab\", 2)", out: "\"abab\" (string)\n"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if raceEnabled && strings.HasPrefix(tc.name, "goroutines") {
				t.Skip("the interpreter races with its own goroutines")
			}
			s, out, _ := newTestSession(t)
			evalSteps(t, s, out, tc.steps)
		})
	}
}

// evalSteps evaluates steps in s, one input each, checking what each
// prints on out and the error it returns.
func evalSteps(t *testing.T, s *Session, out *bytes.Buffer, steps []evalStep) {
	t.Helper()
	for _, st := range steps {
		out.Reset()
		err := s.Eval(context.Background(), st.in)
		switch {
		case st.err == "" && err != nil:
			t.Fatalf("%q: %v", st.in, err)
		case st.err != "" && err == nil:
			t.Fatalf("%q: no error, want %q", st.in, st.err)
		case st.err != "" && !strings.Contains(err.Error(), st.err):
			t.Fatalf("%q: error %q, want %q", st.in, err, st.err)
		}
		if got := out.String(); got != st.out {
			t.Errorf("%q printed %q, want %q", st.in, got, st.out)
		}
	}
}

func TestExitError(t *testing.T) {
	s, out, _ := newTestSession(t)
	err := s.Eval(context.Background(), "os.Exit(5)")
	var ex *ExitError
	if !errors.As(err, &ex) || ex.Code != 5 {
		t.Fatalf("got %v, want *ExitError with code 5", err)
	}
	// As in Go, no deferred call runs and no recover stops it, on the
	// input's goroutine or on one it started; the session goes on.
	for _, in := range []string{
		"func f() {\n\tdefer func() { fmt.Println(\"recovered\", recover()) }()\n\tfmt.Println(\"start\")\n\tos.Exit(3)\n}\nf()",
		"done := make(chan bool)\ngo func() { defer fmt.Println(\"deferred\"); fmt.Println(\"start\"); os.Exit(3) }()\n<-done",
	} {
		out.Reset()
		err := s.Eval(context.Background(), in)
		if !errors.As(err, &ex) || ex.Code != 3 || out.String() != "start\n" {
			t.Errorf("%q: got %v, printed %q; want *ExitError with code 3, printed \"start\\n\"", in, err, out.String())
		}
	}
	out.Reset()
	err = s.Eval(context.Background(), "1 + 1")
	// The goroutine that called os.Exit ends on its own thread; on a
	// loaded machine it may not have ended yet.
	for deadline := time.Now().Add(2 * time.Second); s.Goroutines() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if err != nil || out.String() != "2 (int)\n" || s.Goroutines() != 0 {
		t.Errorf("after os.Exit: %v, %q, %d goroutines", err, out.String(), s.Goroutines())
	}
}

func TestInterrupt(t *testing.T) {
	if raceEnabled {
		t.Skip("the interpreter races with itself when an input is interrupted")
	}
	tests := []struct{ name, loop string }{
		{"interpreted loop", "n := 0; for { n++ }"},
		{"blocked on a channel", "c := make(chan int); <-c"},
		{"compiled call watching ctx", "<-ctx.Done()"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, out, _ := newTestSession(t)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			err := s.Eval(ctx, tc.loop)
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("got %v, want ErrInterrupted", err)
			}
			out.Reset()
			if err := s.Eval(context.Background(), "1 + 1"); err != nil {
				t.Fatal(err)
			}
			if out.String() != "2 (int)\n" {
				t.Errorf("after the interrupt: %q", out.String())
			}
		})
	}
}

// TestInterruptedCompiledCall checks that an input interrupted inside a
// compiled call that ignores ctx runs none of its statements after the
// call returns, though a later input runs by then.
func TestInterruptedCompiledCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the interpreter races with itself when an input is interrupted")
	}
	s, out, _ := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	err := s.Eval(ctx, "x := 1\ntime.Sleep(2300 * time.Millisecond)\nx = 2\nfmt.Println(\"after the sleep\")")
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	out.Reset()
	if err := s.Eval(context.Background(), "time.Sleep(700 * time.Millisecond)\nfmt.Println(x)"); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "1\n"; got != want {
		t.Errorf("the next input printed %q, want %q: the interrupted one went on", got, want)
	}
}

// TestInterruptKeepsClosures checks that after an interrupt the
// closures that earlier inputs made run: the methods declared at the
// prompt (which go through function variables), the converters that
// print a type's values, a function value in a variable, and their
// goroutines and channels.
func TestInterruptKeepsClosures(t *testing.T) {
	if raceEnabled {
		t.Skip("the interpreter races with itself when an input is interrupted")
	}
	s, out, _ := newTestSession(t)
	steps := []evalStep{
		{in: "type T struct{ N int }"},
		{in: `func (t T) String() string { return fmt.Sprint("T#", t.N) }`},
		{in: "func (t T) Sum(xs []int) int { c := make(chan int); go func() { s := 0; for _, x := range xs { s += x }; c <- s }(); return <-c }"},
		{in: "func show(v any) { fmt.Println(\"show\", v) }\nsend := func(c chan int) { c <- 7 }"},
	}
	evalSteps(t, s, out, steps)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if err := s.Eval(ctx, "n := 0; for { n++ }"); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	evalSteps(t, s, out, []evalStep{
		{in: "fmt.Println(T{3}, T{3}.Sum([]int{1, 2, 3}))\nshow(T{4})", out: "T#3 6\nshow T#4\n"},
		{in: "c := make(chan int, 1)\nsend(c)\nfmt.Println(<-c)", out: "7\n"},
	})
}

// TestGoroutinePanicEndsInput checks that a panic in a goroutine that
// the running input started ends that input with the panic as its error,
// as it would end a Go program, and that the session goes on.
func TestGoroutinePanicEndsInput(t *testing.T) {
	s, out, _ := newTestSession(t)
	err := s.Eval(context.Background(), "go func() {\n\tvar m map[string]int\n\tm[\"x\"] = 1\n}()\ntime.Sleep(200 * time.Millisecond)\nfmt.Println(\"after\")")
	var pe *PanicError
	if !errors.As(err, &pe) || !pe.Goroutine || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Fatalf("got %v, want the goroutine's panic", err)
	}
	if out.String() != "" {
		t.Errorf("the input went on after the panic: printed %q", out.String())
	}
	out.Reset()
	if err := s.Eval(context.Background(), "1 + 1"); err != nil || out.String() != "2 (int)\n" {
		t.Errorf("after it: %v, %q", err, out.String())
	}
}

// TestPanicPositions checks that a panic's trace names the input, at the
// expression that panicked, and that its message is Go's.
func TestPanicPositions(t *testing.T) {
	s, _, _ := newTestSession(t)
	err := s.Eval(context.Background(), `var i any = "s"; n := i.(int); _ = n`)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a *PanicError", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "panic: interface conversion: interface {} is string, not int\n\tat in[1]:1:23") || strings.Contains(msg, inputFile) {
		t.Errorf("message %q, want Go's, then the position as in[1]:1:23", msg)
	}
	// An assertion to an interface, which a function literal of the
	// shell's checks: the report leaves the literal out.
	if err := s.Eval(context.Background(), "type S interface{ A() }\ntype T struct{}\nfunc (T) A() {}\nfunc f(s S) { _ = s.(fmt.Stringer) }"); err != nil {
		t.Fatal(err)
	}
	err = s.Eval(context.Background(), "f(T{})")
	want := "panic: interface conversion: main.T is not fmt.Stringer: missing method String\n\tin f at in[2]:4:6\n\tat in[3]:1:1"
	if err == nil || err.Error() != want {
		t.Errorf("report %q, want %q", err, want)
	}
}

func TestGoroutinePanic(t *testing.T) {
	if raceEnabled {
		t.Skip("the interpreter races with its own goroutines")
	}
	s, _, errb := newTestSession(t)
	// A panic reported while the input runs ends it with the panic as
	// its error (see TestGoroutinePanicEndsInput); one after it ended
	// (the deferred close let the input end first) goes to stderr.
	var errs strings.Builder
	eval := func(src string) {
		var pe *PanicError
		if err := s.Eval(context.Background(), src); errors.As(err, &pe) && pe.Goroutine {
			errs.WriteString(err.Error() + "\n")
		} else if err != nil {
			t.Fatal(err)
		}
	}
	eval(`done := make(chan bool); go func() { defer close(done); panic("in goroutine") }(); <-done`)
	// The same from inside declared functions and methods.
	decl := "func start(done chan bool) { go func() { defer close(done); panic(\"in a function\") }() }\n" +
		"type W struct{}\nfunc (W) Start(done chan bool) { go func() { defer close(done); panic(\"in a method\") }() }"
	if err := s.Eval(context.Background(), decl); err != nil {
		t.Fatal(err)
	}
	eval(`d1 := make(chan bool); start(d1); <-d1`)
	eval(`d2 := make(chan bool); W{}.Start(d2); <-d2`)
	deadline := time.Now().Add(5 * time.Second)
	for _, want := range []string{"panic: in goroutine", "panic: in a function", "panic: in a method"} {
		for !strings.Contains(errb.String()+errs.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("no report %q; stderr: %q, errors: %q", want, errb.String(), errs.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestScriptDefers checks defer among a script's top-level statements:
// its call runs when the script ends, the last first, with the
// arguments it had at the defer, after a return or a panic too (which
// recover in it stops), and not after os.Exit; at the prompt defer stays
// refused.
func TestScriptDefers(t *testing.T) {
	for _, c := range []struct{ name, src, out, err string }{
		{"end", "for i := range 3 {\n\tdefer fmt.Println(\"loop\", i)\n}\nx := 1\ndefer fmt.Println(\"x was\", x)\nx = 2\n\n// %%\nfmt.Println(\"end\", x)\n",
			"end 2\nx was 1\nloop 2\nloop 1\nloop 0\n", ""},
		{"return", "defer fmt.Println(\"deferred\")\nif true {\n\treturn\n}\nfmt.Println(\"not reached\")\n", "deferred\n", ""},
		{"panic", "defer fmt.Println(\"deferred\")\npanic(\"boom\")\n", "deferred\n", "panic: boom"},
		{"os.Exit", "defer fmt.Println(\"not run\")\nos.Exit(2)\n", "", "exit status 2"},
		{"recover", "defer fmt.Println(\"last\")\ndefer func() { fmt.Println(\"recovered:\", recover()) }()\nvar i any = \"s\"\n_ = i.(int)\nfmt.Println(\"not reached\")\n",
			"recovered: interface conversion: interface {} is string, not int\nlast\n", ""},
		{"closures", "for i, s := range []string{\"x\", \"y\"} {\n\tdefer func() { fmt.Println(i, s) }()\n}\n", "1 y\n0 x\n", ""},
		{"recover nil", "defer func() { fmt.Println(\"recovered:\", recover()) }()\nfmt.Println(\"end\")\n", "end\nrecovered: <nil>\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, out, _ := newTestSession(t)
			err := s.RunSource(context.Background(), "defers.go", c.src, false)
			if got := out.String(); got != c.out {
				t.Errorf("printed %q, want %q", got, c.out)
			}
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
		})
	}
	s, _, _ := newTestSession(t)
	if err := s.Eval(context.Background(), "defer fmt.Println(1)"); err == nil || !strings.Contains(err.Error(), "defer at the top level") {
		t.Errorf("at the prompt: %v", err)
	}
}

func TestRunSourceReturnEndsTheScript(t *testing.T) {
	s, out, _ := newTestSession(t)
	src := "x := 1\nfmt.Println(\"first\", x)\n\n// %%\nif x == 1 {\n\treturn\n}\nfmt.Println(\"not reached\")\n\n// %%\nfmt.Println(\"nor this\")\n"
	if err := s.RunSource(context.Background(), "ret.go", src, false); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "first 1\n" {
		t.Fatalf("output %q, want the first cell's only", got)
	}
}

func TestRunSourceCells(t *testing.T) {
	s, out, _ := newTestSession(t)
	src := "x := 1\nfmt.Println(x)\n// %%\nx := \"two\"\nx\n"
	if err := s.RunSource(context.Background(), "cells.go", src, true); err != nil {
		t.Fatal(err)
	}
	if want := "1\n\"two\" (string)\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	err := s.RunSource(context.Background(), "bad.go", "\n\nnope()\n", false)
	if err == nil || !strings.Contains(err.Error(), "bad.go:3:1: undefined: nope") {
		t.Errorf("error %v, want bad.go:3:1: undefined: nope", err)
	}
}

func TestPackageMainFile(t *testing.T) {
	s, out, _ := newTestSession(t)
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"main ran\") }\n"
	if err := s.RunSource(context.Background(), "main.go", src, false); err != nil {
		t.Fatal(err)
	}
	// main runs once, not again with later inputs.
	if err := s.Eval(context.Background(), "1"); err != nil {
		t.Fatal(err)
	}
	if want := "main ran\n1 (int)\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

func TestPackageMainFileUsesMain(t *testing.T) {
	s, out, _ := newTestSession(t)
	// Go lets a program call its main (a teaching demo's "play again")
	// and take it as a value; the file's main runs under another name.
	src := "package main\n\nimport \"fmt\"\n\nvar n int\n\nfunc main() {\n\tn++\n\tif n < 3 {\n\t\tmain()\n\t}\n\tf := main\n\tfmt.Printf(\"%d %T\\n\", n, f)\n}\n"
	if err := s.RunSource(context.Background(), "again.go", src, false); err != nil {
		t.Fatal(err)
	}
	if want := "3 func()\n3 func()\n3 func()\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

func TestResetAndScript(t *testing.T) {
	s, out, _ := newTestSession(t)
	for _, in := range []string{"a := 1", "undefinedName", "b := a + 1"} {
		s.Eval(context.Background(), in)
	}
	script := s.Script()
	for _, want := range []string{"// %% in[1]\na := 1\n", "// %% in[3]\nb := a + 1\n"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "undefinedName") {
		t.Errorf("script has the failed input:\n%s", script)
	}
	vars := s.Vars().String()
	for _, want := range []string{"sc", "ctx", "│ a ", "│ b ", "int"} {
		if !strings.Contains(vars, want) {
			t.Errorf(":vars lacks %q:\n%s", want, vars)
		}
	}
	// The session's structs show their unexported fields by their names.
	if err := s.Eval(context.Background(), "type point struct{ x, Y int; tag string }\np := &point{1, 2, \"t\"}"); err != nil {
		t.Fatal(err)
	}
	if vars := s.Vars().String(); !strings.Contains(vars, "&{x:1 Y:2 tag:t}") {
		t.Errorf(":vars shows p otherwise than as &{x:1 Y:2 tag:t}:\n%s", vars)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := s.Eval(context.Background(), "a"); err == nil {
		t.Error("a is still defined after Reset")
	}
	out.Reset()
	// The saved script runs in a fresh session.
	if err := s.RunSource(context.Background(), "saved.go", script, true); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	s.Eval(context.Background(), "b")
	if out.String() != "2 (int)\n" {
		t.Errorf("after running the saved script, b printed %q", out.String())
	}
}

func TestSuggestions(t *testing.T) {
	s, _, _ := newTestSession(t)
	s.Eval(context.Background(), "answer := 42")
	tests := []struct{ in, want string }{
		{"fmt.Prinln(1)", `in[2]:1:5: undefined: fmt.Prinln; did you mean fmt.Println?`},
		{"ndarray.Zero(2)", "did you mean ndarray.Zeros?"},
		{"anwser + 1", "undefined: anwser; did you mean answer?"},
		{"xyzzy", "undefined: xyzzy"},
		// the interpreter crashes on packages that were not imported
		{"var p *caffepb.NetParameter", `undefined: caffepb; add import "github.com/sparknet-go/sparknet/caffe/caffepb"`},
		{"f := func(r *csv.Reader) {}", `undefined: csv; add import "encoding/csv"`},
		// the interpreter leaves out callees that are method values
		{"var a *ndarray.Array; a.Sum()", "in[8]:1:29: not enough arguments in call to a.Sum\n\thave ()\n\twant (int)"},
		{"r, err := sc.Parallelize(nil, 0)", "assignment mismatch: 2 variables but sc.Parallelize returns 1 value"},
		// Of packages of one name, one that has the member.
		{"n := rand.Intn(10)", `undefined: rand; add import "math/rand"`},
		{"n := rand.IntN(10)", `undefined: rand; add import "math/rand/v2"`},
		{"d := rand.N(10)", `undefined: rand; add import "math/rand/v2"`},
		{"t := template.New(\"x\")", `undefined: template; add import "text/template"`},
	}
	for _, tc := range tests {
		err := s.Eval(context.Background(), tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
		if tc.in == "xyzzy" && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%s: suggests %v", tc.in, err)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"Prinln", "Println", 1}, {"kitten", "sitting", 3}, {"a", "", 1}}
	for _, tc := range tests {
		if got := distance(tc.a, tc.b); got != tc.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

// A script with a package clause and no main is refused, as the go
// command refuses to build it; :load (Load) still runs such a file.
func TestPackageMainFileWithoutMain(t *testing.T) {
	s, out, _ := newTestSession(t)
	path := filepath.Join(t.TempDir(), "lib.go")
	src := "package main\n\nimport \"fmt\"\n\nfunc helper() { fmt.Println(\"helper ran\") }\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	err := s.RunFile(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "lib.go: function main is undeclared in the main package") {
		t.Fatalf("RunFile: %v, want function main is undeclared", err)
	}
	if err := s.Load(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if err := s.Eval(context.Background(), "helper()"); err != nil {
		t.Fatal(err)
	}
	if want := "helper ran\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// A script without a package clause that declares func main and never
// calls it gets a note saying why main did not run.
func TestScriptMainWithoutPackageNote(t *testing.T) {
	s, out, errb := newTestSession(t)
	path := filepath.Join(t.TempDir(), "prog.go")
	if err := os.WriteFile(path, []byte("import \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.RunFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || !strings.Contains(errb.String(), "has no package clause, so its lines run as top-level statements, and its func main runs only where called") {
		t.Errorf("printed %q, stderr %q", out.String(), errb.String())
	}
}
