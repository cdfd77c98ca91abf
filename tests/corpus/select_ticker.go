//go:build ignore

// A ticker's channel in a select, stopped after a fixed number of ticks.
package main

import (
	"fmt"
	"time"
)

func main() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	ticks := 0
	stop := make(chan struct{})
	for ticks < 3 {
		select {
		case <-t.C:
			ticks++
		case <-stop:
			return
		}
	}
	fmt.Println("ticks:", ticks)
}
