//go:build ignore

// Splitting a sum across goroutines and combining partial results in order.
package main

import (
	"fmt"
	"sync"
)

func main() {
	nums := make([]int, 1000)
	for i := range nums {
		nums[i] = i + 1
	}
	const parts = 4
	partial := make([]int, parts)
	var wg sync.WaitGroup
	size := len(nums) / parts
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for _, v := range nums[p*size : (p+1)*size] {
				partial[p] += v
			}
		}(p)
	}
	wg.Wait()
	total := 0
	for _, s := range partial {
		total += s
	}
	fmt.Println(partial, total)
}
