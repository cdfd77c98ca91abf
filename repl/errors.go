package repl

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// ErrInterrupted reports an input stopped by Ctrl-C (its context was
// canceled).
var ErrInterrupted = errors.New("interrupted")

// PanicError reports a panic in interpreted code, or in compiled code it
// called, recovered by the shell.
type PanicError struct {
	// Value is the value passed to panic.
	Value any
	// Trace lists the interpreted functions the panic unwound, innermost
	// first: "in f at file:line:col" (where f is declared), "in func
	// literal at ..." (a position in its body), and "at file:line:col",
	// the top-level statement that was running.
	Trace []string
	// Goroutine is set when the panic happened in a goroutine started by
	// a go statement.
	Goroutine bool
	// msg, if not empty, is the panic value's text with its positions
	// rewritten to the inputs they refer to.
	msg string
	// typeName names Value's type where the interpreter's value lost
	// it (a declared type with a basic underlying type: main.Code).
	typeName string
}

// panicNamed is a panic's value of a declared type with a basic
// underlying type and its type's name, as the rewritten panic(x) passes
// it (_sn.NamedPanic): the interpreter's value of the type is the
// underlying type's, and Go's report names the type (panic:
// main.Code(7)). recover returns the value alone.
type panicNamed struct {
	v    any
	name string
}

// newPanicError is the *PanicError of a panic with value v (of
// namedPanic's making).
func newPanicError(v any, trace []string, goroutine bool) *PanicError {
	pe := &PanicError{Value: v, Trace: trace, Goroutine: goroutine}
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		if pn, ok := rv.Interface().(panicNamed); ok {
			v = pn
		}
	}
	if pn, ok := v.(panicNamed); ok {
		pe.Value, pe.typeName = pn.v, pn.name
	}
	return pe
}

func (e *PanicError) Error() string {
	var b strings.Builder
	b.WriteString("panic: ")
	switch {
	case e.msg != "":
		b.WriteString(e.msg)
	case e.typeName != "":
		if s, ok := e.Value.(string); ok {
			fmt.Fprintf(&b, "%s(%q)", e.typeName, s)
		} else {
			fmt.Fprintf(&b, "%s(%v)", e.typeName, e.Value)
		}
	default:
		fmt.Fprint(&b, e.Value)
	}
	for _, t := range e.Trace {
		b.WriteString("\n\t" + t)
	}
	if e.Goroutine {
		// Where Go's trace names the goroutine ("goroutine 6
		// [running]:"), the bottom of the unwound calls.
		b.WriteString("\n\tin a goroutine started by a go statement")
	}
	return b.String()
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// nilDereference is the panic value shown for a nil pointer dereference in
// interpreted code, where the interpreter panics with a reflect.ValueError
// (a method called on the zero reflect.Value) instead of the runtime error
// compiled Go gives.
type nilDereference struct{ _ byte }

func (nilDereference) Error() string {
	return "runtime error: invalid memory address or nil pointer dereference"
}

// RuntimeError marks it as a runtime.Error, as Go's own is.
func (nilDereference) RuntimeError() {}

// ExitError reports a call of os.Exit in interpreted code.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// errReturned ends an input whose top-level statements ran a return
// statement: the rest of the input does not run, and a script ends
// there, as a Go program ends when main returns. It is not reported.
var errReturned = errors.New("return at the top level")

// exitRequest is the panic value of the shell's os.Exit.
type exitRequest struct{ code int }

// InterpreterError reports a failure of the interpreter itself on an
// input (a crash the shell caught), with advice when the cause is known.
type InterpreterError struct {
	Msg  string // what failed
	Hint string // what to do instead, or ""
}

func (e *InterpreterError) Error() string {
	s := "the interpreter failed on this input: " + e.Msg
	if e.Hint != "" {
		s += "\n" + e.Hint
	}
	return s
}

// panicLine matches the lines the interpreter writes to its standard
// error as a panic unwinds interpreted frames: "pos: panic: func(...)".
var panicLine = regexp.MustCompile(`^(.*:\d+:\d+): panic: (.*)\(\.\.\.\)$`)
