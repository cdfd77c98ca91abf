package rdd

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/sparknet-go/sparknet/data"
)

// ErrType reports a callback whose types do not fit: a function of the
// wrong shape (checked when the transformation or action is called), or
// an element that the function cannot take (checked as elements arrive;
// such a task fails at once, without retries). Test for it with
// errors.Is.
var ErrType = errors.New("rdd: wrong type")

// Callbacks are plain Go functions of the elements' real types, such as
// func(x int) int or func(s string) []string, passed as any so that the
// interpreted shell (which cannot call generic functions) can pass its
// own functions too. They are called by reflection, except for common
// signatures (func(any) any, func(int) int, func(a, b float64) float64,
// ...) that are called directly. The helpers below check a function's
// shape once and return plain closures over any; an element of the wrong
// type makes the closure panic with a *typeError, which each and call
// turn into an error naming the element.

// typeError is an element or value that a callback cannot take.
type typeError struct {
	op    string // "Map"
	want  string // the type the function takes
	value any    // what it was given

	// note replaces "the function takes WANT" when set; with noValue
	// the value is not described (the note says it all), and subject
	// comes before the position ("the key of ").
	note    string
	noValue bool
	subject string

	// arg is the argument that did not fit (0 the first), or -1.
	arg int

	// Where it happened, set by each and call: element elem of
	// partition part; part -1 is the driver, -2 unknown.
	part, elem int
	placed     bool
}

func (e *typeError) Error() string {
	if !e.placed {
		return e.at(-2, -1)
	}
	return e.at(e.part, e.elem)
}

func (e *typeError) Unwrap() error { return ErrType }

// placedAt returns a copy of e placed at element i of partition p.
func (e *typeError) placedAt(p, i int) *typeError {
	c := *e
	c.part, c.elem, c.placed = p, i, true
	return &c
}

// at describes the error for element i of partition p (p = -1: in the
// driver; -2: no position).
func (e *typeError) at(p, i int) string {
	where := "a value"
	switch {
	case p >= 0 && i >= 0:
		where = fmt.Sprintf("element %d of partition %d", i, p)
	case p >= 0:
		where = fmt.Sprintf("a value in partition %d", p)
	case p == -1:
		where = "a partition result"
	}
	head := e.note
	if head == "" {
		head = "the function takes " + e.want
	}
	if e.noValue {
		if p == -2 {
			return fmt.Sprintf("rdd: %s: %s", e.op, head)
		}
		return fmt.Sprintf("rdd: %s: %s (at %s)", e.op, head, where)
	}
	return fmt.Sprintf("rdd: %s: %s, but %s%s is %s", e.op, head, e.subject, where, describeValue(e.value))
}

// describeValue names a value's type, with the value when it is short.
func describeValue(v any) string {
	if v == nil {
		return "nil"
	}
	s := fmt.Sprintf("%v", v)
	if _, ok := v.(string); ok {
		s = fmt.Sprintf("%q", v)
	}
	if len(s) > 40 || s == "" {
		return typeName(reflect.TypeOf(v))
	}
	return fmt.Sprintf("%s (%s)", typeName(reflect.TypeOf(v)), s)
}

// typeName is how errors spell a type.
func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	s := t.String()
	if s == "interface {}" {
		return "any"
	}
	return strings.ReplaceAll(s, "interface {}", "any")
}

// funcShape checks that f is a function with nin arguments and nout
// results (nout < 0: any number), and returns it as a reflect.Value.
// example is a signature shown in errors, such as "func(x int) int".
func funcShape(op string, f any, nin, nout int, example string) (reflect.Value, error) {
	if f == nil {
		return reflect.Value{}, fmt.Errorf("%w: %s needs a function such as %s, got nil", ErrType, op, example)
	}
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func {
		return reflect.Value{}, fmt.Errorf("%w: %s needs a function such as %s, got %s", ErrType, op, example, describeValue(f))
	}
	if v.IsNil() {
		return reflect.Value{}, fmt.Errorf("%w: %s needs a function such as %s, got a nil %s", ErrType, op, example, typeName(v.Type()))
	}
	t := v.Type()
	if t.IsVariadic() || t.NumIn() != nin || (nout >= 0 && t.NumOut() != nout) {
		return reflect.Value{}, fmt.Errorf("%w: %s needs a function of %s with %s, such as %s; got %s",
			ErrType, op, plural(nin, "argument"), plural(nout, "result"), example, typeName(t))
	}
	return v, nil
}

func plural(n int, what string) string {
	switch {
	case n < 0:
		return "any number of " + what + "s"
	case n == 1:
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// argValue converts x for a parameter of type t, or panics with a
// *typeError.
func argValue(op string, x any, t reflect.Type) reflect.Value {
	return argN(op, x, t, -1)
}

// argN is argValue for argument i.
func argN(op string, x any, t reflect.Type, i int) reflect.Value {
	if x == nil {
		switch t.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Func, reflect.Chan:
			return reflect.Zero(t)
		}
		panic(&typeError{op: op, want: typeName(t), value: x, arg: i})
	}
	v := reflect.ValueOf(x)
	if v.Type() == t || v.Type().AssignableTo(t) {
		return v
	}
	panic(&typeError{op: op, want: typeName(t), value: x, arg: i})
}

// result boxes a function's result.
func result(v reflect.Value) any {
	if v.Kind() == reflect.Interface && v.IsNil() {
		return nil
	}
	return v.Interface()
}

// as converts x to T for a compiled fast path, or panics with a
// *typeError as argValue does.
func as[T any](op string, x any) T {
	return asN[T](op, x, -1)
}

// asN is as for argument i.
func asN[T any](op string, x any, i int) T {
	if t, ok := x.(T); ok {
		return t
	}
	var zero T
	return argN(op, x, reflect.TypeOf(&zero).Elem(), i).Interface().(T)
}

func fast1[T, U any](op string, f func(T) U) func(any) any {
	return func(x any) any { return f(as[T](op, x)) }
}

func fastPred[T any](op string, f func(T) bool) func(any) bool {
	return func(x any) bool { return f(as[T](op, x)) }
}

func fastFlat[T, U any](op string, f func(T) []U) func(any) []any {
	return func(x any) []any {
		ys := f(as[T](op, x))
		out := make([]any, len(ys))
		for i, y := range ys {
			out[i] = y
		}
		return out
	}
}

func fast2[A, T any](op string, f func(A, T) A) func(a, x any) any {
	return func(a, x any) any { return f(asN[A](op, a, 0), asN[T](op, x, 1)) }
}

// unary returns f, a function of one argument and one result, as a
// closure over any.
func unary(op string, f any) (func(any) any, error) {
	switch f := f.(type) {
	case func(any) any:
		return f, nil
	case func(int) int:
		return fast1(op, f), nil
	case func(int) any:
		return fast1(op, f), nil
	case func(float64) float64:
		return fast1(op, f), nil
	case func(string) string:
		return fast1(op, f), nil
	case func(string) int:
		return fast1(op, f), nil
	case func(string) Pair:
		return fast1(op, f), nil
	case func(int) Pair:
		return fast1(op, f), nil
	case func(any) Pair:
		return fast1(op, f), nil
	case func(Pair) any:
		return fast1(op, f), nil
	case func(Pair) Pair:
		return fast1(op, f), nil
	case func(data.Sample) any:
		return fast1(op, f), nil
	}
	v, err := funcShape(op, f, 1, 1, "func(x int) int")
	if err != nil {
		return nil, err
	}
	in := v.Type().In(0)
	return func(x any) any {
		return result(v.Call([]reflect.Value{argValue(op, x, in)})[0])
	}, nil
}

// predicate returns f, a function of one argument returning a bool, as a
// closure over any.
func predicate(op string, f any) (func(any) bool, error) {
	switch f := f.(type) {
	case func(any) bool:
		return f, nil
	case func(int) bool:
		return fastPred(op, f), nil
	case func(float64) bool:
		return fastPred(op, f), nil
	case func(string) bool:
		return fastPred(op, f), nil
	case func(Pair) bool:
		return fastPred(op, f), nil
	case func(data.Sample) bool:
		return fastPred(op, f), nil
	}
	v, err := funcShape(op, f, 1, 1, "func(x int) bool")
	if err != nil {
		return nil, err
	}
	if v.Type().Out(0).Kind() != reflect.Bool {
		return nil, fmt.Errorf("%w: %s needs a function returning a bool, such as func(x int) bool; got %s", ErrType, op, typeName(v.Type()))
	}
	in := v.Type().In(0)
	return func(x any) bool {
		return v.Call([]reflect.Value{argValue(op, x, in)})[0].Bool()
	}, nil
}

// flat returns f, a function of one argument returning a slice (or an
// array), as a closure returning the elements as []any.
func flat(op string, f any) (func(any) []any, error) {
	switch f := f.(type) {
	case func(any) []any:
		return f, nil
	case func(string) []string:
		return fastFlat(op, f), nil
	case func(string) []any:
		return fastFlat(op, f), nil
	case func(int) []int:
		return fastFlat(op, f), nil
	case func(string) []Pair:
		return fastFlat(op, f), nil
	case func(any) []Pair:
		return fastFlat(op, f), nil
	}
	v, err := funcShape(op, f, 1, 1, "func(s string) []string")
	if err != nil {
		return nil, err
	}
	if k := v.Type().Out(0).Kind(); k != reflect.Slice && k != reflect.Array {
		return nil, fmt.Errorf("%w: %s needs a function returning a slice, such as func(s string) []string; got %s", ErrType, op, typeName(v.Type()))
	}
	in := v.Type().In(0)
	return func(x any) []any {
		return sliceElems(v.Call([]reflect.Value{argValue(op, x, in)})[0])
	}, nil
}

// sliceElems boxes the elements of a slice or array value.
func sliceElems(s reflect.Value) []any {
	if s.Kind() == reflect.Slice {
		if xs, ok := s.Interface().([]any); ok {
			return xs
		}
	}
	out := make([]any, s.Len())
	for i := range out {
		out[i] = s.Index(i).Interface()
	}
	return out
}

// binop returns f, a function of two arguments with one result, as a
// closure over any. For Reduce, Fold and the ByKey operations the first
// argument is the running value and the result replaces it.
func binop(op string, f any) (func(a, b any) any, error) {
	switch f := f.(type) {
	case func(a, b any) any:
		return f, nil
	case func(a, b int) int:
		return fast2(op, f), nil
	case func(a, b int64) int64:
		return fast2(op, f), nil
	case func(a, b float64) float64:
		return fast2(op, f), nil
	case func(a, b float32) float32:
		return fast2(op, f), nil
	case func(a, b string) string:
		return fast2(op, f), nil
	}
	v, err := funcShape(op, f, 2, 1, "func(a, b int) int")
	if err != nil {
		return nil, err
	}
	t := v.Type()
	if !t.Out(0).AssignableTo(t.In(0)) {
		return nil, fmt.Errorf("%w: %s needs a function whose result has the type of its first argument, such as func(acc []int, x int) []int; got %s", ErrType, op, typeName(t))
	}
	a, b := t.In(0), t.In(1)
	return func(x, y any) any {
		return result(v.Call([]reflect.Value{argN(op, x, a, 0), argN(op, y, b, 1)})[0])
	}, nil
}

// consumer returns f, a function of one argument (its results, if any,
// are ignored), as a closure over any.
func consumer(op string, f any) (func(any), error) {
	switch f := f.(type) {
	case func(any):
		return f, nil
	case func(int):
		return func(x any) { f(as[int](op, x)) }, nil
	case func(string):
		return func(x any) { f(as[string](op, x)) }, nil
	}
	v, err := funcShape(op, f, 1, -1, "func(x int)")
	if err != nil {
		return nil, err
	}
	in := v.Type().In(0)
	return func(x any) { v.Call([]reflect.Value{argValue(op, x, in)}) }, nil
}

// partitionFunc returns f, a function of a partition's elements as a
// slice ([]any or []T) and, when withIndex, of the partition index before
// them, as a closure over []any. nout is 1 (the result is a slice or
// array of the new elements) or 0 (results are ignored).
func partitionFunc(op string, f any, withIndex bool, nout int) (func(p int, it []any) []any, error) {
	switch f := f.(type) {
	case func([]any) []any:
		if !withIndex && nout == 1 {
			return func(_ int, it []any) []any { return f(it) }, nil
		}
	case func(int, []any) []any:
		if withIndex && nout == 1 {
			return f, nil
		}
	case func([]any):
		if !withIndex && nout == 0 {
			return func(_ int, it []any) []any { f(it); return nil }, nil
		}
	}
	nin, example := 1, "func(xs []int) []int"
	if withIndex {
		nin, example = 2, "func(p int, xs []int) []int"
	}
	if nout == 0 {
		example = "func(xs []int)"
	}
	v, err := funcShape(op, f, nin, nout, example)
	if err != nil {
		return nil, err
	}
	t := v.Type()
	if withIndex && t.In(0).Kind() != reflect.Int {
		return nil, fmt.Errorf("%w: %s needs a function whose first argument is the partition index (int), such as %s; got %s", ErrType, op, example, typeName(t))
	}
	st := t.In(nin - 1)
	if st.Kind() != reflect.Slice {
		return nil, fmt.Errorf("%w: %s needs a function taking the partition's elements as a slice, such as %s; got %s", ErrType, op, example, typeName(t))
	}
	if nout == 1 {
		if k := t.Out(0).Kind(); k != reflect.Slice && k != reflect.Array {
			return nil, fmt.Errorf("%w: %s needs a function returning a slice, such as %s; got %s", ErrType, op, example, typeName(t))
		}
	}
	return func(p int, it []any) []any {
		s := reflect.MakeSlice(st, len(it), len(it))
		for i, x := range it {
			s.Index(i).Set(argValue(op, x, st.Elem()))
		}
		args := []reflect.Value{s}
		if withIndex {
			args = []reflect.Value{reflect.ValueOf(p).Convert(t.In(0)), s}
		}
		out := v.Call(args)
		if nout == 0 {
			return nil
		}
		return sliceElems(out[0])
	}, nil
}

// zeroMaker returns a function that makes a new zero value for every
// partition (and every key, and the final combination): zero may be a
// function with no arguments that returns one, else zero is copied
// deeply, so that callbacks may modify the value they are given, as a
// histogram's counts are. accType is the type the function's first
// argument has (nil when unknown); a number given for a number of
// another type is converted, as Go converts untyped constants.
func zeroMaker(op string, zero any, accType reflect.Type) (func() any, error) {
	if zero != nil {
		if v := reflect.ValueOf(zero); v.Kind() == reflect.Func && v.Type().NumIn() == 0 && v.Type().NumOut() == 1 && !v.IsNil() {
			return func() any { return result(v.Call(nil)[0]) }, nil
		}
	}
	z, err := convertZero(op, zero, accType)
	if err != nil {
		return nil, err
	}
	if z == nil || !hasReferences(reflect.TypeOf(z), map[reflect.Type]bool{}) {
		return func() any { return z }, nil
	}
	if _, err := deepCopy(reflect.ValueOf(z)); err != nil {
		return nil, fmt.Errorf("%w: %s: cannot copy the zero value for every partition: %v; pass a function that returns a new zero value instead, such as func() %s { ... }",
			ErrType, op, err, typeName(reflect.TypeOf(z)))
	}
	return func() any {
		c, _ := deepCopy(reflect.ValueOf(z))
		return c.Interface()
	}, nil
}

// convertZero checks that zero fits a first argument of type t,
// converting numbers between numeric types when the value survives.
func convertZero(op string, zero any, t reflect.Type) (any, error) {
	if t == nil {
		return zero, nil
	}
	if zero == nil {
		switch t.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Func, reflect.Chan:
			return nil, nil
		}
		return nil, fmt.Errorf("%w: %s: the function takes %s, but the zero value is nil", ErrType, op, typeName(t))
	}
	v := reflect.ValueOf(zero)
	if v.Type().AssignableTo(t) {
		return zero, nil
	}
	if isNumber(v.Kind()) && isNumber(t.Kind()) {
		c := v.Convert(t)
		if back := c.Convert(v.Type()); back.Interface() == zero {
			return c.Interface(), nil
		}
	}
	return nil, fmt.Errorf("%w: %s: the function takes %s, but the zero value is %s", ErrType, op, typeName(t), describeValue(zero))
}

func isNumber(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Float64 }

// hasReferences reports whether values of type t can share memory with
// their copies (pointers, slices, maps, interfaces, ...).
func hasReferences(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.UnsafePointer, reflect.Func:
		return true
	case reflect.Array:
		return hasReferences(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasReferences(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// deepCopy copies v with everything it refers to. A value with a Copy or
// Clone method returning its own type is copied by that method; values
// that hold references in unexported fields cannot be copied otherwise.
func deepCopy(v reflect.Value) (reflect.Value, error) {
	return copyValue(v, map[uintptr]reflect.Value{})
}

func copyValue(v reflect.Value, seen map[uintptr]reflect.Value) (reflect.Value, error) {
	t := v.Type()
	if !hasReferences(t, map[reflect.Type]bool{}) {
		return v, nil
	}
	for _, name := range []string{"Copy", "Clone"} {
		if m := v.MethodByName(name); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 && m.Type().Out(0) == t {
			if (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && v.IsNil() {
				return v, nil
			}
			return m.Call(nil)[0], nil
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v, nil
		}
		if c, ok := seen[v.Pointer()]; ok {
			return c, nil
		}
		c := reflect.New(t.Elem())
		seen[v.Pointer()] = c
		e, err := copyValue(v.Elem(), seen)
		if err != nil {
			return v, err
		}
		c.Elem().Set(e)
		return c, nil
	case reflect.Slice:
		if v.IsNil() {
			return v, nil
		}
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		if !hasReferences(t.Elem(), map[reflect.Type]bool{}) {
			reflect.Copy(c, v)
			return c, nil
		}
		for i := 0; i < v.Len(); i++ {
			e, err := copyValue(v.Index(i), seen)
			if err != nil {
				return v, err
			}
			c.Index(i).Set(e)
		}
		return c, nil
	case reflect.Array:
		c := reflect.New(t).Elem()
		for i := 0; i < v.Len(); i++ {
			e, err := copyValue(v.Index(i), seen)
			if err != nil {
				return v, err
			}
			c.Index(i).Set(e)
		}
		return c, nil
	case reflect.Map:
		if v.IsNil() {
			return v, nil
		}
		c := reflect.MakeMapWithSize(t, v.Len())
		it := v.MapRange()
		for it.Next() {
			k, err := copyValue(it.Key(), seen)
			if err != nil {
				return v, err
			}
			e, err := copyValue(it.Value(), seen)
			if err != nil {
				return v, err
			}
			c.SetMapIndex(k, e)
		}
		return c, nil
	case reflect.Interface:
		if v.IsNil() {
			return v, nil
		}
		e, err := copyValue(v.Elem(), seen)
		if err != nil {
			return v, err
		}
		c := reflect.New(t).Elem()
		c.Set(e)
		return c, nil
	case reflect.Struct:
		c := reflect.New(t).Elem()
		c.Set(v) // fields without references, exported or not
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !hasReferences(f.Type, map[reflect.Type]bool{}) {
				continue
			}
			if !f.IsExported() {
				return v, fmt.Errorf("%s has the unexported field %s, which refers to other memory", typeName(t), f.Name)
			}
			e, err := copyValue(v.Field(i), seen)
			if err != nil {
				return v, err
			}
			c.Field(i).Set(e)
		}
		return c, nil
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return v, nil // shared: functions and channels are not data
	}
	return v, nil
}

// acc1Type is the type of f's first argument, or nil.
func acc1Type(f any) reflect.Type {
	if f == nil {
		return nil
	}
	t := reflect.TypeOf(f)
	if t.Kind() != reflect.Func || t.NumIn() < 1 {
		return nil
	}
	if t.In(0).Kind() == reflect.Interface {
		return nil
	}
	return t.In(0)
}
