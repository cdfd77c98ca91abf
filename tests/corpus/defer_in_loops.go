//go:build ignore

// Deferred method calls in loops: each iteration's receiver and
// arguments, taken at the defer, as the calls run when the function
// returns.
package main

import (
	"fmt"
	"io"
	"strings"
)

type File struct{ name string }

func (f *File) Close() error {
	fmt.Println("close", f.name)
	return nil
}

type Tag struct{ n int }

func (t Tag) Show(prefix string, rest ...int) { fmt.Println(prefix, t.n, rest) }

type logger struct{ lines []string }

func (l *logger) Add(parts ...string) { l.lines = append(l.lines, strings.Join(parts, "+")) }

func openAll(names []string) {
	for _, n := range names {
		f := &File{n}
		defer f.Close()
	}
	fmt.Println("opened", len(names))
}

func closers() {
	var cs []io.Closer
	for _, n := range []string{"x", "y"} {
		cs = append(cs, &File{n})
	}
	for _, c := range cs {
		defer c.Close()
	}
}

func tags() {
	t := &Tag{}
	for i := 0; i < 3; i++ {
		t.n = i * 10
		defer t.Show("tag", i, i*i)
	}
	t.n = 99
}

func logs() *logger {
	l := &logger{}
	func() {
		for i, w := range []string{"a", "b"} {
			parts := []string{w, fmt.Sprint(i)}
			defer l.Add(parts...)
		}
	}()
	return l
}

func main() {
	openAll([]string{"a", "b", "c"})
	closers()
	tags()
	fmt.Println(logs().lines)
	var sb strings.Builder
	func() {
		for _, s := range []string{"1", "2", "3"} {
			defer sb.WriteString(s)
		}
	}()
	fmt.Println(sb.String())
}
