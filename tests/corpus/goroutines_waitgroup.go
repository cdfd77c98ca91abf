//go:build ignore

// Goroutines joined with a WaitGroup, each writing its own slot.
package main

import (
	"fmt"
	"sync"
)

func square(i int, out []int, wg *sync.WaitGroup) {
	defer wg.Done()
	out[i] = i * i
}

func main() {
	var wg sync.WaitGroup
	out := make([]int, 8)
	for i := range out {
		wg.Add(1)
		go square(i, out, &wg)
	}
	wg.Wait()
	fmt.Println(out)
}
