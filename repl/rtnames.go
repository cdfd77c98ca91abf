package repl

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// The runtime half of named types (see typename.go): rewritten inputs
// hand compiled code values with the names of their types (typed), and
// fmt's formatting functions go through shims that give %T those names
// and the other verbs the values.

// typed is a value with the name of its type as Go names it.
type typed struct {
	v      any // as the interpreter passes it: wrapped if it has methods fmt uses
	name   string
	raw    any // the value itself, if hasRaw
	hasRaw bool
}

// newTyped is the runtime's Typed. The interpreter wraps v, when its type
// has a method that fmt uses (Format, Error, String), in a value that has
// it: the session registers Typed with those interfaces (see symbols).
func newTyped(v any, name string) any { return &typed{v: v, name: name} }

// newTypedRaw is the runtime's TypedRaw: Typed with the value unwrapped
// too (passed through Raw, which the interpreter does not wrap), for the
// verbs that do not use the methods. v is raw as the interpreter wraps
// it, and for a struct it wraps the wrong value (see rewrapped): v gets
// raw again.
func newTypedRaw(v any, name string, raw any) any {
	if isWrapper(v) {
		v = rewrap(v, raw) // wrapped with the wrong value (see rewrapped)
	}
	return &typed{v: v, name: name, raw: raw, hasRaw: true}
}

// rawValue returns the value of a typed argument without the methods
// fmt uses.
func (t *typed) rawValue() any {
	if t.hasRaw {
		return t.raw
	}
	return interpValue(t.v)
}

// fmtInterfaces are the interfaces that the interpreter makes a value
// implement, when its type has their methods, as it passes it to Typed
// or to fmt's printing functions: in the order fmt prefers them.
var fmtInterfaces = []reflect.Type{
	reflect.TypeFor[fmt.Formatter](),
	reflect.TypeFor[error](),
	reflect.TypeFor[fmt.Stringer](),
}

// interpValue returns the value that an interpreter's wrapper (a struct
// whose first field IValue holds the value it wraps, and whose other
// fields are its methods) or its own interface value (see heldValue)
// stands for, or v.
func interpValue(v any) any {
	if h, ok := heldValue(v); ok {
		v = h
	}
	if !isWrapper(v) {
		return v
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	inner := rv.Field(0)
	if !inner.CanInterface() || inner.IsNil() {
		return v
	}
	return inner.Interface()
}

// heldValue returns the value that one of the interpreter's values of
// its interface types (a pair of the value held and the node of its
// type) holds, nil for a nil one, and false for any other v. Where such a
// value becomes a value of an empty interface without going through
// compiled code (an argument of an interpreted function, an element of a
// composite literal, a Shape assigned to an any), the empty interface
// holds the pair, which equals no other value.
func heldValue(v any) (any, bool) {
	held := false
	for {
		rv := reflect.ValueOf(v)
		if !rv.IsValid() {
			return v, held
		}
		t := rv.Type()
		if t.Kind() != reflect.Struct || t.Name() != "valueInterface" || !strings.HasSuffix(t.PkgPath(), "/yaegi/interp") ||
			t.NumField() != 2 || t.Field(1).Type != reflect.TypeFor[reflect.Value]() {
			return v, held
		}
		c := reflect.New(t).Elem()
		c.Set(rv)
		inner := *(*reflect.Value)(unsafe.Pointer(c.Field(1).UnsafeAddr()))
		if !inner.IsValid() {
			return nil, true
		}
		if !inner.CanInterface() {
			return v, held
		}
		v, held = inner.Interface(), true
	}
}

// rewrap returns w, an interpreter's wrapper that should wrap v but
// does not (see rewrapped), as a copy that does; any other w as it is.
func rewrap(w, v any) any {
	if !isWrapper(w) || v == nil {
		return w
	}
	rv := reflect.ValueOf(w)
	if rv.Kind() != reflect.Struct {
		return w
	}
	c := reflect.New(rv.Type()).Elem()
	c.Set(rv)
	c.Field(0).Set(reflect.ValueOf(v))
	return c.Interface()
}

// nilWrap returns a copy of w, an interpreter's wrapper of a non-nil
// pointer to a type of the program's as a compiled interface, that
// holds the nil pointer v of that type instead and calls its methods
// (methods, by name) for the interface's (see nilWrapper).
func nilWrap(w, v any, methods map[string]any) any {
	rv := reflect.ValueOf(w)
	if !isWrapper(w) || rv.Kind() != reflect.Struct {
		return w
	}
	c := reflect.New(rv.Type()).Elem()
	c.Set(rv)
	if pv := reflect.ValueOf(v); pv.IsValid() && pv.Type().AssignableTo(c.Field(0).Type()) {
		c.Field(0).Set(pv)
	}
	for name, m := range methods {
		f := c.FieldByName("W" + name)
		mv := reflect.ValueOf(m)
		if f.IsValid() && mv.IsValid() && mv.Type().AssignableTo(f.Type()) {
			// The method, its nil dereference Go's runtime error (the
			// interpreter's was reflect's "call of reflect.Value.Field
			// on zero Value").
			f.Set(reflect.MakeFunc(f.Type(), func(args []reflect.Value) []reflect.Value {
				defer func() {
					if r := recover(); r != nil {
						panic(goPanicValue(r))
					}
				}()
				return mv.Call(args)
			}))
		}
	}
	return c.Interface()
}

// nilWrapped reports whether v is a wrapper of nilWrap's making: one
// that holds a nil pointer.
func nilWrapped(v any) bool {
	if !isWrapper(v) {
		return false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	f := rv.Field(0)
	if f.Kind() == reflect.Interface {
		f = f.Elem()
	}
	return f.Kind() == reflect.Pointer && f.IsNil()
}

// nilOr returns v, an interpreter's wrapper, where w is a nil pointer,
// else w: the value of an interface that holds a nil pointer formats by
// the wrapper's methods (see nilWrap).
func nilOr(w, v any) any {
	if rw := reflect.ValueOf(w); rw.Kind() == reflect.Pointer && rw.IsNil() && isWrapper(v) {
		return v
	}
	return w
}

// isWrapper reports whether v is an interpreter's wrapper.
func isWrapper(v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	return rv.Kind() == reflect.Struct && rv.NumField() >= 2 && rv.Type().Field(0).Name == "IValue" && strings.HasPrefix(rv.Type().Name(), "_")
}

// nameOf returns the name of v's type: the one it carries, or
// reflection's (of what an interpreter's wrapper wraps).
func nameOf(v any) string {
	if t, ok := v.(*typed); ok && t.name != "" {
		return t.name
	}
	return TypeName(valueOf(v))
}

// valueOf returns v without its name.
func valueOf(v any) any {
	if t, ok := v.(*typed); ok {
		return t.v
	}
	return v
}

// Format formats the value as fmt would format the value of the named
// type: with its Format, Error or String method for the verbs that use
// them, with the type's name for %#v, as a plain value otherwise. (A
// typed value inside a slice or a map formats itself this way.)
func (t *typed) Format(f fmt.State, verb rune) {
	_, formatter := t.v.(fmt.Formatter)
	switch {
	case formatter && isWrapper(t.v):
		// The value's own Format (a session type's, which the
		// interpreter's wrapper carries), which fmt calls for every
		// verb.
		fmt.Fprintf(f, fmt.FormatString(f, verb), t.v)
	case verb == 'v' && f.Flag('#'):
		fmt.Fprint(f, goSyntax(t))
	case methodVerb(verb) && nilWrapped(t.v):
		// A nil pointer whose method panics prints <nil>, as fmt
		// prints it (catchPanic).
		var out string
		func() {
			defer func() {
				if recover() != nil {
					out = "<nil>"
				}
			}()
			out = fmt.Sprintf(fmt.FormatString(f, verb), t.v)
			if strings.Contains(out, "%!"+string(verb)+"(PANIC=") {
				out = "<nil>"
			}
		}()
		io.WriteString(f, out)
	case methodVerb(verb) && hasMethodOf(t.v):
		out := fmt.Sprintf(fmt.FormatString(f, verb), t.v)
		if rv := reflect.ValueOf(t.rawValue()); rv.Kind() == reflect.Pointer && rv.IsNil() && strings.Contains(out, "(PANIC=") {
			// The method of a nil pointer (see nilMethods) panicked:
			// fmt prints <nil> then.
			out = "<nil>"
		}
		io.WriteString(f, out)
	default:
		raw := t.rawValue()
		out := fmt.Sprintf(fmt.FormatString(f, verb), raw)
		if t.name != "" && raw != nil {
			// A verb wrong for the type names the type: %!d(main.Temp=3).
			if bad := "%!" + string(verb) + "(" + reflect.TypeOf(raw).String() + "="; strings.HasPrefix(out, bad) {
				out = "%!" + string(verb) + "(" + t.name + "=" + out[len(bad):]
			}
		}
		io.WriteString(f, out)
	}
}

// formatArgs prepares the arguments of a formatting function: a typed
// argument formats itself (see Format), but fmt formats %T before it
// asks, so when a typed argument meets a %T every verb is numbered ([n])
// and gets an argument of its own: the name for %T.
func formatArgs(format string, args []any) (string, []any) {
	args = namedTypeArgs(format, args)
	anyTyped := false
	for _, a := range args {
		if _, ok := a.(*typed); ok || goNamed(a) {
			anyTyped = true
		}
	}
	if !anyTyped {
		return format, args
	}
	uses := parseVerbs(format, len(args))
	simple := true
	for _, u := range uses {
		if u.bad || u.arg >= len(args) || u.widthArg >= len(args) || u.precArg >= len(args) {
			simple = false
			continue
		}
		if _, ok := args[u.arg].(*typed); (ok || goNamed(args[u.arg])) && u.verb == 'T' {
			simple = false
		}
	}
	// A value with a verb wrong for it stays typed, which names its
	// type in fmt's complaint (%!s(main.Level=2)).
	wrongVerb := make([]bool, len(args))
	for _, u := range uses {
		if !u.bad && u.arg < len(args) {
			if t, ok := args[u.arg].(*typed); ok && t.name != "" && !verbFits(t.rawValue(), u.verb) {
				wrongVerb[u.arg] = true
			}
		}
	}
	plain := make([]any, len(args))
	for i, a := range args {
		plain[i] = a
		if t, ok := a.(*typed); ok && u8(t) && !wrongVerb[i] {
			plain[i] = t.rawValue()
		}
	}
	for _, u := range uses {
		if u.verb == 'w' && !u.bad && u.arg < len(args) {
			plain[u.arg] = valueOf(args[u.arg]) // Errorf wraps the error itself
		}
	}
	if simple {
		return format, plain
	}
	var b strings.Builder
	var out []any
	used := make([]bool, len(args))
	last := 0
	for _, u := range uses {
		b.WriteString(format[last:u.start])
		last = u.end
		switch {
		// b becomes the format: its own text escapes the %.
		case u.noVerb && !u.indexed:
			b.WriteString("%%!(NOVERB)")
			continue
		case u.bad:
			fmt.Fprintf(&b, "%%%%!%c(BADINDEX)", u.verb)
			continue
		case u.arg >= len(args) || u.widthArg >= len(args) || u.precArg >= len(args):
			fmt.Fprintf(&b, "%%%%!%c(MISSING)", u.verb)
			for _, a := range []int{u.widthArg, u.precArg} {
				if a >= 0 && a < len(args) {
					used[a] = true // fmt took it for the width
				}
			}
			continue
		}
		b.WriteString("%" + u.flags)
		if u.widthArg >= 0 {
			used[u.widthArg] = true
			out = append(out, plain[u.widthArg])
			fmt.Fprintf(&b, "[%d]*", len(out))
		} else {
			b.WriteString(u.width)
		}
		if u.precArg >= 0 {
			used[u.precArg] = true
			out = append(out, plain[u.precArg])
			fmt.Fprintf(&b, ".[%d]*", len(out))
		} else {
			b.WriteString(u.prec)
		}
		used[u.arg] = true
		val, verb := plain[u.arg], u.verb
		if u.verb == 'T' {
			val, verb = nameOf(args[u.arg]), 's'
			if args[u.arg] == nil {
				val = "<nil>" // fmt's %T of nil
			}
		}
		out = append(out, val)
		fmt.Fprintf(&b, "[%d]%c", len(out), verb)
	}
	b.WriteString(format[last:])
	// fmt reports the arguments that no verb used, but not when verbs
	// are numbered: they are reported here as fmt would.
	var extra []string
	for i, a := range args {
		if used[i] || slices.ContainsFunc(uses, func(u verbUse) bool { return u.indexed }) {
			continue
		}
		if valueOf(a) == nil {
			extra = append(extra, "<nil>")
		} else {
			extra = append(extra, nameOf(a)+"="+strings.ReplaceAll(fmt.Sprint(plain[i]), "%", "%%"))
		}
	}
	if len(extra) > 0 {
		b.WriteString("%%!(EXTRA " + strings.Join(extra, ", ") + ")")
	}
	return b.String(), out
}

// goNamed reports whether v is one of the shell's run-time panics, whose
// %T is the type of Go's (goType).
func goNamed(v any) bool {
	_, ok := v.(interface{ goType() string })
	return ok
}

// heldPlain is the runtime's HeldPlain: the value that v, one of the
// interpreter's pairs of a value and its type's node (see heldValue),
// holds, where that is not a struct or a pointer to one, and true. Such
// a pair, of a variable of a declared type like type Level int put in an
// any by another function, finds its value in the wrong frame when the
// interpreter hands it on with its methods (<nil>, or a nil dereference
// in the conversion): its plain value at least prints as the number.
func heldPlain(v any) (any, bool) {
	if constantPair(v) {
		return nil, false // its node holds the value: passed on, it keeps its methods
	}
	h, ok := heldValue(v)
	if !ok || h == nil {
		return nil, false
	}
	t := reflect.TypeOf(h)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		return nil, false
	}
	return h, true
}

// pairType is the runtime's PairType: the name of the type (main.Level)
// of the value that v, one of the interpreter's pairs of a value and its
// node, holds, from the node; "" for any other v.
func pairType(v any) string {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Struct || rv.Type().Name() != "valueInterface" || rv.NumField() != 2 ||
		rv.Field(0).Kind() != reflect.Pointer || rv.Field(0).IsNil() {
		return ""
	}
	n := reflect.NewAt(rv.Field(0).Type().Elem(), unsafe.Pointer(rv.Field(0).Pointer())).Elem()
	t := n.FieldByName("typ")
	if !t.IsValid() || t.Kind() != reflect.Pointer || t.IsNil() {
		return ""
	}
	str := t.Elem().FieldByName("str")
	if !str.IsValid() || str.Kind() != reflect.String {
		return ""
	}
	return str.String()
}

// constantPair reports whether v is one of the interpreter's pairs of a
// value and its node whose node holds the value itself (a constant,
// Level(0)), which the interpreter hands on rightly, not a variable's
// place in a frame.
func constantPair(v any) bool {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Struct || rv.Type().Name() != "valueInterface" || rv.NumField() != 2 ||
		rv.Field(0).Kind() != reflect.Pointer || rv.Field(0).IsNil() {
		return false
	}
	n := reflect.NewAt(rv.Field(0).Type().Elem(), unsafe.Pointer(rv.Field(0).Pointer())).Elem()
	f := n.FieldByName("rval")
	if !f.IsValid() || f.Type() != reflect.TypeFor[reflect.Value]() {
		return false
	}
	return (*(*reflect.Value)(unsafe.Pointer(f.UnsafeAddr()))).IsValid()
}

// u8 reports whether a typed value should go to fmt as its plain value:
// a named string (fmt's Print puts no space next to a string operand) or
// a value of a type without methods, whose plain value prints the same.
func u8(t *typed) bool {
	raw := t.rawValue()
	if raw == nil {
		return false
	}
	if isWrapper(t.v) {
		return false
	}
	switch t.v.(type) {
	case fmt.Formatter, errorFunc, stringerFunc:
		return false
	}
	k := reflect.TypeOf(raw).Kind()
	return k != reflect.Slice && k != reflect.Map && k != reflect.Struct && k != reflect.Array && k != reflect.Pointer
}

// printArgs prepares the arguments of Print, Println and their kin:
// typed values format themselves, except those whose plain value prints
// the same (a string among them is a string operand for Print's spaces).
func printArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		if t, ok := a.(*typed); ok && u8(t) {
			out[i] = t.rawValue()
		}
	}
	return out
}

// methodVerb reports whether fmt formats an operand of verb with its
// Error or String method.
func methodVerb(verb rune) bool {
	switch verb {
	case 'v', 's', 'q', 'x', 'X', 'w':
		return true
	}
	return false
}

// structNames maps the text of the reflect types that the interpreter
// builds for the session's struct types (type P struct{...}: struct { X
// int; Y int }) to their names (main.P), as GoNames learns them, the
// latest call's last, for goSyntax. A reset forgets them.
var structNames struct {
	sync.Mutex
	m map[string]string
}

// goNames is the runtime's GoNames: it learns the struct types of the
// pairs (a zero value, its type's name) and returns format.
func goNames(format string, pairs ...any) string {
	structNames.Lock()
	defer structNames.Unlock()
	for i := 0; i+1 < len(pairs); i += 2 {
		name, _ := pairs[i+1].(string)
		if t := reflect.TypeOf(interpValue(pairs[i])); t != nil && t.Kind() == reflect.Struct && name != "" {
			if structNames.m == nil {
				structNames.m = map[string]string{}
			}
			structNames.m[t.String()] = name
		}
	}
	return format
}

// forgetStructNames forgets what goNames learnt.
func forgetStructNames() {
	structNames.Lock()
	structNames.m = nil
	structNames.Unlock()
}

// hasMethodOf reports whether v has the Error or String method that fmt
// calls for %v, %s, %q, %x and %X.
func hasMethodOf(v any) bool {
	switch v.(type) {
	case error, fmt.Stringer:
		return true
	}
	return false
}

// verbFits reports whether fmt formats v, a value of a basic kind, with
// verb, rather than complaining (%!s(int=2)); true for other kinds.
func verbFits(v any, verb rune) bool {
	if v == nil || verb == 'v' || verb == 'T' {
		return true
	}
	var ok string
	switch reflect.TypeOf(v).Kind() {
	case reflect.Bool:
		ok = "t"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		ok = "bcdoOqxXU"
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		ok = "beEfFgGxX"
	case reflect.String:
		ok = "sqxX"
	default:
		return true
	}
	return strings.ContainsRune(ok, verb)
}

// namedTypeArgs returns args with each argument of a %T or %#v verb whose type,
// as reflection writes it, holds the structure of a struct type of the
// session's (map[string]struct { A int }) passed with the name Go gives
// its type (map[string]main.K), as a typed value; args itself where
// there are none.
func namedTypeArgs(format string, args []any) []any {
	if !strings.ContainsAny(format, "T#") {
		return args
	}
	structNames.Lock()
	known := len(structNames.m) > 0
	structNames.Unlock()
	if !known {
		return args
	}
	out, cloned := args, false
	for _, u := range parseVerbs(format, len(args)) {
		if u.verb != 'T' && !(u.verb == 'v' && u.sharp) || u.bad || u.arg >= len(args) {
			continue
		}
		a := args[u.arg]
		if t, ok := a.(*typed); ok {
			if t.name != "" {
				continue
			}
			a = t.rawValue() // a value in an interface, not named
		}
		if a == nil || goNamed(a) {
			continue
		}
		a = interpValue(a)
		if a == nil {
			continue
		}
		text := reflect.TypeOf(a).String()
		if !strings.Contains(text, "struct {") {
			continue
		}
		if name := namedStructTypes(text); name != text {
			if !cloned {
				out, cloned = slices.Clone(args), true
			}
			out[u.arg] = &typed{v: a, name: name, raw: a, hasRaw: true}
		}
	}
	return out
}

// namedStructTypes writes, in s (a type as reflection writes it, or
// %#v's text), each struct type that structNames knows by its name, the
// longest first, so that one type's text inside another's stays whole.
func namedStructTypes(s string) string {
	structNames.Lock()
	defer structNames.Unlock()
	var found []string
	for text := range structNames.m {
		if strings.Contains(s, text) {
			found = append(found, text)
		}
	}
	slices.SortFunc(found, func(a, b string) int { return len(b) - len(a) })
	for _, text := range found {
		s = strings.ReplaceAll(s, text, structNames.m[text])
	}
	return s
}

// goSyntax returns %#v of a typed value with its type's name where fmt
// would write the interpreter's structure.
func goSyntax(t *typed) string {
	return namedStructTypes(goSyntaxTop(t))
}

// goSyntaxTop is goSyntax of the value's own type.
func goSyntaxTop(t *typed) string {
	raw := t.rawValue()
	s := fmt.Sprintf("%#v", raw)
	if raw == nil {
		return s
	}
	rt := reflect.TypeOf(raw).String()
	name := strings.TrimPrefix(t.name, "*")
	if p := reflect.TypeOf(raw); p.Kind() == reflect.Pointer && strings.HasPrefix(t.name, "*") {
		// &struct { X int }{X:1}: the struct's type is the pointer's
		// element.
		if et := p.Elem().String(); strings.HasPrefix(s, "&"+et) {
			return "&" + name + s[1+len(et):]
		}
	}
	switch {
	case strings.HasPrefix(s, "&"+rt):
		return "&" + name + s[1+len(rt):]
	case strings.HasPrefix(s, rt):
		return t.name + s[len(rt):]
	case strings.HasPrefix(s, "("+rt+")"): // a pointer
		return "(" + t.name + ")" + s[2+len(rt):]
	}
	if k := reflect.TypeOf(raw).Kind(); k != reflect.Struct && k != reflect.Slice && k != reflect.Map && k != reflect.Array && k != reflect.Pointer {
		// A named number or string: Go writes it as the number.
		return s
	}
	return s
}

// verbUse is one verb of a format and the arguments it uses, as fmt
// numbers them.
type verbUse struct {
	start, end int    // where the verb is in the format, from its %
	flags      string // + - # 0 and space
	width      string // the width's digits, or ""
	widthArg   int    // the argument a * width takes, or -1
	prec       string // "", ".", or "." and the precision's digits
	precArg    int    // the argument a .* precision takes, or -1
	verb       rune
	arg        int  // the operand's argument
	sharp      bool // the # flag
	bad        bool // a malformed argument number, or one past the arguments
	indexed    bool // an argument number ([n]) in the verb
	noVerb     bool // the format ends before the verb
}

// parseVerbs finds the verbs of format, with the arguments of the nargs
// that fmt gives them.
func parseVerbs(format string, nargs int) []verbUse {
	var uses []verbUse
	argNum := 0
	for i := 0; i < len(format); {
		if format[i] != '%' {
			i++
			continue
		}
		u := verbUse{start: i, widthArg: -1, precArg: -1}
		i++
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			if format[i] == '#' {
				u.sharp = true
			}
			u.flags += format[i : i+1]
			i++
		}
		index := func() {
			if i < len(format) && format[i] == '[' {
				u.indexed = true
				j := strings.IndexByte(format[i:], ']')
				n, err := 0, error(nil)
				if j >= 0 {
					n, err = strconv.Atoi(format[i+1 : i+j])
				}
				if j < 0 || err != nil || n < 1 || n > nargs {
					u.bad = true
					if j < 0 {
						i = len(format)
						return
					}
				} else {
					argNum = n - 1
				}
				i += j + 1
			}
		}
		index()
		if i < len(format) && format[i] == '*' {
			u.widthArg = argNum
			argNum++
			i++
		} else {
			d := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			u.width = format[d:i]
		}
		if i < len(format) && format[i] == '.' {
			i++
			index()
			if i < len(format) && format[i] == '*' {
				u.precArg = argNum
				argNum++
				i++
			} else {
				d := i
				for i < len(format) && format[i] >= '0' && format[i] <= '9' {
					i++
				}
				u.prec = "." + format[d:i]
			}
		}
		index()
		if i >= len(format) {
			u.end, u.verb, u.bad, u.noVerb = len(format), '?', true, true
			uses = append(uses, u)
			break
		}
		verb, size := utf8.DecodeRuneInString(format[i:])
		i += size
		u.end, u.verb = i, verb
		if verb == '%' && !u.bad {
			continue // a percent sign, no argument
		}
		if u.bad {
			u.arg = -1 // fmt gives the verb no argument
		} else {
			u.arg = argNum
			argNum++
		}
		uses = append(uses, u)
	}
	return uses
}

// The shims of fmt's formatting functions.

func (s *Session) printf(format string, a ...any) (int, error) {
	f, args := formatArgs(format, a)
	return fmt.Fprintf(s.stdout, f, args...)
}

func sprintf(format string, a ...any) string {
	f, args := formatArgs(format, a)
	return fmt.Sprintf(f, args...)
}

func fprintf(w io.Writer, format string, a ...any) (int, error) {
	f, args := formatArgs(format, a)
	return fmt.Fprintf(w, f, args...)
}

func errorf(format string, a ...any) error {
	f, args := formatArgs(format, a)
	return fmt.Errorf(f, args...)
}

func appendf(b []byte, format string, a ...any) []byte {
	f, args := formatArgs(format, a)
	return fmt.Appendf(b, f, args...)
}

func (s *Session) print(a ...any) (int, error)   { return fmt.Fprint(s.stdout, printArgs(a)...) }
func (s *Session) println(a ...any) (int, error) { return fmt.Fprintln(s.stdout, printArgs(a)...) }
func sprint(a ...any) string                     { return fmt.Sprint(printArgs(a)...) }
func sprintln(a ...any) string                   { return fmt.Sprintln(printArgs(a)...) }
func fprint(w io.Writer, a ...any) (int, error)  { return fmt.Fprint(w, printArgs(a)...) }
func fprintln(w io.Writer, a ...any) (int, error) {
	return fmt.Fprintln(w, printArgs(a)...)
}

// structValue is a struct as the runtime's Struct makes it: its fields'
// names and values, which format themselves where they have methods.
type structValue struct {
	name   string
	fields []string
	values []any
	nils   []string // a nil interface field's type for %#v, or ""
}

func newStruct(name string, fields []string, values []any) any {
	for i, v := range values {
		// An unexported field of an interface type the session
		// declared comes as the interpreter holds it (see heldValue).
		if h, ok := heldValue(v); ok {
			values[i] = h
		}
	}
	return &typed{v: &structValue{name, fields, values, nil}, name: name, raw: &structValue{name, fields, values, nil}, hasRaw: true}
}

// newStructNils is the runtime's StructNils: Struct with the types of its
// interface fields (nils), which %#v writes for a nil one.
func newStructNils(name string, fields []string, values []any, nils []string) any {
	t := newStruct(name, fields, values).(*typed)
	t.v.(*structValue).nils = nils
	t.raw.(*structValue).nils = nils
	return t
}

// refValue is a pointer to a struct passed to fmt's shims as an
// argument of its own (see the rewrite's refElements): fmt writes & and
// the struct, its fields with their methods (inner, the struct as Struct
// passes it), where the interpreter's pointer would give the fields
// without them; %p the pointer itself.
type refValue struct {
	ptr, inner any
}

// newRef is the runtime's Ref.
func newRef(ptr, inner any, name string) any {
	return &typed{v: &refValue{ptr, inner}, name: name}
}

func (r *refValue) Format(f fmt.State, verb rune) {
	if verb == 'p' {
		fmt.Fprintf(f, fmt.FormatString(f, verb), r.ptr)
		return
	}
	io.WriteString(f, "&")
	fmt.Fprintf(f, fmt.FormatString(f, verb), r.inner)
}

// mapKey is a key of a map passed to fmt's shims (see the rewrite's
// elements): the key as fmt sorts it, the key itself, and as it formats
// it, with its type's name and methods.
type mapKey struct {
	raw any // first: fmt orders structs by their fields in turn
	v   any
}

// newMapKey is the runtime's MapKey.
func newMapKey(raw, v any) any {
	if h, ok := heldValue(raw); ok {
		raw = h
	}
	return mapKey{raw, v}
}

// Format formats the key as its value with the name formats itself.
func (k mapKey) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, fmt.FormatString(f, verb), k.v)
}

// Format writes the struct as fmt writes one: {a b}, {A:a B:b} with +,
// main.T{A:a, B:b} with #.
func (s *structValue) Format(f fmt.State, verb rune) {
	sharp, plus := f.Flag('#'), f.Flag('+')
	if sharp && verb == 'v' {
		io.WriteString(f, s.name)
	}
	io.WriteString(f, "{")
	for i, v := range s.values {
		if i > 0 {
			if sharp && verb == 'v' {
				io.WriteString(f, ", ")
			} else {
				io.WriteString(f, " ")
			}
		}
		if plus || (sharp && verb == 'v') {
			io.WriteString(f, s.fields[i]+":")
		}
		if v == nil && i < len(s.nils) && s.nils[i] != "" {
			// A nil interface: fmt writes <nil> for every verb, and
			// %#v its type.
			if sharp && verb == 'v' {
				io.WriteString(f, s.nils[i]+"(nil)")
			} else {
				io.WriteString(f, "<nil>")
			}
			continue
		}
		fmt.Fprintf(f, fmt.FormatString(f, verb), v)
	}
	io.WriteString(f, "}")
}

// formatterFunc, errorFunc and stringerFunc are methods of fmt's
// interfaces as values of the interfaces (the runtime's FormatterOf,
// ErrorOf, StringerOf).
type (
	formatterFunc func(fmt.State, rune)
	errorFunc     func() string
	stringerFunc  func() string
)

func (f formatterFunc) Format(s fmt.State, verb rune) { f(s, verb) }
func (f errorFunc) Error() string                     { return f() }
func (f stringerFunc) String() string                 { return f() }
