//go:build ignore

package main

import (
	"fmt"
	"runtime"
)

func rate() int { return runtime.MemProfileRate }

func main() {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1024
	fmt.Println(runtime.MemProfileRate)
	runtime.MemProfileRate *= 2
	runtime.MemProfileRate++
	fmt.Println(runtime.MemProfileRate, rate())
	n, r := 0, 0
	n, runtime.MemProfileRate = 3, 4096
	r = runtime.MemProfileRate
	fmt.Println(n, r)
	cur := runtime.MemProfileRate
	var twice = runtime.MemProfileRate * 2
	fmt.Println(cur, twice, runtime.MemProfileRate > 4000)
	switch runtime.MemProfileRate {
	case 4096:
		fmt.Println("4096")
	default:
		fmt.Println("other")
	}
	p := &runtime.MemProfileRate
	*p = 7
	fmt.Println(runtime.MemProfileRate, rate())
	runtime.MemProfileRate = old
	fmt.Println(runtime.MemProfileRate == old)
}
