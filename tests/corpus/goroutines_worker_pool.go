//go:build ignore

// A pool of workers reads jobs from a channel; results are collected by index.
package main

import (
	"fmt"
	"sync"
)

type job struct{ id, n int }
type result struct{ id, sum int }

func worker(jobs <-chan job, results chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		s := 0
		for k := 1; k <= j.n; k++ {
			s += k
		}
		results <- result{j.id, s}
	}
}

func main() {
	jobs := make(chan job)
	results := make(chan result, 10)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go worker(jobs, results, &wg)
	}
	go func() {
		for i := 0; i < 10; i++ {
			jobs <- job{i, i * 10}
		}
		close(jobs)
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	sums := make([]int, 10)
	for r := range results {
		sums[r.id] = r.sum
	}
	fmt.Println(sums)
}
