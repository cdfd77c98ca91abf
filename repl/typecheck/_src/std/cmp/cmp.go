// Package cmp is the shell's implementation of Go's cmp package (Go
// 1.26's API): the interpreter cannot run the compiled one.
package cmp

// Ordered is the constraint of types whose values < orders: integers,
// floats and strings.
type Ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 |
		~string
}

// Less reports whether x sorts before y. A NaN sorts before any other
// value, and -0.0 equals 0.0.
func Less[T Ordered](x, y T) bool {
	if x != x {
		return y == y
	}
	return x < y
}

// Compare returns -1, 0 or +1 as x sorts before, with or after y, in the
// order of Less (NaNs equal each other).
func Compare[T Ordered](x, y T) int {
	xNaN, yNaN := x != x, y != y
	switch {
	case xNaN && yNaN:
		return 0
	case xNaN:
		return -1
	case yNaN:
		return +1
	case x < y:
		return -1
	case x > y:
		return +1
	}
	return 0
}

// Or returns the first of vals that is not the zero value, or the zero
// value.
func Or[T comparable](vals ...T) T {
	var zero T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
}
