//go:build ignore

// Atomic counters need no lock.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func main() {
	var ops atomic.Int64
	var hits int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := 0; c < 100; c++ {
				ops.Add(1)
				atomic.AddInt32(&hits, 2)
			}
		}()
	}
	wg.Wait()
	fmt.Println(ops.Load(), atomic.LoadInt32(&hits))
}
