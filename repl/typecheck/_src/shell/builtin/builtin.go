// Package builtin holds what rewritten inputs call where the interpreter
// lacks a builtin of Go 1.21 and later (min, max, clear) or gets a
// standard function wrong for the shell's own types (errors.Is and
// errors.As, which compare types by reflection).
package builtin

import (
	"cmp"
	"math"
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

// ClearMap is clear for maps.
func ClearMap[M ~map[K]V, K comparable, V any](m M) {
	for k := range m {
		delete(m, k)
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
func ErrorsIs(err, target error) bool {
	if err == nil || target == nil {
		return err == target
	}
	for {
		if err == target {
			return true
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(target) {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
			if err == nil {
				return false
			}
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if e != nil && ErrorsIs(e, target) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
}

// ErrorsAs is errors.As for a target of type *T, run by the interpreter
// so that the shell's types are recognized. The tree of errors is walked
// depth first, without recursion (a generic function that calls a
// generic function fails in the interpreter for most types).
func ErrorsAs[T any](err error, target *T) bool {
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
		if v, ok := err.(T); ok {
			*target = v
			return true
		}
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(target) {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			stack = append(stack, x.Unwrap())
		case interface{ Unwrap() []error }:
			errs := x.Unwrap()
			for i := len(errs) - 1; i >= 0; i-- {
				stack = append(stack, errs[i])
			}
		}
	}
	return false
}
