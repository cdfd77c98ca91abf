//go:build ignore

// Running tasks concurrently and keeping the first error, by task order.
package main

import (
	"errors"
	"fmt"
	"sync"
)

func task(i int) error {
	if i%3 == 2 {
		return fmt.Errorf("task %d failed", i)
	}
	return nil
}

func main() {
	errs := make([]error, 6)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = task(i)
		}()
	}
	wg.Wait()
	fmt.Println(errors.Join(errs...))
	for i, err := range errs {
		if err != nil {
			fmt.Println("first failure:", i)
			break
		}
	}
}
