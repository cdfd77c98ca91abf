//go:build ignore

// Variables set from a channel receive are variables like any other:
// assigned again, incremented, their fields set.
package main

import (
	"errors"
	"fmt"
	"sync"
)

type Job struct {
	ID     int
	Status string
}

func worker(jobs <-chan Job, results chan<- Job, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		j, ok := <-jobs
		if !ok {
			return
		}
		j.Status = "done"
		results <- j
	}
}

func main() {
	ch := make(chan int, 4)
	for i := 1; i <= 4; i++ {
		ch <- i
	}
	n := <-ch
	n = n * 100
	n++
	var m int = <-ch
	m += 5
	x := 0
	x = <-ch
	x--
	a, b := <-ch, 7
	a, b = b, a
	fmt.Println(n, m, x, a, b)

	errc := make(chan error, 1)
	errc <- errors.New("first")
	err := <-errc
	fmt.Println(err)
	err = nil
	fmt.Println("err:", err)

	pc := make(chan *Job, 1)
	pc <- &Job{ID: 1}
	p := <-pc
	p.Status = "picked"
	fmt.Println(*p)

	jc := make(chan Job, 1)
	jc <- Job{ID: 2}
	j := <-jc
	j.Status = "copied"
	j.ID += 10
	fmt.Println(j)

	jobs, results := make(chan Job, 3), make(chan Job, 3)
	var wg sync.WaitGroup
	wg.Add(1)
	go worker(jobs, results, &wg)
	for i := 1; i <= 3; i++ {
		jobs <- Job{ID: i}
	}
	close(jobs)
	wg.Wait()
	close(results)
	total := 0
	for r := range results {
		total += r.ID
		r.ID = 0
	}
	fmt.Println("total", total)

	sel := make(chan int, 1)
	sel <- 9
	select {
	case v := <-sel:
		v *= 2
		fmt.Println("selected", v)
	}
}
