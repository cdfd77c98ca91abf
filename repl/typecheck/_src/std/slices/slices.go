// Package slices is the shell's implementation of Go's slices package
// (Go 1.26's API): the interpreter cannot run the compiled one.
//
// Sort, SortFunc and Sorted are stable here. Go's are stable for up to
// 12 elements only, so beyond that, elements that compare equal may come
// out in another order than in a compiled program.
//
// The interpreter instantiates a generic function that calls another
// one only for predeclared type arguments, so no function here calls
// another generic function: they share non-generic helpers instead.
package slices

import (
	"cmp"
	"iter"
	"reflect"
	"strings"
)

// All returns the indexes and elements of s, in order.
func All[Slice ~[]E, E any](s Slice) iter.Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i := 0; i < len(s); i++ {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

// Backward returns the indexes and elements of s, last first.
func Backward[Slice ~[]E, E any](s Slice) iter.Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

// Values returns the elements of s, in order.
func Values[Slice ~[]E, E any](s Slice) iter.Seq[E] {
	return func(yield func(E) bool) {
		for i := 0; i < len(s); i++ {
			if !yield(s[i]) {
				return
			}
		}
	}
}

// AppendSeq appends the values of seq to s.
func AppendSeq[Slice ~[]E, E any](s Slice, seq iter.Seq[E]) Slice {
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

// Collect returns the values of seq in a new slice.
func Collect[E any](seq iter.Seq[E]) []E {
	var s []E
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

// Chunk returns consecutive subslices of s of n elements (the last may
// be shorter). It panics if n < 1.
func Chunk[Slice ~[]E, E any](s Slice, n int) iter.Seq[Slice] {
	if n < 1 {
		panic("cannot be less than 1")
	}
	return func(yield func(Slice) bool) {
		for lo := 0; lo < len(s); lo += n {
			hi := lo + n
			if hi > len(s) {
				hi = len(s)
			}
			if !yield(s[lo:hi:hi]) {
				return
			}
		}
	}
}

// Equal reports whether s1 and s2 have the same length and equal
// elements. NaNs are not equal.
func Equal[S ~[]E, E comparable](s1, s2 S) bool {
	if len(s1) != len(s2) {
		return false
	}
	var zero E
	if isInterface(&zero) { // see same
		for i := 0; i < len(s1); i++ {
			if !same(s1[i], s2[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(s1); i++ {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

// EqualFunc is Equal with eq comparing elements.
func EqualFunc[S1 ~[]E1, S2 ~[]E2, E1, E2 any](s1 S1, s2 S2, eq func(E1, E2) bool) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := 0; i < len(s1); i++ {
		if !eq(s1[i], s2[i]) {
			return false
		}
	}
	return true
}

// Compare compares s1 and s2 element by element with cmp.Compare; a
// shorter slice that is a prefix of the other sorts first.
func Compare[S ~[]E, E cmp.Ordered](s1, s2 S) int {
	for i := 0; i < len(s1) && i < len(s2); i++ {
		a, b := s1[i], s2[i]
		aNaN, bNaN := a != a, b != b
		switch {
		case aNaN && bNaN:
		case aNaN || a < b:
			return -1
		case bNaN || a > b:
			return +1
		}
	}
	switch {
	case len(s1) < len(s2):
		return -1
	case len(s1) > len(s2):
		return +1
	}
	return 0
}

// CompareFunc is Compare with cmp comparing elements.
func CompareFunc[S1 ~[]E1, S2 ~[]E2, E1, E2 any](s1 S1, s2 S2, cmp func(E1, E2) int) int {
	for i := 0; i < len(s1) && i < len(s2); i++ {
		if c := cmp(s1[i], s2[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(s1) < len(s2):
		return -1
	case len(s1) > len(s2):
		return +1
	}
	return 0
}

// Index returns the index of the first element of s equal to v, or -1.
func Index[S ~[]E, E comparable](s S, v E) int {
	var zero E
	if isInterface(&zero) { // see same
		for i := 0; i < len(s); i++ {
			if same(s[i], v) {
				return i
			}
		}
		return -1
	}
	for i := 0; i < len(s); i++ {
		if s[i] == v {
			return i
		}
	}
	return -1
}

// IndexFunc returns the index of the first element for which f is true,
// or -1.
func IndexFunc[S ~[]E, E any](s S, f func(E) bool) int {
	for i := 0; i < len(s); i++ {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// Contains reports whether v is an element of s.
func Contains[S ~[]E, E comparable](s S, v E) bool {
	var zero E
	if isInterface(&zero) { // see same
		for i := 0; i < len(s); i++ {
			if same(s[i], v) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == v {
			return true
		}
	}
	return false
}

// ContainsFunc reports whether f is true for an element of s.
func ContainsFunc[S ~[]E, E any](s S, f func(E) bool) bool {
	for i := 0; i < len(s); i++ {
		if f(s[i]) {
			return true
		}
	}
	return false
}

// Insert inserts vs at index i of s and returns the result. It panics
// if i is out of range. As Go's, it writes into s's array where its
// capacity holds the result, and otherwise grows it as append does.
func Insert[S ~[]E, E any](s S, i int, v ...E) S {
	_ = s[i:] // the bounds check
	m, n := len(v), len(s)
	if m == 0 {
		return s
	}
	if i == n {
		return append(s, v...)
	}
	if n+m > cap(s) {
		s2 := append(s[:i], make(S, n+m-i)...)
		copy(s2[i:], v)
		copy(s2[i+m:], s[i:])
		return s2
	}
	vs := make(S, m) // v may lie in s
	copy(vs, v)
	s = s[:n+m]
	copy(s[i+m:], s[i:n])
	copy(s[i:], vs)
	return s
}

// Delete removes s[i:j] and returns the result; it zeroes the elements
// past the new length. It panics if s[i:j] is not a valid slice.
func Delete[S ~[]E, E any](s S, i, j int) S {
	_ = s[i:j:len(s)] // the bounds check
	if i == j {
		return s
	}
	n := len(s)
	s = append(s[:i], s[j:]...)
	var zero E
	for k := len(s); k < n; k++ {
		s[:n][k] = zero
	}
	return s
}

// DeleteFunc removes the elements for which del is true and returns the
// result; it zeroes the elements past the new length.
func DeleteFunc[S ~[]E, E any](s S, del func(E) bool) S {
	n := len(s)
	kept := 0
	for i := 0; i < n; i++ {
		if !del(s[i]) {
			s[kept] = s[i]
			kept++
		}
	}
	var zero E
	for k := kept; k < n; k++ {
		s[k] = zero
	}
	return s[:kept]
}

// Replace replaces s[i:j] with v and returns the result. It panics if
// s[i:j] is not a valid slice.
func Replace[S ~[]E, E any](s S, i, j int, v ...E) S {
	_ = s[i:j] // the bounds check
	tail := append(make(S, 0, len(s)-j), s[j:]...)
	n := len(s)
	s = append(append(s[:i], v...), tail...)
	if len(s) < n {
		var zero E
		for k := len(s); k < n; k++ {
			s[:n][k] = zero
		}
	}
	return s
}

// Clone returns a copy of s (nil for nil).
func Clone[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	return append(make(S, 0, len(s)), s...)
}

// Compact replaces runs of equal elements by one and returns the
// result; it zeroes the elements past the new length.
func Compact[S ~[]E, E comparable](s S) S {
	if len(s) < 2 {
		return s
	}
	n := len(s)
	kept := 1
	var zero E
	iface := isInterface(&zero) // see same
	for i := 1; i < n; i++ {
		if iface && !same(s[kept-1], s[i]) || !iface && s[kept-1] != s[i] {
			s[kept] = s[i]
			kept++
		}
	}
	for k := kept; k < n; k++ {
		s[k] = zero
	}
	return s[:kept]
}

// CompactFunc is Compact with eq comparing elements; of a run, the first
// is kept.
func CompactFunc[S ~[]E, E any](s S, eq func(E, E) bool) S {
	if len(s) < 2 {
		return s
	}
	n := len(s)
	kept := 1
	for i := 1; i < n; i++ {
		if !eq(s[kept-1], s[i]) {
			s[kept] = s[i]
			kept++
		}
	}
	var zero E
	for k := kept; k < n; k++ {
		s[k] = zero
	}
	return s[:kept]
}

// Grow makes room for n more elements without another allocation. It
// panics if n is negative.
func Grow[S ~[]E, E any](s S, n int) S {
	if n < 0 {
		panic("cannot be negative")
	}
	if cap(s)-len(s) >= n {
		return s
	}
	out := make(S, len(s), len(s)+n)
	copy(out, s)
	return out
}

// Clip removes the unused capacity of s.
func Clip[S ~[]E, E any](s S) S {
	return s[:len(s):len(s)]
}

// Concat returns the slices joined in a new slice.
func Concat[S ~[]E, E any](slices ...S) S {
	n := 0
	for _, s := range slices {
		n += len(s)
	}
	if n == 0 {
		return nil
	}
	out := make(S, 0, n)
	for _, s := range slices {
		out = append(out, s...)
	}
	return out
}

// Repeat returns x repeated count times in a new slice. It panics if
// count is negative.
func Repeat[S ~[]E, E any](x S, count int) S {
	if count < 0 {
		panic("cannot be negative")
	}
	out := make(S, 0, len(x)*count)
	for i := 0; i < count; i++ {
		out = append(out, x...)
	}
	return out
}

// Reverse reverses the elements of s in place.
func Reverse[S ~[]E, E any](s S) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// Max returns the largest element of x (a NaN if there is one). It
// panics if x is empty.
func Max[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if m != m {
			return m
		}
		if v := x[i]; v != v || v > m {
			m = v
		}
	}
	return m
}

// MaxFunc returns the first largest element of x by cmp. It panics if x
// is empty.
func MaxFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) > 0 {
			m = x[i]
		}
	}
	return m
}

// Min returns the smallest element of x (a NaN if there is one). It
// panics if x is empty.
func Min[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if m != m {
			return m
		}
		if v := x[i]; v != v || v < m {
			m = v
		}
	}
	return m
}

// MinFunc returns the first smallest element of x by cmp. It panics if x
// is empty.
func MinFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) < 0 {
			m = x[i]
		}
	}
	return m
}

// same reports whether a and b, values of an interface type, are equal.
// The interpreter holds a value of one of the session's types in an
// interface with methods (error, fmt.Stringer) as a wrapper of its own
// (a struct of the value, its first field IValue, and the methods as
// functions), and comparing two wrappers panics: same compares what
// they wrap.
func same(a, b any) bool { return unwrapped(a) == unwrapped(b) }

// isInterface reports whether p points to a value of an interface type.
func isInterface(p any) bool {
	t := reflect.TypeOf(p)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Interface
}

// unwrapped returns what v wraps if it is an interpreter's wrapper, else v.
func unwrapped(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Struct && rv.NumField() > 1 && rv.Type().Field(0).Name == "IValue" && strings.HasPrefix(rv.Type().Name(), "_") {
		return rv.Field(0).Interface()
	}
	return v
}
