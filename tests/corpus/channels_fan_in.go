//go:build ignore

// Fan-in: several producers into one channel; the results are sorted before printing.
package main

import (
	"fmt"
	"sort"
	"sync"
)

func producer(id int, out chan<- string, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < 2; i++ {
		out <- fmt.Sprintf("p%d-%d", id, i)
	}
}

func main() {
	out := make(chan string)
	var wg sync.WaitGroup
	for id := 0; id < 3; id++ {
		wg.Add(1)
		go producer(id, out, &wg)
	}
	go func() { wg.Wait(); close(out) }()
	var all []string
	for s := range out {
		all = append(all, s)
	}
	sort.Strings(all)
	fmt.Println(all)
}
