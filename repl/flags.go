package repl

import (
	"encoding"
	"flag"
	"fmt"
	"reflect"
	"time"

	"github.com/traefik/yaegi/interp"
)

// A script's command-line flags. The compiled flag package parses the
// process's own arguments (the shell's flags and the script's name) with
// a flag set of its own; a script sees in os.Args its name and the
// arguments after it (Options.Args). So the shell gives the interpreter a
// flag package of its own: the package's functions and variables
// (CommandLine, Usage) are those of a flag set of the session, made
// afresh with the interpreter, whose Parse parses os.Args[1:] as the
// script sees them, and which ends the script as Go's does on a bad flag
// (status 2, after the error and the usage) or on -h (status 0).

// newFlags makes the session's flag set for the arguments args (the
// program's name first).
func (s *Session) newFlags(args []string) {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(s.stderr)
	s.flagArgs = args[1:]
	s.flags = fs
	s.flagUsage = func() {
		fmt.Fprintf(s.flags.Output(), "Usage of %s:\n", s.flags.Name())
		s.flags.PrintDefaults()
	}
	fs.Usage = func() { s.flagUsage() }
}

// flagParse is flag.Parse for the session's flag set.
func (s *Session) flagParse() {
	switch err := s.flags.Parse(s.flagArgs); {
	case err == flag.ErrHelp:
		s.osExit(0)
	case err != nil:
		s.osExit(2)
	}
}

// flagSymbols returns the symbols of the session's flag package: those
// of the compiled package (its types, ErrHelp, ContinueOnError…) with
// its functions and variables replaced by the session's.
func (s *Session) flagSymbols(std map[string]reflect.Value) map[string]reflect.Value {
	syms := map[string]reflect.Value{}
	for n, v := range std {
		syms[n] = v
	}
	for n, f := range map[string]any{
		"Parse":         s.flagParse,
		"Parsed":        func() bool { return s.flags.Parsed() },
		"Args":          func() []string { return s.flags.Args() },
		"Arg":           func(i int) string { return s.flags.Arg(i) },
		"NArg":          func() int { return s.flags.NArg() },
		"NFlag":         func() int { return s.flags.NFlag() },
		"Lookup":        func(name string) *flag.Flag { return s.flags.Lookup(name) },
		"Set":           func(name, value string) error { return s.flags.Set(name, value) },
		"Visit":         func(fn func(*flag.Flag)) { s.flags.Visit(fn) },
		"VisitAll":      func(fn func(*flag.Flag)) { s.flags.VisitAll(fn) },
		"PrintDefaults": func() { s.flags.PrintDefaults() },
		"Var":           func(v flag.Value, name, usage string) { s.flags.Var(v, name, usage) },
		"Func":          func(name, usage string, fn func(string) error) { s.flags.Func(name, usage, fn) },
		"BoolFunc":      func(name, usage string, fn func(string) error) { s.flags.BoolFunc(name, usage, fn) },
		"TextVar": func(p encoding.TextUnmarshaler, name string, value encoding.TextMarshaler, usage string) {
			s.flags.TextVar(p, name, value, usage)
		},
		"Bool":       func(name string, value bool, usage string) *bool { return s.flags.Bool(name, value, usage) },
		"BoolVar":    func(p *bool, name string, value bool, usage string) { s.flags.BoolVar(p, name, value, usage) },
		"Int":        func(name string, value int, usage string) *int { return s.flags.Int(name, value, usage) },
		"IntVar":     func(p *int, name string, value int, usage string) { s.flags.IntVar(p, name, value, usage) },
		"Int64":      func(name string, value int64, usage string) *int64 { return s.flags.Int64(name, value, usage) },
		"Int64Var":   func(p *int64, name string, value int64, usage string) { s.flags.Int64Var(p, name, value, usage) },
		"Uint":       func(name string, value uint, usage string) *uint { return s.flags.Uint(name, value, usage) },
		"UintVar":    func(p *uint, name string, value uint, usage string) { s.flags.UintVar(p, name, value, usage) },
		"Uint64":     func(name string, value uint64, usage string) *uint64 { return s.flags.Uint64(name, value, usage) },
		"Uint64Var":  func(p *uint64, name string, value uint64, usage string) { s.flags.Uint64Var(p, name, value, usage) },
		"String":     func(name, value, usage string) *string { return s.flags.String(name, value, usage) },
		"StringVar":  func(p *string, name, value, usage string) { s.flags.StringVar(p, name, value, usage) },
		"Float64":    func(name string, value float64, usage string) *float64 { return s.flags.Float64(name, value, usage) },
		"Float64Var": func(p *float64, name string, value float64, usage string) { s.flags.Float64Var(p, name, value, usage) },
		"Duration": func(name string, value time.Duration, usage string) *time.Duration {
			return s.flags.Duration(name, value, usage)
		},
		"DurationVar": func(p *time.Duration, name string, value time.Duration, usage string) {
			s.flags.DurationVar(p, name, value, usage)
		},
	} {
		if _, ok := std[n]; !ok {
			panic("repl: the flag package has no " + n) // a table of another Go version
		}
		syms[n] = reflect.ValueOf(f)
	}
	syms["CommandLine"] = reflect.ValueOf(&s.flags).Elem()
	syms["Usage"] = reflect.ValueOf(&s.flagUsage).Elem()
	return syms
}

// useFlagVars puts the session's CommandLine and Usage back into the
// interpreter after it loaded the standard library, which sets a
// CommandLine of its own.
func (s *Session) useFlagVars(in *interp.Interpreter) error {
	return in.Use(interp.Exports{"flag/flag": {
		"CommandLine": reflect.ValueOf(&s.flags).Elem(),
		"Usage":       reflect.ValueOf(&s.flagUsage).Elem(),
	}})
}
