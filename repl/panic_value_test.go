package repl

import (
	"bytes"
	"strings"
	"testing"
)

// A nil pointer dereference in interpreted code reads as it does in Go,
// not as the interpreter's reflect panic, and the session goes on.
func TestNilDereferenceMessage(t *testing.T) {
	in := "var p *int\n*p = 3\ntype T struct{ A int }\nvar v *T\nv.A\nx := *p\n\"alive\"\n"
	var out, errb bytes.Buffer
	Main(nil, strings.NewReader(in), &out, &errb)
	const want = "panic: runtime error: invalid memory address or nil pointer dereference"
	if n := strings.Count(errb.String(), want); n != 3 {
		t.Errorf("stderr has %d nil dereference messages, want 3:\n%s", n, errb.String())
	}
	if strings.Contains(errb.String(), "reflect") {
		t.Errorf("stderr mentions reflect:\n%s", errb.String())
	}
	if !strings.Contains(out.String(), `"alive"`) {
		t.Errorf("the session did not go on:\n%s", out.String())
	}
}

// A panic with a value of a declared type with a basic underlying type
// is reported with the type's name, as Go reports it; recover returns
// the value.
func TestPanicNamedBasicValue(t *testing.T) {
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "type Code int\ntype Name string\nfunc fail(c Code) { panic(c) }"},
		{in: "fail(7)", err: "panic: main.Code(7)"},
		{in: "panic(Name(\"x\"))", err: "panic: main.Name(\"x\")"},
		{in: "func try() (c Code) { defer func() { c = recover().(Code) + 1 }(); fail(41); return }\ntry()", out: "42 (main.Code)\n"},
	})
}
