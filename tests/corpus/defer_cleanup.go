//go:build ignore

// defer releases resources in the reverse order of acquiring them.
package main

import (
	"fmt"
	"strings"
)

type resource struct {
	name string
	log  *[]string
}

func open(name string, log *[]string) *resource {
	*log = append(*log, "open "+name)
	return &resource{name, log}
}

func (r *resource) Close() { *r.log = append(*r.log, "close "+r.name) }

func use(log *[]string) {
	a := open("a", log)
	defer a.Close()
	b := open("b", log)
	defer b.Close()
	*log = append(*log, "use a and b")
}

func main() {
	var log []string
	use(&log)
	fmt.Println(strings.Join(log, "; "))
}
