//go:build ignore

// Interface values compare equal when type and value both match.
package main

import "fmt"

type A int
type B int

func main() {
	var x, y any = A(1), A(1)
	var z any = B(1)
	fmt.Println(x == y, x == z, x == any(1))
	var e1, e2 error
	fmt.Println(e1 == e2)
	m := map[any]string{1: "int", "1": "string", A(1): "A"}
	fmt.Println(m[1], m["1"], m[A(1)], len(m))
}
