//go:build ignore

package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

type Named struct {
	*bytes.Buffer
	Name string
}

type Doc struct {
	*strings.Builder
	Title string
}

type Counter struct {
	sync.Mutex
	n int
}

type Lengther interface{ Len() int }

type ByLen struct {
	sort.StringSlice
}

func total(ls ...Lengther) int {
	t := 0
	for _, l := range ls {
		t += l.Len()
	}
	return t
}

func main() {
	n := Named{bytes.NewBufferString("hello"), "greeting"}
	fmt.Println(n.Len(), n.String(), n.Name)
	var l Lengther = n
	fmt.Println(l.Len())
	var st fmt.Stringer = n
	fmt.Println(st.String())
	var w io.Writer = n
	fmt.Fprint(w, ", world")
	fmt.Println(n)
	fmt.Printf("%v|%s|%d\n", n, n, n.Len())
	d := Doc{&strings.Builder{}, "t"}
	d.WriteString("body")
	fmt.Println(d, total(n, d))
	c := &Counter{}
	var mu sync.Locker = c
	mu.Lock()
	c.n++
	mu.Unlock()
	fmt.Println(c.n)
	b := ByLen{sort.StringSlice{"pear", "fig", "apple"}}
	sort.Sort(b)
	fmt.Println(b.StringSlice, b.Len())
	var r io.Reader = n
	data, _ := io.ReadAll(r)
	fmt.Println(string(data), n.Len())
}
