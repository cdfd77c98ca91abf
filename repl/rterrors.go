package repl

import (
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"strings"
)

// Run-time panics of interpreted code come from reflection (an index out
// of range, a nil pointer) or from the interpreter (a failed type
// assertion), with their words and a source position. Go's are
// runtime.Errors with the runtime's words; the shell gives recover and
// its reports the Go words: exactly, where a rewritten input checks
// first (an index outside loops), and otherwise without the numbers that
// reflection does not tell.

// goRuntimeError is a run-time panic as Go's runtime words it.
type goRuntimeError struct{ msg string }

func (e goRuntimeError) Error() string { return "runtime error: " + e.msg }

// RuntimeError marks it as a runtime.Error.
func (goRuntimeError) RuntimeError() {}

// goType is the name of the type of Go's runtime panic (%T): a bounds
// error for an index or slice out of range, the runtime's error string
// for the others.
func (e goRuntimeError) goType() string {
	if strings.HasPrefix(e.msg, "index out of range") || strings.HasPrefix(e.msg, "slice bounds out of range") {
		return "runtime.boundsError"
	}
	return "runtime.errorString"
}

func (assertionError) goType() string    { return "*runtime.TypeAssertionError" }
func (plainRuntimeError) goType() string { return "runtime.plainError" }
func (nilDereference) goType() string    { return "runtime.errorString" }

// assertionError is a failed type assertion, as Go's
// *runtime.TypeAssertionError words it.
type assertionError struct{ msg string }

func (e assertionError) Error() string { return e.msg }

// RuntimeError marks it as a runtime.Error.
func (assertionError) RuntimeError() {}

// checkIndex is the runtime's Index: it returns i if it indexes a
// sequence of length n, and panics as Go does otherwise.
func checkIndex(i, n int) int {
	if uint(i) >= uint(n) {
		if i < 0 {
			panic(goRuntimeError{fmt.Sprintf("index out of range [%d]", i)})
		}
		panic(goRuntimeError{fmt.Sprintf("index out of range [%d] with length %d", i, n)})
	}
	return i
}

// checkBounds is the runtime's Bounds: it returns lo if a[lo:hi] is
// within a, of capacity c (what names c: "capacity", or
// "length" for a string or an array), and panics as Go does otherwise:
// hi against c first, then lo against hi, a negative bound named alone.
// A slice expression without hi passes a's length.
func checkBounds(lo, hi, c int, what string) int {
	switch {
	case hi < 0:
		panic(goRuntimeError{fmt.Sprintf("slice bounds out of range [:%d]", hi)})
	case hi > c:
		panic(goRuntimeError{fmt.Sprintf("slice bounds out of range [:%d] with %s %d", hi, what, c)})
	case lo < 0:
		panic(goRuntimeError{fmt.Sprintf("slice bounds out of range [%d:]", lo)})
	case lo > hi:
		panic(goRuntimeError{fmt.Sprintf("slice bounds out of range [%d:%d]", lo, hi)})
	}
	return lo
}

// checkShift is the runtime's check of a signed shift count: it returns
// n, and panics as Go does if n is negative (the interpreter shifts by
// the count taken as unsigned: 1 << -1 gave 0).
func checkShift(n int64) int64 {
	if n < 0 {
		panic(goRuntimeError{"negative shift amount"})
	}
	return n
}

var (
	// positioned matches the position the interpreter puts before its
	// own panics' messages.
	positioned = regexp.MustCompile(`^\S+:\d+:\d+: `)
	// reflectPanics maps reflection's panics on interpreted code to the
	// runtime's words.
	reflectPanics = map[string]string{
		"reflect: slice index out of range":               "index out of range",
		"reflect: array index out of range":               "index out of range",
		"reflect: string index out of range":              "index out of range",
		"reflect.Value.Slice: slice index out of bounds":  "slice bounds out of range",
		"reflect.Value.Slice3: slice index out of bounds": "slice bounds out of range",
		"reflect.MakeSlice: negative len":                 "makeslice: len out of range",
		"reflect.MakeSlice: negative cap":                 "makeslice: cap out of range",
		"reflect.MakeSlice: len > cap":                    "makeslice: cap out of range",
	}
	// sliceToArray matches reflection's panic on a conversion of a
	// slice to a longer array (or a pointer to one).
	sliceToArray = regexp.MustCompile(`^reflect: cannot convert slice with length (\d+) to (?:pointer to )?array with length (\d+)$`)
	// plainReflectPanics are those that Go's runtime words without
	// "runtime error: ".
	plainReflectPanics = map[string]string{
		"reflect.MakeChan: negative buffer size": "makechan: size out of range",
	}
)

// plainRuntimeError is a run-time panic whose message Go's runtime does
// not start with "runtime error: " (makechan's).
type plainRuntimeError struct{ msg string }

func (e plainRuntimeError) Error() string { return e.msg }

// RuntimeError marks it as a runtime.Error.
func (plainRuntimeError) RuntimeError() {}

// goPanicValue returns the panic value v as Go would have it: the
// runtime's error for a panic of reflection or of the interpreter on
// interpreted code, v itself otherwise.
func goPanicValue(v any) any {
	var msg string
	switch x := v.(type) {
	case string:
		msg = x
	case *reflect.ValueError:
		if x.Kind == reflect.Invalid {
			return nilDereference{} // a method of a nil pointer's zero Value
		}
		msg = x.Error()
	case error:
		t := reflect.TypeOf(x).String()
		if !strings.HasPrefix(t, "*interp.") {
			return v
		}
		msg = positioned.ReplaceAllString(x.Error(), "")
		if strings.HasPrefix(msg, "interface conversion: ") {
			return assertionError{msg}
		}
	default:
		return v
	}
	if words, ok := reflectPanics[msg]; ok {
		return goRuntimeError{words}
	}
	if msg == "reflect.Value.Call: call of nil function" {
		return nilDereference{} // Go calls a nil func value as a nil pointer
	}
	if msg == "reflect: Call using zero Value argument" {
		return nilDereference{} // *p of a nil p passed on (a method value's copy)
	}
	if msg == "reflect: Method on nil interface value" {
		return nilDereference{} // a method of a nil compiled interface (var err error; err.Error())
	}
	if m := sliceToArray.FindStringSubmatch(msg); m != nil {
		return goRuntimeError{fmt.Sprintf("cannot convert slice with length %s to array or pointer to array with length %s", m[1], m[2])}
	}
	if words, ok := plainReflectPanics[msg]; ok {
		return plainRuntimeError{words}
	}
	return v
}

// panicPosition returns the position that starts the message of an
// interpreter's panic, or "".
func panicPosition(v any) string {
	err, ok := v.(error)
	if !ok || !strings.HasPrefix(reflect.TypeOf(err).String(), "*interp.") {
		return ""
	}
	return strings.TrimSuffix(positioned.FindString(err.Error()), ": ")
}

// panicArg is the runtime's PanicArg, the argument a panic of an
// interface value passes on: Go's *runtime.PanicNilError for nil (since
// Go 1.21 recover never returns nil for a panic), v otherwise.
func panicArg(v any) any {
	if v == nil {
		return new(runtime.PanicNilError)
	}
	return v
}

// assertFail is the runtime's AssertFail: the error of a failed
// assertion x.(I) of one value, I an interface type (named target), as
// Go's runtime words it. v is x's value (with the name of its type, if
// the session declared it), missing pairs the names of the session's
// types with the method of I each lacks, methods I's method names in
// order.
func assertFail(v any, target string, missing, methods []string) error {
	if v == nil {
		return assertionError{"interface conversion: interface is nil, not " + target}
	}
	name := nameOf(v)
	miss := ""
	for i := 0; i+1 < len(missing); i += 2 {
		if missing[i] == name {
			miss = missing[i+1]
		}
	}
	if miss == "" {
		t := reflect.TypeOf(interpValue(valueOf(v)))
		for _, m := range methods {
			if _, ok := t.MethodByName(m); !ok {
				miss = m
				break
			}
		}
	}
	if miss == "" {
		return assertionError{"interface conversion: " + name + " is not " + target}
	}
	return assertionError{"interface conversion: " + name + " is not " + target + ": missing method " + miss}
}

// assertTypeFail is the runtime's AssertTypeFail: the error of a failed
// assertion x.(T) of one value, T a concrete type (named target), x of
// the interface type named iface, as Go's runtime words it; v is x's
// value, with the name of its type if the session declared it.
func assertTypeFail(v any, iface, target string) error {
	if v == nil {
		return assertionError{"interface conversion: " + iface + " is nil, not " + target}
	}
	return assertionError{"interface conversion: " + iface + " is " + nameOf(v) + ", not " + target}
}
