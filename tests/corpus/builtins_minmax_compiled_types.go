//go:build ignore

// min and max of values of types from the standard library
// (time.Duration, time.Month), as a queue simulation uses them.
package main

import (
	"fmt"
	"time"
)

type customer struct {
	arrive  time.Duration
	service time.Duration
}

type teller struct{ freeAt time.Duration }

func main() {
	customers := []customer{
		{0, 4 * time.Minute}, {1 * time.Minute, 3 * time.Minute},
		{2 * time.Minute, 6 * time.Minute}, {9 * time.Minute, 2 * time.Minute},
	}
	tellers := []teller{{}, {}}
	var longest time.Duration
	for _, c := range customers {
		best := 0
		for i, t := range tellers {
			if t.freeAt < tellers[best].freeAt {
				best = i
			}
		}
		start := max(c.arrive, tellers[best].freeAt)
		wait := start - c.arrive
		longest = max(longest, wait)
		tellers[best].freeAt = start + c.service
		fmt.Printf("arrive %v start %v wait %v at teller %d\n", c.arrive, start, wait, best)
	}
	fmt.Println("longest wait:", longest, "last done:", max(tellers[0].freeAt, tellers[1].freeAt))
	fmt.Println(min(time.March, time.Month(2)), max(time.January, time.December, time.June))
	a, b := 1500*time.Millisecond, 2*time.Second
	fmt.Println(min(a, b), int64(max(a, b)), max(a, 3))
}
