//go:build ignore

// Pointer receivers change the receiver; value receivers get a copy.
package main

import "fmt"

type Counter struct{ n int }

func (c Counter) IncCopy() { c.n++ }
func (c *Counter) Inc()    { c.n++ }
func (c Counter) Get() int { return c.n }

func main() {
	var c Counter
	c.IncCopy()
	fmt.Println(c.Get())
	c.Inc() // (&c).Inc()
	c.Inc()
	fmt.Println(c.Get())
	p := &c
	p.Inc()
	fmt.Println(p.Get(), c.n) // (*p).Get()
}
