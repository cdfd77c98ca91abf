//go:build ignore

// sync.Once runs an initialisation exactly once, however many goroutines ask.
package main

import (
	"fmt"
	"sync"
)

func main() {
	var once sync.Once
	var wg sync.WaitGroup
	inits := 0
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once.Do(func() { inits++ })
		}()
	}
	wg.Wait()
	fmt.Println("initialised", inits, "time(s)")
	get := sync.OnceValue(func() int { return 6 * 7 })
	fmt.Println(get(), get())
}
