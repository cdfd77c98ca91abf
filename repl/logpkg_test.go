package repl

import (
	"bytes"
	"log"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"
)

// logLine writes the header as a log.Logger writes it, for every
// combination of the date, time, UTC and message-prefix flags with a
// file position.
func TestLogLine(t *testing.T) {
	digits := regexp.MustCompile(`[0-9]+`)
	_, file, _, _ := runtime.Caller(0)
	for _, pos := range []int{log.Lshortfile, log.Llongfile} {
		for bits := 0; bits < 32; bits++ {
			flags := pos
			for i, f := range []int{log.Ldate, log.Ltime, log.Lmicroseconds, log.LUTC, log.Lmsgprefix} {
				if bits&(1<<i) != 0 {
					flags |= f
				}
			}
			for _, msg := range []string{"hello", "line\n", ""} {
				var buf bytes.Buffer
				l := log.New(&buf, "[p] ", flags)
				l.Print(msg)
				want := buf.String()
				at := file + ":1" // the line's digits are masked
				if pos == log.Lshortfile {
					at = filepath.Base(file) + ":1"
				}
				got := string(logLine(time.Now(), flags, "[p] ", at, msg))
				if digits.ReplaceAllString(got, "#") != digits.ReplaceAllString(want, "#") {
					t.Errorf("flags %b, message %q: logLine wrote %q, log %q", flags, msg, got, want)
				}
			}
		}
	}
}

// At the prompt, Lshortfile names the input and its line; a Logger's
// messages format the session's types as fmt does.
func TestLogPositions(t *testing.T) {
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "import (\n\t\"log\"\n\t\"strings\"\n)"},
		{in: "var lb strings.Builder\nlog.SetOutput(&lb)\nlog.SetFlags(log.Lshortfile)"},
		{in: "type Temp float64\nfunc (t Temp) String() string { return fmt.Sprintf(\"%.1f°C\", float64(t)) }"},
		{in: "func warn(t Temp) {\n\tlog.Printf(\"warn: %v %T\", t, t)\n}"},
		{in: "log.Println(\"at the prompt\")\nwarn(3)\nfmt.Print(lb.String())", out: "in[5]:1: at the prompt\nin[4]:2: warn: 3.0°C main.Temp\n"},
	})
}
