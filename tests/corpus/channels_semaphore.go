//go:build ignore

// A buffered channel as a semaphore limits how many goroutines run at once.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func main() {
	sem := make(chan struct{}, 2)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			running.Add(-1)
			<-sem
		}()
	}
	wg.Wait()
	fmt.Println(peak.Load() <= 2, running.Load())
}
