package repl

import (
	"context"
	"testing"
)

// TestBuiltinPrint checks that print and println write to standard
// error, not standard output, in the builtins' formats.
func TestBuiltinPrint(t *testing.T) {
	s, out, errOut := newTestSession(t)
	in := "type Level int\nvar p *int\nvar err error\n" +
		"println(\"hi\", 1, -7, true, 1.5, float32(0.1), 1e100, 123456789.0, Level(3), 3+4i, complex64(1-2i), 'a', uint8(200))\n" +
		"println(p, err, 0.00001234, math.Copysign(0, -1), math.Inf(-1))\n" +
		"print(\"a\", \"b\", 1, \"\\n\")\nfmt.Println(\"out\")"
	if err := s.Eval(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "out\n"; got != want {
		t.Errorf("standard output %q, want %q", got, want)
	}
	want := "hi 1 -7 true 1.5 0.1 1e+100 1.23456789e+08 3 (3+4i) (1-2i) 97 200\n0x0 (0x0,0x0) 1.234e-05 -0 -Inf\nab1\n"
	if got := errOut.String(); got != want {
		t.Errorf("standard error %q, want %q", got, want)
	}
}
