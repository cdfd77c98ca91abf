package repl

import (
	"fmt"
	"go/ast"
	"reflect"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
	"github.com/sparknet-go/sparknet/repl/display"
)

// How results are echoed:
//
//   - An input that ends in an expression prints the expression's value
//     and its type, "42 (int)"; strings are quoted. Declarations and
//     assignments print nothing.
//   - A call prints each of its results on a line; nil error results are
//     left out, so a call that only returns a nil error prints nothing,
//     and a non-nil final error is printed alone, "error: ...".
//   - Strings are quoted, unless they span several lines.
//   - Calls of fmt.Print*, fmt.Fprint*, print and println print nothing
//     more than their own output.
//   - Arrays print numpy-style under a header with their shape; weight
//     collections, nets and tables print as tables; figures and training
//     histories as sparklines (and as images in a notebook report).

// maxEcho is the most characters of a plain value that are echoed.
const maxEcho = 4000

// echo displays the results of an input's final expression.
//
// A value may come with the name of its type (see typed), which the
// interpreter's value of a type of the session does not carry.
func (s *Session) echo(vals []any, isCall bool) {
	if isCall {
		if n := len(vals); n > 1 {
			if err, ok := valueOf(vals[n-1]).(error); ok && err != nil {
				// (zero values, err): the error is the result.
				fmt.Fprintln(s.stdout, "error: "+formatNamed(err, nameOf(vals[n-1])))
				return
			}
		}
		kept := vals[:0:0]
		for _, v := range vals {
			if valueOf(v) != nil {
				kept = append(kept, v)
			}
		}
		vals = kept
	}
	for _, v := range vals {
		if p, ok := v.(rdd.Pair); ok {
			if tab := s.laters.Load(); tab != nil {
				if w, ok := tab.pair(p); ok {
					v = w // its key and value by their converters
				}
			}
		}
		if t, ok := v.(*typed); ok {
			if !s.quiet && s.opts.Result != nil && s.opts.Result(namedValue{t.v, t.name}) {
				continue
			}
			s.showNamed(t.v, t.name)
			continue
		}
		if !s.quiet && s.opts.Result != nil && s.opts.Result(v) {
			continue
		}
		s.show(v)
	}
}

// showNamed displays v, whose type is named name, as show does.
func (s *Session) showNamed(v any, name string) {
	if s.quiet {
		return
	}
	if s.opts.Show != nil && s.opts.Show(v) {
		return
	}
	fmt.Fprintln(s.stdout, formatNamed(v, name))
}

// show displays one value: through Options.Show when it takes it, else as
// text on the session's output.
func (s *Session) show(v any) {
	if s.quiet {
		return
	}
	if s.opts.Show != nil && s.opts.Show(v) {
		return
	}
	fmt.Fprintln(s.stdout, Format(v))
}

// Format returns the text the shell echoes for v: a table, figure or
// array as itself, anything else as its value and type, "42 (int)".
func Format(v any) string { return formatNamed(v, "") }

// formatNamed is Format for a value whose type is named name ("":
// reflection's name).
func formatNamed(v any, name string) string {
	text, rich := formatValue(v)
	if name == "" {
		name = TypeName(v)
	}
	switch {
	case rich || v == nil:
		return text
	case strings.HasSuffix(text, "\n"): // text of several lines
		return text + "(" + name + ")"
	}
	return text + " (" + name + ")"
}

// formatValue returns v's text without its type, and whether it is a
// rich form (a table, a figure, an array) that names its type itself.
func formatValue(v any) (text string, rich bool) {
	if v == nil {
		return "<nil>", false
	}
	if t := display.AsTable(v); t != nil {
		return strings.TrimRight(t.String(), "\n"), true
	}
	if f := display.AsFigure(v); f != nil {
		return strings.TrimRight(f.String(), "\n"), true
	}
	if a, ok := v.(*ndarray.Array); ok && a != nil {
		return a.String(), true
	}
	switch x := v.(type) {
	case string:
		text = strconv.Quote(x)
		if strings.Contains(x, "\n") {
			return x + "\n", false // text of several lines, as it is
		}
	case error:
		text = errorText(x)
	default:
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Struct || (rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct) {
			if _, ok := v.(fmt.Stringer); !ok {
				text = fieldNames(fmt.Sprintf("%+v", v), rv.Type())
				break
			}
		}
		text = fmt.Sprint(v)
	}
	if len(text) > maxEcho {
		text = text[:maxEcho] + fmt.Sprintf("… (%d more characters)", len(text)-maxEcho)
	}
	return text, false
}

// errorText is err's Error(), or, where that panics on a nil pointer
// receiver, "<nil>", as fmt prints it.
func errorText(err error) (text string) {
	defer func() {
		if r := recover(); r != nil {
			if v := reflect.ValueOf(err); v.Kind() == reflect.Pointer && v.IsNil() {
				text = "<nil>"
				return
			}
			text = fmt.Sprintf("%%!v(PANIC=Error method: %v)", r)
		}
	}()
	return err.Error()
}

// TypeName names v's type as Go source would.
func TypeName(v any) string {
	v = interpValue(v)
	switch t := v.(type) {
	case nil:
		return "nil"
	case *inputContext:
		return "context.Context"
	case interface{ goType() string }:
		return t.goType() // the shell's runtime panics: Go's types
	}
	return reflect.TypeOf(v).String()
}

// isPrintCall reports whether e calls a function whose output is the
// point (fmt.Print*, fmt.Fprint*, print, println, log.Print*): its
// results are not echoed.
func isPrintCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name == "print" || fn.Name == "println"
	case *ast.SelectorExpr:
		pkg, ok := fn.X.(*ast.Ident)
		if !ok {
			return false
		}
		name := fn.Sel.Name
		switch pkg.Name {
		case "fmt":
			return strings.HasPrefix(name, "Print") || strings.HasPrefix(name, "Fprint")
		case "log":
			return strings.HasPrefix(name, "Print")
		case "display":
			return name == "Show"
		}
	}
	return false
}
