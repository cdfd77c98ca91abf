package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/sparknet-go/sparknet/rdd"
)

// A function compiled in one input that prints a value of an interface
// type tells the session's types it knows by assertions
// (dynamicTypedOr); a type that a later input declares is not among them,
// nor a method declared later, and its values would print by their
// structure, or, for a declared non-struct type with fmt's methods, end
// in a nil dereference. Each input that declares types or methods
// registers a converter for each of those types (laterConverters), which
// such functions ask first through the runtime's Later.

// laterVar is the interpreted number of the last segment that registered
// converters (registerPending sets it): code compiled in an earlier
// segment asks the runtime's Later only when it is greater than its own,
// an interpreted comparison where a call costs more.
const laterVar = rtName + "_laterSeq"

// laterEntry is a type's converter: name is the type's (main.P), fn
// returns a value of it with its name, or unmatched; a struct type is
// found by the interpreter's type of its values (typ), another by its
// name in the interpreter's pairs of a value and its type's node
// (pairType).
type laterEntry struct {
	name    string
	typ     reflect.Type
	methods []string // of a pointer to the type, in order
	values  []string // of the type itself, in order
	fn      func(any) any
	direct  func(any) any // for a type not a struct: of a value known to be of it
	as      func(any, string) any
	errm    func(any, any, int) ([]error, bool)
	seq     int // the segment that registered it, last
}

// laterTable is the session's converters, in the order of their types'
// declarations (of two struct types with the same fields, which the
// interpreter gives one type, the first declared is told), indexed.
type laterTable struct {
	entries []laterEntry
	byType  map[reflect.Type][]int
	byName  map[string][]int // the types found by name
	named   map[string]int   // every type, by name
}

// anyType is the type of an empty interface's values.
var anyType = reflect.TypeFor[any]()

// unmatched is what a converter returns for a value not of its type.
var unmatched = new(struct{ _ byte })

// later is the runtime's Later: v with its type's name by its type's
// converter, if one is registered; need is the names of the methods of
// the interface type v came in, comma-separated, which its type has.
func (s *Session) later(v any, need string) (any, bool) {
	tab := s.laters.Load()
	if v == nil || tab == nil {
		return nil, false
	}
	var needs []string
	if need != "" {
		needs = strings.Split(need, ",")
	}
	return tab.convert(v, needs) // containers: laterArgs, in fmt's functions
}

// containers returns the elements of an []any or the values of a
// map[K]any, which no assertion of a function's told, each with its
// type's name by its type's converter, or a slice of a struct type of
// the session's converted so; false where it converts none or v is none
// of those.
func (tab *laterTable) containers(v any) (any, bool) {
	switch rv := reflect.ValueOf(v); {
	case rv.Kind() == reflect.Slice && len(tab.byType[rv.Type().Elem()]) > 0:
		// A slice of one of the session's struct types (or of
		// pointers to one), []Pt in an any, whose elements fmt would
		// print by their structure: each by its type's converter, the
		// whole named as Go names it ([]main.Pt).
		out := make([]any, rv.Len())
		for i := range out {
			w, ok := tab.convert(rv.Index(i).Interface(), nil)
			if !ok {
				return nil, false
			}
			out[i] = w
		}
		e := tab.entries[tab.byType[rv.Type().Elem()][0]]
		name := "[]" + e.name
		if rv.Type().Elem().Kind() == reflect.Pointer {
			name = "[]*" + e.name
		}
		if rv.IsNil() {
			return newTyped(v, name), true
		}
		return newTyped(out, name), true
	case rv.Kind() == reflect.Slice && rv.Type().Elem() == anyType:
		xs := v.([]any)
		var out []any
		for i, x := range xs {
			if w, ok := tab.element(x); ok {
				if out == nil {
					out = slices.Clone(xs)
				}
				out[i] = w
			}
		}
		if out != nil {
			return out, true
		}
	case rv.Kind() == reflect.Map && rv.Type().Elem() == anyType:
		var out reflect.Value
		for it := rv.MapRange(); it.Next(); {
			if w, ok := tab.element(it.Value().Interface()); ok {
				if !out.IsValid() {
					out = reflect.MakeMapWithSize(rv.Type(), rv.Len())
					for it := rv.MapRange(); it.Next(); {
						out.SetMapIndex(it.Key(), it.Value())
					}
				}
				out.SetMapIndex(it.Key(), reflect.ValueOf(&w).Elem())
			}
		}
		if out.IsValid() {
			return out.Interface(), true
		}
	}
	return nil, false
}

// laterArgs is the arguments of one of fmt's functions with the []any and
// map[K]any among them converted (containers): a helper that prints an
// any it was handed, which held such a container of the session's
// values, hands it on unconverted.
func (s *Session) laterArgs(a []any) []any {
	tab := s.laters.Load()
	if tab == nil {
		return a
	}
	var out []any
	for i, x := range a {
		if x == nil {
			continue
		}
		if p, ok := x.(rdd.Pair); ok {
			if w, ok := tab.pair(p); ok {
				if out == nil {
					out = slices.Clone(a)
				}
				out[i] = w
			}
			continue
		}
		if k := reflect.TypeOf(x).Kind(); k != reflect.Slice && k != reflect.Map {
			continue
		}
		if w, ok := tab.containers(x); ok {
			if out == nil {
				out = slices.Clone(a)
			}
			out[i] = w
		}
	}
	if out == nil {
		return a
	}
	return out
}

// laterAs is the runtime's LaterAs: v as the compiled interface iface
// (error, fmt.Stringer: see laterInterfaces), where v is of one of the
// session's types that implements it, by its type's converter, compiled
// with the methods that code compiled in segment seq, before them, does
// not see; nothing for a type registered last by seq.
func (s *Session) laterAs(v any, iface string, seq int) (any, bool) {
	tab := s.laters.Load()
	if v == nil || tab == nil {
		return nil, false
	}
	v, es := tab.since(v, seq)
	for _, e := range es {
		if e.as != nil {
			if w := e.as(v, iface); w != any(unmatched) {
				return w, true
			}
		}
	}
	return nil, false
}

// laterErr is the runtime's LaterErr: op (see errorMethods) of the
// error e, of one of the session's types whose Unwrap, Is or As code
// compiled in segment seq, before them, does not see; nil, false for
// the others.
func (s *Session) laterErr(e error, target any, op, seq int) ([]error, bool) {
	tab := s.laters.Load()
	if e == nil || tab == nil {
		return nil, false
	}
	v, es := tab.since(e, seq)
	for _, en := range es {
		if en.errm != nil {
			if errs, ok := en.errm(v, target, op); ok || errs != nil {
				return errs, ok
			}
		}
	}
	return nil, false
}

// since returns v out of the interpreter's wrapper or pair (lookup) and
// the converters of the types it may be of that a segment after seq
// registered last: those whose methods code compiled in seq did not see.
func (t *laterTable) since(v any, seq int) (any, []laterEntry) {
	v, idx := t.lookup(v, true)
	var out []laterEntry
	for _, i := range idx {
		if t.entries[i].seq > seq {
			out = append(out, t.entries[i])
		}
	}
	return v, out
}

// lookup returns v, out of the interpreter's wrapper, and the converters
// of the session's types that may be v's; with held, a struct or a
// pointer to one that the interpreter's pair holds is taken out of it
// too (LaterAs: Later leaves such values to the function's own
// assertions, which print their fields as Go does).
func (t *laterTable) lookup(v any, held bool) (any, []int) {
	if isWrapper(v) {
		// An interface with methods (fmt.Stringer) holds the value in
		// the interpreter's wrapper.
		v = interpValue(v)
	}
	if name := pairType(v); name != "" {
		if idx, ok := t.byName[name]; ok {
			return v, idx // a type not a struct: its converter takes the pair
		}
		if h, ok := heldValue(v); ok && h != nil && held {
			v = h // a struct or a pointer to one, held in a pair
		}
	}
	return v, t.byType[reflect.TypeOf(v)]
}

// element converts v, an element of an []any or a value of a
// map[K]any, or a part of an rdd.Pair: by its type's converters, or a
// pair by its parts'.
func (t *laterTable) element(v any) (any, bool) {
	if p, ok := v.(rdd.Pair); ok {
		return t.pair(p)
	}
	return t.convert(v, nil)
}

// pair returns the rdd.Pair p to print, where its key or value is of one
// of the session's types: Pair's String, compiled, formats them by their
// structure ((a, {3}) where Go prints (a, n=3)).
func (t *laterTable) pair(p rdd.Pair) (any, bool) {
	k, kok := t.element(p.Key)
	v, vok := t.element(p.Value)
	if !kok && !vok {
		return nil, false
	}
	if !kok {
		k = p.Key
	}
	if !vok {
		v = p.Value
	}
	return newTyped(pairView{p: p, k: k, v: v}, "rdd.Pair"), true
}

// pairView prints an rdd.Pair as its String method does, with its key
// and value converted (see pair).
type pairView struct {
	p    rdd.Pair
	k, v any
}

func (pv pairView) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprintf(f, "%#v", pv.p)
	case methodVerb(verb):
		fmt.Fprintf(f, fmt.FormatString(f, verb), fmt.Sprintf("(%v, %v)", pv.k, pv.v))
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), pv.p)
	}
}

// convert returns v with its type's name by the converters of its type,
// which has the methods needs.
func (t *laterTable) convert(v any, needs []string) (any, bool) {
	if v == nil {
		return nil, false
	}
	v, idx := t.lookup(v, false)
	for _, i := range idx {
		if !hasAll(t.entries[i].methods, needs) {
			continue
		}
		if w := t.entries[i].fn(v); w != any(unmatched) {
			return w, true
		}
	}
	return nil, false
}

// hasAll reports whether the sorted names have every one of needs.
func hasAll(names, needs []string) bool {
	for _, n := range needs {
		if _, ok := slices.BinarySearch(names, n); !ok {
			return false
		}
	}
	return true
}

// registerLater is the runtime's Register: the converter fn of the
// session's type name, declared (decl) or given methods by the input
// being run; zero is a value of it for a struct type, else nil; methods
// and values are the names of the methods of a pointer to it and of the
// type, comma-separated, in order. A declaration replaces a type of the
// same name, which goes last; methods replace its converter in place.
func (s *Session) registerLater(name string, decl bool, zero any, methods, values string, fn, direct func(any) any,
	as func(any, string) any, errm func(any, any, int) ([]error, bool), seq int) {
	var entries []laterEntry
	if t := s.laters.Load(); t != nil {
		entries = slices.Clone(t.entries)
	}
	e := laterEntry{name: name, fn: fn, direct: direct, as: as, errm: errm, seq: seq}
	if methods != "" {
		e.methods = strings.Split(methods, ",")
	}
	if values != "" {
		e.values = strings.Split(values, ",")
	}
	if zero != nil {
		e.typ = reflect.TypeOf(zero)
		// %T and %#v name the struct type where fmt would write its
		// structure (inside a map's type, say).
		goNames("", zero, name)
	}
	i := slices.IndexFunc(entries, func(e laterEntry) bool { return e.name == name })
	switch {
	case i >= 0 && !decl:
		entries[i] = e
	case i >= 0:
		entries = append(slices.Delete(entries, i, i+1), e)
	default:
		entries = append(entries, e)
	}
	t := &laterTable{entries: entries, byType: map[reflect.Type][]int{}, byName: map[string][]int{}, named: map[string]int{}}
	for i, e := range entries {
		t.named[e.name] = i
		if e.typ == nil {
			t.byName[e.name] = append(t.byName[e.name], i)
			continue
		}
		t.byType[e.typ] = append(t.byType[e.typ], i)
		p := reflect.PointerTo(e.typ)
		t.byType[p] = append(t.byType[p], i)
	}
	s.laters.Store(t)
}

// registerPending registers the converters of the segment being run (see
// laterConverters), after a chunk that declares types or methods:
// compiled again, they have the methods as they are now. The
// interpreter's failure on them (a type not declared yet) leaves those
// registered before.
func (s *Session) registerPending(ctx context.Context) {
	if len(s.pendingLater) == 0 {
		return
	}
	pos := s.pendingLater[0].Pos()
	set := &ast.AssignStmt{Lhs: []ast.Expr{ident(laterVar, pos)}, TokPos: pos, Tok: token.ASSIGN,
		Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(s.laterSeq)}}}
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: append(slices.Clip(s.pendingLater), set)}
	_ = s.run(ctx, block, newRewriter(s.globalInt))
}

// laterDepth counts the upgrades (see upgrade) running, which the
// converters' own Typed calls must not start again.
var laterDepth atomic.Int32

// typed is the runtime's Typed (newTyped), which upgrade may answer.
func (s *Session) typed(v any, name string) any {
	if w, ok := s.upgrade(v, name, nil); ok {
		return w
	}
	if p, ok := v.(rdd.Pair); ok && name == "" {
		// A pair in an any: its key and value by their converters.
		if tab := s.laters.Load(); tab != nil {
			if w, ok := tab.pair(p); ok {
				return w
			}
		}
	}
	return newTyped(v, name)
}

// typedRaw is the runtime's TypedRaw (newTypedRaw), which upgrade may
// answer.
func (s *Session) typedRaw(v any, name string, raw any) any {
	if w, ok := s.upgrade(v, name, raw); ok {
		return w
	}
	return newTypedRaw(v, name, raw)
}

// upgrade converts v, a value of the session's type name (main.T or
// *main.T) that code compiled before some of the type's methods that fmt
// calls (Format, Error, String) hands to Typed without them, by the
// type's converter, compiled with them (see laterConverters). It reports
// false where v has every such method of its type's.
func (s *Session) upgrade(v any, name string, raw any) (any, bool) {
	tab := s.laters.Load()
	if tab == nil || v == nil || laterDepth.Load() > 0 {
		return nil, false
	}
	base := strings.TrimPrefix(name, "*")
	i, ok := tab.named[base]
	if !ok {
		return nil, false
	}
	e := tab.entries[i]
	methods := e.values
	if base != name {
		methods = e.methods
	}
	missing := false
	for _, m := range methods {
		switch m {
		case "Format":
			_, has := v.(fmt.Formatter)
			missing = missing || !has
		case "Error":
			_, has := v.(error)
			missing = missing || !has
		case "String":
			_, has := v.(fmt.Stringer)
			missing = missing || !has
		}
	}
	if !missing {
		return nil, false
	}
	x := raw
	if x == nil {
		x = interpValue(v)
	}
	fn := e.fn
	if e.typ == nil {
		if e.direct == nil || base != name {
			return nil, false
		}
		fn = e.direct
	}
	laterDepth.Add(1)
	defer laterDepth.Add(-1)
	if w := fn(x); w != any(unmatched) {
		return w, true
	}
	return nil, false
}

// namedPanic is goPanicValue(v) with the session's struct types named as
// Go names them in the run-time panics that name a type ("comparing
// uncomparable type main.Row", where the interpreter's type is struct {
// N int; Tags []string }).
func (s *Session) namedPanic(v any) any {
	v = goPanicValue(v)
	re, ok := v.(runtime.Error)
	if !ok {
		return v
	}
	msg := strings.TrimPrefix(re.Error(), "runtime error: ")
	for _, prefix := range []string{"comparing uncomparable type ", "hash of unhashable type "} {
		text, found := strings.CutPrefix(msg, prefix)
		if !found {
			continue
		}
		tab := s.laters.Load()
		if tab == nil {
			return v
		}
		for _, e := range tab.entries {
			if e.typ != nil && e.typ.String() == text {
				return goRuntimeError{prefix + e.name}
			}
		}
	}
	return v
}
