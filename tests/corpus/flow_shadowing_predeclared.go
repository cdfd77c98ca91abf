//go:build ignore

// Predeclared names (nil, iota, true, len, any, error, min, ...) are not
// keywords: a program may declare its own variables, constants,
// functions and types under them, which shadow the predeclared ones in
// their scope.
package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

type copy struct{ n int }

func repeat(len int, cap string) string { return strings.Repeat(cap, len) }

func find(new []string, s string) (int, error) {
	for i, v := range new {
		if v == s {
			return i, nil
		}
	}
	error := errors.New("not found: " + s)
	return -1, error
}

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64 { return s.S * s.S }

func classify(xs []any) (string, int) {
	any := false
	len := 0
	text := ""
	for _, x := range xs {
		switch v := x.(type) {
		case int:
			any = true
			len += v
		case Shape:
			text += fmt.Sprint(v.Area())
		}
	}
	if any {
		text += "!"
	}
	return text, len
}

func lookup(m map[int]Shape, k int) float64 {
	nil := 0.5
	if s, ok := m[k]; ok {
		return s.Area() + nil
	}
	return nil
}

func safeIndex(xs []int, i int) (v int) {
	error := "E"
	defer func() {
		recover := recover()
		if recover != nil {
			fmt.Println("recovered:", recover, error)
			v = -1
		}
	}()
	return xs[i]
}

func count(xs ...int) int { return len(xs) }

type Namer interface{ Name() string }

func main() {
	fmt.Println(min(3, 2), copy{3}.n, repeat(3, "ab"))
	i, err := find([]string{"a", "b"}, "b")
	fmt.Println(i, err)
	_, err = find(nil, "z")
	fmt.Println(err)
	fmt.Println(classify([]any{1, Sq{2}, 3}))
	fmt.Println(lookup(map[int]Shape{1: Sq{3}}, 1), lookup(nil, 2))
	fmt.Println(safeIndex([]int{1, 2}, 1), safeIndex(nil, 5))

	// A nil slice spread into a variadic parameter; new of an interface
	// type points to a nil interface value.
	fmt.Println(count(nil...), count(1, 2))
	p := new(Namer)
	fmt.Println(*p == nil, p != nil)

	iota := 10
	fmt.Println(iota * 2)
	{
		nil := "none"
		fmt.Println(nil, len(nil))
	}
	{
		true := 1.5
		var s Shape = Sq{true}
		if q, ok := s.(Sq); ok {
			fmt.Println("sq", q.S, q.Area())
		}
		make := func() []Shape { return []Shape{Sq{1}, Sq{2}} }
		for i, sh := range make() {
			fmt.Printf("%d %v %T\n", i, sh, sh)
		}
	}
	m := map[string]int{"b": 2, "a": 1}
	keys := []string{}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys, len(keys))
	{
		print := func(s string) { fmt.Println("my print:", s) }
		print("x")
	}
}
