package repl

import (
	"fmt"
	"io"
	"log"
	"reflect"

	"github.com/traefik/yaegi/interp"
)

// The log package's standard logger, for the interpreter. The
// interpreter's own makes log.Fatal panic (so that a script's deferred
// calls ran, and the shell reported a panic), and leaves log.Default the
// process's logger. The session's logger writes to the session's
// standard error, its Fatal functions end the script as Go's end a
// program (the message, then status 1, no deferred call run), and
// log.Default is that logger.

// logSymbols returns the log package's functions bound to the session's
// logger, made afresh with the interpreter.
func (s *Session) logSymbols() map[string]reflect.Value {
	s.logger = log.New(s.stderr, "", log.LstdFlags)
	l := func() *log.Logger { return s.logger }
	fatal := func(msg string) {
		l().Output(3, msg)
		s.osExit(1)
	}
	panics := func(msg string) {
		l().Output(3, msg)
		panic(msg)
	}
	syms := map[string]reflect.Value{}
	for n, f := range map[string]any{
		"Default":   l,
		"Print":     func(v ...any) { l().Output(2, fmt.Sprint(v...)) },
		"Printf":    func(format string, v ...any) { l().Output(2, fmt.Sprintf(format, v...)) },
		"Println":   func(v ...any) { l().Output(2, fmt.Sprintln(v...)) },
		"Fatal":     func(v ...any) { fatal(fmt.Sprint(v...)) },
		"Fatalf":    func(format string, v ...any) { fatal(fmt.Sprintf(format, v...)) },
		"Fatalln":   func(v ...any) { fatal(fmt.Sprintln(v...)) },
		"Panic":     func(v ...any) { panics(fmt.Sprint(v...)) },
		"Panicf":    func(format string, v ...any) { panics(fmt.Sprintf(format, v...)) },
		"Panicln":   func(v ...any) { panics(fmt.Sprintln(v...)) },
		"Flags":     func() int { return l().Flags() },
		"SetFlags":  func(flag int) { l().SetFlags(flag) },
		"Prefix":    func() string { return l().Prefix() },
		"SetPrefix": func(prefix string) { l().SetPrefix(prefix) },
		"Writer":    func() io.Writer { return l().Writer() },
		"SetOutput": func(w io.Writer) { l().SetOutput(w) },
		"Output":    func(calldepth int, s string) error { return l().Output(calldepth+1, s) },
	} {
		syms[n] = reflect.ValueOf(f)
	}
	return syms
}

// useLog puts the session's log functions back into the interpreter
// after it loaded the standard library, which sets its own.
func (s *Session) useLog(in *interp.Interpreter, syms map[string]reflect.Value) error {
	return in.Use(interp.Exports{"log/log": syms})
}
