//go:build ignore

// A generic LRU cache on container/list: assertions of list values to a
// pointer to an instance of a generic type of two type parameters, in the
// generic code, as values, in comma-ok form and failing.
package main

import (
	"container/list"
	"fmt"
)

type entry[K comparable, V any] struct {
	key K
	val V
}

type LRU[K comparable, V any] struct {
	cap int
	ll  *list.List
	m   map[K]*list.Element
}

func NewLRU[K comparable, V any](n int) *LRU[K, V] {
	return &LRU[K, V]{cap: n, ll: list.New(), m: map[K]*list.Element{}}
}

func (c *LRU[K, V]) Get(k K) (V, bool) {
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*entry[K, V]).val, true
	}
	var zero V
	return zero, false
}

func (c *LRU[K, V]) Put(k K, v V) {
	if e, ok := c.m[k]; ok {
		e.Value.(*entry[K, V]).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.m[k] = c.ll.PushFront(&entry[K, V]{k, v})
	if c.ll.Len() > c.cap {
		last := c.ll.Back()
		c.ll.Remove(last)
		if en, ok := last.Value.(*entry[K, V]); ok {
			delete(c.m, en.key)
		}
	}
}

func (c *LRU[K, V]) Keys() []K {
	var ks []K
	for e := c.ll.Front(); e != nil; e = e.Next() {
		ks = append(ks, e.Value.(*entry[K, V]).key)
	}
	return ks
}

func check[K comparable, V any](x any) {
	defer func() { fmt.Println("recovered:", recover() != nil) }()
	_, ok := x.(*entry[K, V])
	fmt.Println("ok:", ok)
	_ = x.(*entry[K, V])
}

func main() {
	c := NewLRU[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	fmt.Println(c.Get("a"))
	c.Put("c", 3)
	fmt.Println(c.Keys())
	_, ok := c.Get("b")
	fmt.Println(ok)
	c.Put("a", 10)
	fmt.Println(c.Get("a"))
	check[string, int](&entry[string, int]{"x", 1})
	check[string, int]("nope")
}
