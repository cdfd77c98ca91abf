//go:build ignore

// An RWMutex lets readers share while a writer waits.
package main

import (
	"fmt"
	"sync"
)

type Cache struct {
	mu sync.RWMutex
	m  map[int]int
}

func (c *Cache) Get(k int) (int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *Cache) Put(k, v int) {
	c.mu.Lock()
	c.m[k] = v
	c.mu.Unlock()
}

func main() {
	c := &Cache{m: map[int]int{}}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); c.Put(i, i*i) }()
		go func() { defer wg.Done(); c.Get(i) }()
	}
	wg.Wait()
	v, ok := c.Get(7)
	fmt.Println(v, ok, len(c.m))
}
