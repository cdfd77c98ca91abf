//go:build ignore

// An LRU cache built on container/list and a map.
package main

import (
	"container/list"
	"fmt"
)

type entry struct {
	key string
	val int
}

type LRU struct {
	cap   int
	order *list.List
	items map[string]*list.Element
}

func NewLRU(n int) *LRU { return &LRU{n, list.New(), map[string]*list.Element{}} }

func (c *LRU) Get(k string) (int, bool) {
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*entry).val, true
	}
	return 0, false
}

func (c *LRU) Put(k string, v int) {
	if e, ok := c.items[k]; ok {
		e.Value.(*entry).val = v
		c.order.MoveToFront(e)
		return
	}
	c.items[k] = c.order.PushFront(&entry{k, v})
	if c.order.Len() > c.cap {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*entry).key)
	}
}

func main() {
	c := NewLRU(2)
	c.Put("a", 1)
	c.Put("b", 2)
	c.Get("a")
	c.Put("c", 3)
	for _, k := range []string{"a", "b", "c"} {
		v, ok := c.Get(k)
		fmt.Println(k, v, ok)
	}
}
