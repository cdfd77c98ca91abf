//go:build ignore

// math/rand with a fixed seed gives the same sequence every run.
package main

import (
	"fmt"
	"math/rand"
)

func main() {
	r := rand.New(rand.NewSource(42))
	a := []int{r.Intn(100), r.Intn(100), r.Intn(100)}
	r2 := rand.New(rand.NewSource(42))
	b := []int{r2.Intn(100), r2.Intn(100), r2.Intn(100)}
	fmt.Println(a, a[0] == b[0] && a[1] == b[1] && a[2] == b[2])
	p := r.Perm(5)
	fmt.Println(len(p))
}
