package rdd

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
)

// Keys of pair RDDs are compared with == (as Go map keys are), hashed by
// hashKey to choose their partition, and ordered by compareKeys for
// SortByKey. The hash depends on the key's value alone, never on the
// process, so that every rank of an SPMD job sends a key to the same
// partition.

// hashKey returns a hash of k that is the same in every process: an
// integer is its own hash (so HashPartitioner(n) sends integer key k to
// partition k mod n, as Spark's does), a string hashes with FNV-1a, and
// pairs, arrays and structs combine the hashes of their parts. Keys that
// cannot be map keys (slices, maps, functions) make it panic with a
// *typeError for op.
func hashKey(op string, k any) uint64 {
	switch k := k.(type) {
	case int:
		return uint64(k)
	case string:
		return hashString(k)
	case int64:
		return uint64(k)
	case Pair:
		return 31*hashKey(op, k.Key) + hashKey(op, k.Value)
	case nil:
		return 0
	}
	return hashValue(op, k, reflect.ValueOf(k))
}

// hashString is 64-bit FNV-1a.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func hashValue(op string, k any, v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return 1
		}
		return 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return uint64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if f == 0 {
			f = 0 // -0 == 0
		}
		return mix(math.Float64bits(f))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return 31*mix(math.Float64bits(real(c))) + mix(math.Float64bits(imag(c)))
	case reflect.String:
		return hashString(v.String())
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
		return mix(uint64(v.Pointer()))
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return hashValue(op, k, v.Elem())
	case reflect.Array:
		h := uint64(1)
		for i := 0; i < v.Len(); i++ {
			h = 31*h + hashValue(op, k, v.Index(i))
		}
		return h
	case reflect.Struct:
		h := uint64(1)
		for i := 0; i < v.NumField(); i++ {
			h = 31*h + hashValue(op, k, v.Field(i))
		}
		return h
	}
	panic(&typeError{op: op, arg: -1, note: "keys must be comparable, as map keys are (numbers, strings, bools, arrays, structs and rdd.Pairs of those)", subject: "the key of ", value: k})
}

// mix scrambles the bits of x (the finalizer of SplitMix64).
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// compareKeys orders keys for SortByKey and RangePartitioner: numbers by
// value (integers and floats may be mixed; NaN sorts first), strings
// bytewise, false before true, and pairs, arrays and structs part by
// part. Keys that cannot be ordered against each other make it panic
// with a *typeError for op.
func compareKeys(op string, a, b any) int {
	switch a := a.(type) {
	case int:
		if b, ok := b.(int); ok {
			return cmp.Compare(a, b)
		}
	case string:
		if b, ok := b.(string); ok {
			return cmp.Compare(a, b)
		}
	case float64:
		if b, ok := b.(float64); ok {
			return cmp.Compare(a, b)
		}
	case Pair:
		if b, ok := b.(Pair); ok {
			if c := compareKeys(op, a.Key, b.Key); c != 0 {
				return c
			}
			return compareKeys(op, a.Value, b.Value)
		}
	}
	return compareValues(op, a, b, reflect.ValueOf(a), reflect.ValueOf(b))
}

func compareValues(op string, ka, kb any, a, b reflect.Value) int {
	if !a.IsValid() || !b.IsValid() {
		switch {
		case !a.IsValid() && !b.IsValid():
			return 0
		case !a.IsValid():
			return -1
		}
		return 1
	}
	if a.Kind() == reflect.Interface {
		if a.IsNil() {
			return compareValues(op, ka, kb, reflect.Value{}, b)
		}
		return compareValues(op, ka, kb, a.Elem(), b)
	}
	if b.Kind() == reflect.Interface {
		if b.IsNil() {
			return compareValues(op, ka, kb, a, reflect.Value{})
		}
		return compareValues(op, ka, kb, a, b.Elem())
	}
	ca, cb := numClass(a.Kind()), numClass(b.Kind())
	switch {
	case ca == 1 && cb == 1:
		return cmp.Compare(a.Int(), b.Int())
	case ca == 2 && cb == 2:
		return cmp.Compare(a.Uint(), b.Uint())
	case ca != 0 && cb != 0:
		return cmp.Compare(toFloat(a), toFloat(b))
	}
	if a.Type() == b.Type() {
		switch a.Kind() {
		case reflect.String:
			return cmp.Compare(a.String(), b.String())
		case reflect.Bool:
			x, y := a.Bool(), b.Bool()
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		case reflect.Array, reflect.Slice:
			for i := 0; i < a.Len() && i < b.Len(); i++ {
				if c := compareValues(op, ka, kb, a.Index(i), b.Index(i)); c != 0 {
					return c
				}
			}
			return cmp.Compare(a.Len(), b.Len())
		case reflect.Struct:
			for i := 0; i < a.NumField(); i++ {
				if c := compareValues(op, ka, kb, a.Field(i), b.Field(i)); c != 0 {
					return c
				}
			}
			return 0
		}
	}
	panic(&typeError{op: op, arg: -1, note: fmt.Sprintf("keys must be of one ordered type (numbers, strings, bools, or arrays, structs and rdd.Pairs of those) to be sorted; %s cannot be ordered against %s", describeValue(ka), describeValue(kb)), value: nil, noValue: true})
}

// numClass is 1 for signed integers, 2 for unsigned ones, 3 for floats,
// else 0.
func numClass(k reflect.Kind) int {
	switch {
	case k >= reflect.Int && k <= reflect.Int64:
		return 1
	case k >= reflect.Uint && k <= reflect.Uintptr:
		return 2
	case k == reflect.Float32 || k == reflect.Float64:
		return 3
	}
	return 0
}

func toFloat(v reflect.Value) float64 {
	switch numClass(v.Kind()) {
	case 1:
		return float64(v.Int())
	case 2:
		return float64(v.Uint())
	}
	return v.Float()
}
