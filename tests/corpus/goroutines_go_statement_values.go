//go:build ignore

// A go statement evaluates the function, its receiver and its arguments
// where it runs: a method call on a loop variable runs that iteration's
// receiver, and values of an interface type reach the new goroutine as
// they are, through a named function, a method or a function literal.
package main

import (
	"fmt"
	"sort"
	"sync"
)

type Shape interface{ Area() float64 }
type Sq struct{ S float64 }

func (s Sq) Area() float64 { return s.S * s.S }

type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Inc(wg *sync.WaitGroup) { defer wg.Done(); c.mu.Lock(); c.n++; c.mu.Unlock() }

type res struct {
	mu  sync.Mutex
	out []string
}

func (r *res) add(s string) { r.mu.Lock(); r.out = append(r.out, s); r.mu.Unlock() }

type job struct{ n int }

func (j job) run(r *res, wg *sync.WaitGroup) { defer wg.Done(); r.add(fmt.Sprint("job ", j.n)) }

func report(r *res, wg *sync.WaitGroup, s Shape) {
	defer wg.Done()
	r.add(fmt.Sprint("area ", s.Area()))
}

func sum[T int | float64](r *res, wg *sync.WaitGroup, xs ...T) {
	defer wg.Done()
	var t T
	for _, x := range xs {
		t += x
	}
	r.add(fmt.Sprint("sum ", t))
}

func mk(tag string) func(*res, *sync.WaitGroup) {
	return func(r *res, wg *sync.WaitGroup) { defer wg.Done(); r.add(tag) }
}

func main() {
	var wg sync.WaitGroup
	r := &res{}
	shapes := []Shape{Sq{1}, Sq{2}, Sq{3}}
	for _, s := range shapes {
		wg.Add(1)
		go report(r, &wg, s)
	}
	var cs [3]Counter
	for i := range cs {
		wg.Add(2)
		go cs[i].Inc(&wg)
		go (&cs[i]).Inc(&wg)
	}
	c := Counter{}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go c.Inc(&wg)
	}
	wg.Add(2)
	go sum(r, &wg, 1, 2, 3)
	go sum[float64](r, &wg, []float64{1.5, 2}...)
	for _, j := range []job{{1}, {2}, {3}} {
		wg.Add(1)
		go j.run(r, &wg)
	}
	for _, tag := range []string{"a", "b"} {
		wg.Add(1)
		go mk(tag)(r, &wg)
	}
	for _, s := range shapes[:2] {
		wg.Add(1)
		go func() { defer wg.Done(); r.add(fmt.Sprint("closure ", s.Area())) }()
	}
	wg.Wait()
	sort.Strings(r.out)
	fmt.Println(r.out)
	fmt.Println(cs[0].n, cs[1].n, cs[2].n, c.n)
	done := make(chan float64)
	var s Shape = Sq{5}
	go func(x Shape) { done <- x.Area() }(s)
	fmt.Println(<-done)
}
