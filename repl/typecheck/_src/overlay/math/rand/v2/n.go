// Package rand adds to the compiled math/rand/v2 its generic function,
// which the interpreter cannot take from compiled code.
package rand

import (
	"math/rand/v2"
	"reflect"
)

// intType is the constraint of N's argument: any integer type.
type intType interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// N returns a pseudo-random number in [0, n) from the default source. It
// panics if n <= 0.
func N[Int intType](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	// (Int(x) made by reflection: the interpreter's conversion to a
	// type parameter fails for a named type such as time.Duration.)
	var r Int
	reflect.ValueOf(&r).Elem().Set(reflect.ValueOf(rand.Uint64N(uint64(n))).Convert(reflect.TypeOf(&r).Elem()))
	return r
}
