//go:build ignore

// A method value, a deferred call and a goroutine's call of a method
// with a value receiver, taken through a pointer, copy the value at once.
package main

import (
	"fmt"
	"sync"
)

type Counter struct {
	name string
	n    int
}

func (c Counter) Get() int { return c.n }

func (c Counter) Show(tag string) { fmt.Println(tag, c.name, c.n) }

func (c *Counter) Inc() { c.n++ }

func main() {
	p := &Counter{name: "p", n: 1}
	get := p.Get
	inc := p.Inc
	inc()
	inc()
	fmt.Println(get(), p.Get(), p.n)

	v := Counter{name: "v", n: 10}
	vget := v.Get
	v.n = 20
	fmt.Println(vget(), v.Get())

	getters := []func() int{}
	for i := range 3 {
		p.n = i * 100
		getters = append(getters, p.Get)
	}
	for _, g := range getters {
		fmt.Print(g(), " ")
	}
	fmt.Println()

	func() {
		defer p.Show("deferred")
		p.n = 999
		p.Show("now")
	}()

	var wg sync.WaitGroup
	var mu sync.Mutex
	results := map[string]int{}
	q := &Counter{name: "q", n: 5}
	wg.Add(1)
	record := func(name string, f func() int) {
		defer wg.Done()
		mu.Lock()
		results[name] = f()
		mu.Unlock()
	}
	go record("q", q.Get)
	q.n = 6
	wg.Wait()
	fmt.Println(results["q"], q.n)

	var nilp *Counter
	func() {
		defer func() { fmt.Println("recovered:", recover()) }()
		g := nilp.Get
		fmt.Println("not reached", g())
	}()
}
