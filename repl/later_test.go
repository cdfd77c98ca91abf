package repl

import (
	"context"
	"testing"
)

// TestLaterTypes checks that a function typed before a type prints its
// values as Go does: by the type's String, declared in later inputs,
// and after a :reset by the types declared then.
func TestLaterTypes(t *testing.T) {
	s, out, _ := newTestSession(t)
	steps := []evalStep{
		{in: "func show(v any) { fmt.Println(v) }\nlogf := func(format string, args ...any) { fmt.Printf(format, args...) }"},
		{in: "type P struct{ X int }"},
		{in: "show(P{1})", out: "{1}\n"},
		// A method typed later: its type's values now print by it.
		{in: "func (p P) String() string { return fmt.Sprintf(\"P(%d)\", p.X) }"},
		{in: "show(P{1}); show(&P{2})", out: "P(1)\nP(2)\n"},
		// A declared slice type with String ended in a nil dereference.
		{in: "type Names []string\nfunc (n Names) String() string { return \"names:\" + strings.Join(n, \",\") }"},
		{in: "show(Names{\"a\", \"b\"})", out: "names:a,b\n"},
		{in: "type Level int\nfunc (l Level) String() string { return [...]string{\"DEBUG\", \"INFO\"}[l] }"},
		{in: "type Seg struct{ A, B P; L Level }"},
		{in: "logf(\"%v %+v %s\\n\", Seg{P{1}, P{2}, 1}, P{3}, Level(0))", out: "{P(1) P(2) INFO} P(3) DEBUG\n"},
		// The elements of an []any.
		{in: "show([]any{P{4}, Level(1), 5, nil})", out: "[P(4) INFO 5 <nil>]\n"},
		{in: "show(map[string]any{\"b\": Level(0), \"a\": &P{5}, \"c\": 6})", out: "map[a:P(5) b:DEBUG c:6]\n"},
		{in: "show(7); show(\"x\")", out: "7\nx\n"},
		// A function whose parameter has the type, typed before the
		// type's String; a non-struct type's too.
		{in: "type W struct{ N int }\nfunc showW(w W, p *W) { fmt.Println(w, p) }\ntype Lv int\nfunc showL(l Lv) { fmt.Printf(\"%v %s\\n\", l, l) }"},
		{in: "func (w W) String() string { return fmt.Sprint(\"W\", w.N) }\nfunc (l Lv) String() string { return \"LV\" }"},
		{in: "showW(W{1}, &W{2}); showL(3)", out: "W1 W2\nLV LV\n"},
		// A type switch typed before the methods that make a type an
		// error or a Stringer (a pointer receiver's ended in a nil
		// dereference).
		{in: "func kind(v any) string { switch x := v.(type) { case error: return \"error \" + x.Error(); case fmt.Stringer: return \"stringer \" + x.String() }; return \"plain\" }"},
		{in: "type PE struct{ Line int }\nfunc (e *PE) Error() string { return fmt.Sprint(\"line \", e.Line) }"},
		{in: "fmt.Println(kind(&PE{3}), kind(PE{4}), kind(W{5}), kind(5))", out: "error line 3 plain stringer W5 plain\n"},
		// errors.As, Is and Unwrap typed before the error type's
		// methods (errors.As panicked: "*target must be interface or
		// implement error").
		{in: "var ErrRetry = errors.New(\"retry\")\ntype HTTPError struct{ Code int; Err error }\nfunc classify(err error) string { var he *HTTPError; switch { case errors.Is(err, ErrRetry): return \"retry\"; case errors.As(err, &he): return fmt.Sprint(\"http \", he.Code) }; return \"other\" }"},
		{in: "func (e *HTTPError) Error() string { return fmt.Sprint(\"http \", e.Code) }\nfunc (e *HTTPError) Unwrap() error { return e.Err }"},
		{in: "fmt.Println(classify(&HTTPError{404, nil}), classify(fmt.Errorf(\"get: %w\", &HTTPError{503, ErrRetry})), classify(errors.New(\"x\")))", out: "http 404 retry other\n"},
		// A run-time panic that names a struct type names it as Go does.
		{in: "type Row struct{ N int; Tags []string }\nfunc eq(a, b any) (same bool) { defer func() { if r := recover(); r != nil { fmt.Println(r) } }(); return a == b }"},
		{in: "fmt.Println(eq(Row{}, Row{}))", out: "runtime error: comparing uncomparable type main.Row\nfalse\n"},
	}
	evalSteps(t, s, out, steps)
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"func show(v any) { fmt.Println(v) }", "type P struct{ X int }"} {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatalf("%q after the reset: %v", in, err)
		}
	}
	out.Reset()
	if err := s.Eval(context.Background(), "show(P{1})"); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "{1}\n"; got != want {
		t.Errorf("after the reset: printed %q, want %q (the type before it had String)", got, want)
	}
}

// A function typed before the types that implement one of the
// session's interfaces asserts their values to it (it asserted false,
// or panicked for a declared non-struct type).
func TestLaterSessionInterfaces(t *testing.T) {
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "type Shape interface{ Area() float64 }"},
		{in: "func areaOf(v any) float64 { if s, ok := v.(Shape); ok { return s.Area() }; return -1 }"},
		{in: "func kind(v any) string { switch x := v.(type) { case Shape: return fmt.Sprint(\"shape \", x.Area()); default: return \"other\" } }"},
		{in: "type Rect struct{ W, H float64 }\nfunc (r Rect) Area() float64 { return r.W * r.H }"},
		{in: "type Sq float64\nfunc (s Sq) Area() float64 { return float64(s * s) }"},
		{in: "fmt.Println(areaOf(Rect{2, 3}), areaOf(&Rect{1, 3}), areaOf(Sq(3)), areaOf(5))", out: "6 3 9 -1\n"},
		{in: "fmt.Println(kind(Rect{1, 1}), kind(Sq(2)), kind(\"x\"))", out: "shape 1 shape 4 other\n"},
	})
}
