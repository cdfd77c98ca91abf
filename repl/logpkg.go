package repl

import (
	"fmt"
	"io"
	"log"
	"reflect"
	"sync"
	"time"

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

// logWrites serializes the lines that logAt writes itself, as a
// Logger's lock serializes its own.
var logWrites sync.Mutex

// logAt writes msg as l's Output does, l nil meaning the session's
// logger, with the position of the call, short and long, where l's flags
// ask for one; then ends the script as Go's log.Fatal ends a program
// (kind "fatal") or panics with msg ("panic"). See logCalls.
func (s *Session) logAt(l *log.Logger, kind, short, long, msg string) {
	if l == nil {
		l = s.logger
	}
	flags := l.Flags()
	if flags&(log.Lshortfile|log.Llongfile) == 0 {
		l.Output(2, msg)
	} else {
		pos := long
		if flags&log.Lshortfile != 0 {
			pos = short
		}
		line := logLine(time.Now(), flags, l.Prefix(), pos, msg)
		logWrites.Lock()
		l.Writer().Write(line)
		logWrites.Unlock()
	}
	switch kind {
	case "fatal":
		s.osExit(1)
	case "panic":
		panic(msg)
	}
}

// logLine is a line as a log.Logger with these flags and prefix writes
// msg for a call at pos: the prefix (unless Lmsgprefix), the date and
// time, the position, the prefix (with Lmsgprefix), msg and a newline
// where msg has none.
func logLine(now time.Time, flags int, prefix, pos, msg string) []byte {
	var b []byte
	if flags&log.Lmsgprefix == 0 {
		b = append(b, prefix...)
	}
	if flags&(log.Ldate|log.Ltime|log.Lmicroseconds) != 0 {
		if flags&log.LUTC != 0 {
			now = now.UTC()
		}
		if flags&log.Ldate != 0 {
			b = now.AppendFormat(b, "2006/01/02 ")
		}
		if flags&(log.Ltime|log.Lmicroseconds) != 0 {
			if flags&log.Lmicroseconds != 0 {
				b = now.AppendFormat(b, "15:04:05.000000 ")
			} else {
				b = now.AppendFormat(b, "15:04:05 ")
			}
		}
	}
	b = append(b, pos...)
	b = append(b, ": "...)
	if flags&log.Lmsgprefix != 0 {
		b = append(b, prefix...)
	}
	b = append(b, msg...)
	if len(msg) == 0 || msg[len(msg)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}
