//go:build ignore

// A context stops goroutines when it is canceled.
package main

import (
	"context"
	"fmt"
	"sync"
)

func generate(ctx context.Context, out chan<- int) {
	defer close(out)
	for i := 0; ; i++ {
		select {
		case out <- i:
		case <-ctx.Done():
			return
		}
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan int)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); generate(ctx, ch) }()
	sum := 0
	for v := range ch {
		sum += v
		if v == 9 {
			cancel()
			break
		}
	}
	wg.Wait()
	fmt.Println(sum, ctx.Err())
}
