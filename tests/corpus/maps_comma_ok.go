//go:build ignore

// The two-value index tells a missing key from a zero value; delete removes a key.
package main

import "fmt"

func main() {
	m := map[string]int{"zero": 0}
	v, ok := m["zero"]
	fmt.Println(v, ok)
	v, ok = m["missing"]
	fmt.Println(v, ok)
	if n, found := m["zero"]; found {
		fmt.Println("found", n)
	}
	delete(m, "zero")
	delete(m, "never there")
	_, ok = m["zero"]
	fmt.Println(ok, len(m))
}
