//go:build ignore

// A generic cache with expiry: a generic type whose methods look values up
// in a map of another generic type by comma-ok, under a mutex, from
// several goroutines; comma-ok lookups that miss, into new and existing
// variables; and pointers to instances of the generic type declared
// without a value.
package main

import (
	"fmt"
	"sync"
	"time"
)

type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	items map[K]entry[V]
	ttl   time.Duration
}

type entry[V any] struct {
	val     V
	expires time.Time
}

func NewCache[K comparable, V any](ttl time.Duration) *Cache[K, V] {
	return &Cache[K, V]{items: make(map[K]entry[V]), ttl: ttl}
}

func (c *Cache[K, V]) Set(k K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[k] = entry[V]{v, now.Add(c.ttl)}
}

func (c *Cache[K, V]) Get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok || now.After(e.expires) {
		var zero V
		return zero, false
	}
	return e.val, true
}

func main() {
	c := NewCache[string, []int](time.Minute)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Set("a", []int{1, 2}, t0)
	v, ok := c.Get("a", t0.Add(30*time.Second))
	fmt.Println(v, ok)
	v, ok = c.Get("a", t0.Add(2*time.Minute))
	fmt.Println(v, ok, v == nil)
	var wg sync.WaitGroup
	ci := NewCache[int, int](time.Hour)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ci.Set(i, i*i, t0)
		}()
	}
	wg.Wait()
	sum := 0
	for i := range 20 {
		x, _ := ci.Get(i, t0)
		sum += x
	}
	fmt.Println(sum, len(ci.items))
	m := map[string]int{"a": 1}
	n, found := 7, true
	for _, k := range []string{"a", "b", "a"} {
		n, found = m[k]
		fmt.Print(n, found, " ")
	}
	k := "a"
	k2, ok := m[k]
	fmt.Println(k2, ok)
	var a, b *Cache[string, int]
	fmt.Println(a == nil, b == nil, a == b)
	a = NewCache[string, int](time.Second)
	fmt.Println(a == b, len(a.items))
}
