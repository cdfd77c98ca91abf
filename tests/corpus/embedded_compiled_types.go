//go:build ignore

// A struct that embeds a standard library type (bytes.Buffer,
// sync.Mutex, strings.Builder) satisfies that type's interfaces through
// the promoted methods: a pointer to it is an io.Writer, a sync.Locker.
package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

type Doc struct {
	bytes.Buffer
	title string
}

type SafeMap struct {
	sync.Mutex
	m map[string]int
}

type Report struct {
	*strings.Builder
	lines int
}

func writeAll(w io.Writer, parts ...string) {
	for _, p := range parts {
		fmt.Fprint(w, p)
	}
}

func withLock(l sync.Locker, f func()) {
	l.Lock()
	defer l.Unlock()
	f()
}

func main() {
	d := &Doc{title: "notes"}
	fmt.Fprintf(d, "%s: %d items", d.title, 3)
	writeAll(d, "; ", "more")
	fmt.Println(d.String(), d.Len())

	sm := &SafeMap{m: map[string]int{}}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			withLock(sm, func() { sm.m[fmt.Sprint(i%3)]++ })
		}()
	}
	wg.Wait()
	fmt.Println(sm.m["0"], sm.m["1"], sm.m["2"])

	r := &Report{Builder: &strings.Builder{}}
	var w io.Writer = r
	fmt.Fprintln(w, "line one")
	io.WriteString(r, "line two\n")
	fmt.Print(r.String())
	var sw io.StringWriter = d
	sw.WriteString("!")
	fmt.Println(d.String())
}
