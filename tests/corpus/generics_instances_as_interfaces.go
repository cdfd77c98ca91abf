//go:build ignore

package main

import (
	"fmt"
	"strings"
)

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (s Stack[T]) String() string {
	parts := make([]string, len(s.items))
	for i, it := range s.items {
		parts[i] = fmt.Sprint(it)
	}
	return "stack[" + strings.Join(parts, " ") + "]"
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprintf("%v=%v", p.Key, p.Val) }

type LimitErr[T any] struct{ Limit T }

func (e *LimitErr[T]) Error() string { return fmt.Sprintf("over limit %v", e.Limit) }

func describe(v any) string {
	switch x := v.(type) {
	case error:
		return "error: " + x.Error()
	case fmt.Stringer:
		return "stringer: " + x.String()
	default:
		return fmt.Sprintf("plain %v", x)
	}
}

func check(n int) error {
	if n > 3 {
		return &LimitErr[int]{3}
	}
	return nil
}

func main() {
	var s Stack[int]
	s.Push(1)
	s.Push(2)
	fmt.Println(describe(s), describe(&s))
	fmt.Println(describe(Pair[string, int]{"a", 1}), describe(42))
	err := check(5)
	fmt.Println(describe(err))
	var it any = Pair[string, int]{"b", 2}
	if st, ok := it.(fmt.Stringer); ok {
		fmt.Println("ok", st)
	}
	_, isErr := it.(error)
	fmt.Println(isErr)
}
