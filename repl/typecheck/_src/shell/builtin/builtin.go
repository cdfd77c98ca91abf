// Package builtin holds what rewritten inputs call where the interpreter
// lacks a builtin of Go 1.21 and later (min, max, clear) or gets a
// standard function wrong for the shell's own types (errors.Is and
// errors.As, which compare types by reflection).
package builtin

import (
	"cmp"
	"errors"
	"math"
	"reflect"
)

// Min is min for integers and strings.
func Min[T cmp.Ordered](x T, y ...T) T {
	m := x
	for _, v := range y {
		if v < m {
			m = v
		}
	}
	return m
}

// Max is max for integers and strings.
func Max[T cmp.Ordered](x T, y ...T) T {
	m := x
	for _, v := range y {
		if v > m {
			m = v
		}
	}
	return m
}

// MinFloat is min for floats: a NaN wins, and -0 is less than 0.
func MinFloat[T ~float32 | ~float64](x T, y ...T) T {
	m := x
	for _, v := range y {
		switch {
		case m != m:
			return m
		case v != v:
			m = v
		case v < m:
			m = v
		case v == m && v == 0 && math.Signbit(float64(v)):
			m = v
		}
	}
	return m
}

// MaxFloat is max for floats: a NaN wins, and 0 is greater than -0.
func MaxFloat[T ~float32 | ~float64](x T, y ...T) T {
	m := x
	for _, v := range y {
		switch {
		case m != m:
			return m
		case v != v:
			m = v
		case v > m:
			m = v
		case v == m && v == 0 && !math.Signbit(float64(v)):
			m = v
		}
	}
	return m
}

// ClearMap is clear for maps: it deletes the keys that are not equal to
// themselves (NaN) too, which delete cannot.
func ClearMap[M ~map[K]V, K comparable, V any](m M) {
	for k := range m {
		delete(m, k)
	}
	if len(m) > 0 {
		reflect.ValueOf(m).Clear()
	}
}

// ClearSlice is clear for slices.
func ClearSlice[S ~[]E, E any](s S) {
	var zero E
	for i := 0; i < len(s); i++ {
		s[i] = zero
	}
}

// ErrorsIs is errors.Is, run by the interpreter, so that values of the
// shell's types compare as they do in Go.
// Methods are the Unwrap, Is and As methods of the session's error types,
// which the interpreter alone sees: the rewritten call passes a function
// that calls them (op 0 Unwrap, 1 Is, 2 As, 3 Unwrap() error alone),
// reporting whether err's type has the method, or nil when no type has
// any.
type Methods = func(err error, target any, op int) ([]error, bool)

func ErrorsIs(err, target error, methods Methods) bool {
	if errors.Is(err, target) { // exact for compiled errors
		return true
	}
	if err == nil || target == nil {
		return err == target
	}
	want := identity(target)
	comparable := reflect.TypeOf(want).Comparable()
	stack := []error{err}
	for len(stack) > 0 {
		err := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if err == nil {
			continue
		}
		if got := identity(err); comparable && reflect.TypeOf(got).Comparable() && got == want {
			return true
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(target) {
			return true
		}
		if methods != nil {
			if _, ok := methods(err, target, 1); ok {
				return true
			}
		}
		stack = append(stack, unwrap(err, methods)...)
	}
	return false
}

// ErrorsAs is errors.As, run by the interpreter so that the shell's
// types are recognized: match reports whether an error is of the
// target's type and if so stores it in target. (It is not generic: the
// interpreter instantiates generic functions with the session's types
// unreliably.) The tree of errors is walked depth first.
func ErrorsAs(err error, target any, match func(err error, target any) bool, methods Methods) bool {
	if target == nil {
		panic("errors: target cannot be nil")
	}
	stack := []error{err}
	for len(stack) > 0 {
		err := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if err == nil {
			continue
		}
		if match(err, target) {
			return true
		}
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(target) {
			return true
		}
		if as := reflect.ValueOf(err).MethodByName("As"); as.IsValid() && as.Type().NumIn() == 1 && as.Type().NumOut() == 1 {
			if ok, _ := as.Call([]reflect.Value{reflect.ValueOf(target)})[0].Interface().(bool); ok {
				return true
			}
		}
		if methods != nil {
			if _, ok := methods(err, target, 2); ok {
				return true
			}
		}
		stack = append(stack, unwrap(err, methods)...)
	}
	return false
}

// ErrorsUnwrap is errors.Unwrap, which sees the Unwrap methods of the
// session's types (see Methods): the result of an Unwrap() error method,
// nil for none (Unwrap() []error included).
func ErrorsUnwrap(err error, methods Methods) error {
	if err == nil {
		return nil
	}
	if methods != nil {
		if errs, ok := methods(err, nil, 3); ok {
			return errs[0]
		}
	}
	return errors.Unwrap(err)
}

// identity returns the value that err stands for: what the
// interpreter's wrapper of it wraps (the wrapper, a struct of the value
// and its methods, does not compare equal to another wrapper of it).
func identity(err error) any {
	rv := reflect.ValueOf(err)
	if rv.Kind() == reflect.Struct && rv.NumField() > 1 && rv.Type().Field(0).Name == "IValue" {
		if v := rv.Field(0); !v.IsNil() {
			return v.Interface()
		}
	}
	return err
}

// unwrap returns what err wraps, last first (for a stack): through the
// compiled Unwrap methods of compiled errors (which the interpreter's
// assertions do not see), and the interpreted ones of the shell's.
func unwrap(err error, methods Methods) []error {
	if methods != nil {
		if errs, ok := methods(err, nil, 0); ok {
			r := make([]error, 0, len(errs))
			for i := len(errs) - 1; i >= 0; i-- {
				r = append(r, errs[i])
			}
			return r
		}
	}
	if m := reflect.ValueOf(err).MethodByName("Unwrap"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
		rv := m.Call(nil)[0]
		if (rv.Kind() == reflect.Interface || rv.Kind() == reflect.Slice) && rv.IsNil() {
			return nil // (asserting a nil value panicked in the interpreter)
		}
		out := rv.Interface()
		// (The interpreter's type switches do not match compiled
		// values: this code asserts.)
		if e, ok := out.(error); ok {
			return []error{e}
		}
		if errs, ok := out.([]error); ok {
			r := make([]error, 0, len(errs))
			for i := len(errs) - 1; i >= 0; i-- {
				r = append(r, errs[i])
			}
			return r
		}
		return nil
	}
	if u, ok := err.(interface{ Unwrap() error }); ok {
		return []error{u.Unwrap()}
	}
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		errs := u.Unwrap()
		r := make([]error, 0, len(errs))
		for i := len(errs) - 1; i >= 0; i-- {
			r = append(r, errs[i])
		}
		return r
	}
	return nil
}

// ConvertParam is the conversion T(x) to a type parameter T, made by
// reflection: the interpreter's own failed where T's type argument is a
// named type (T(len(xs)) in an Average over []Celsius, rand.N of a
// time.Duration).
func ConvertParam[T, X any](x X) T {
	var t T
	reflect.ValueOf(&t).Elem().Set(reflect.ValueOf(x).Convert(reflect.TypeOf(&t).Elem()))
	return t
}
