//go:build ignore

// Inference of several type parameters from a function argument.
package main

import (
	"fmt"
	"strconv"
)

func MapKV[K comparable, V, R any](m map[K]V, keys []K, f func(K, V) R) []R {
	out := make([]R, 0, len(keys))
	for _, k := range keys {
		out = append(out, f(k, m[k]))
	}
	return out
}

func First[S ~[]E, E any](s S) (E, bool) {
	if len(s) == 0 {
		var zero E
		return zero, false
	}
	return s[0], true
}

type Names []string

func main() {
	m := map[string]int{"a": 1, "b": 2}
	fmt.Println(MapKV(m, []string{"b", "a"}, func(k string, v int) string { return k + strconv.Itoa(v) }))
	n, ok := First(Names{"x", "y"})
	fmt.Println(n, ok)
	_, ok = First([]float64{})
	fmt.Println(ok)
}
