//go:build ignore

// A struct type may embed an interface: the interface's methods are
// promoted, and the struct's own methods override some of them (a
// reverse order for sort, a counting reader, an error with more fields).
package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

type rev struct{ sort.Interface }

func (r rev) Less(i, j int) bool { return r.Interface.Less(j, i) }

type counting struct {
	io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.n += n
	return n, err
}

type upper struct{ io.Reader }

type opErr struct {
	error
	Op string
}

func main() {
	xs := []int{3, 1, 2}
	sort.Sort(rev{sort.IntSlice(xs)})
	fmt.Println(xs)
	c := &counting{Reader: strings.NewReader("hello world")}
	b, _ := io.ReadAll(c)
	fmt.Println(string(b), c.n)
	u := upper{strings.NewReader("abc")}
	b2, _ := io.ReadAll(u)
	fmt.Println(string(b2))
	var err error = opErr{errors.New("boom"), "read"}
	fmt.Println(err, err.Error())
	var oe opErr
	fmt.Println(errors.As(err, &oe), oe.Op)
}
