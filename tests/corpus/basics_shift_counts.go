//go:build ignore

// Shifts by variable counts: a signed count is allowed, and a negative
// one panics with a run-time error wherever the shift is, where a count
// too large shifts every bit out.
package main

import "fmt"

func try(what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			err, ok := r.(error)
			fmt.Printf("%-10s panics: %v %v\n", what, ok, err)
		}
	}()
	f()
	fmt.Printf("%-10s ok\n", what)
}

func bits(x uint16) (n int) {
	for i := 0; i < 16; i++ {
		if x&(1<<i) != 0 {
			n++
		}
	}
	return n
}

func main() {
	fmt.Println(bits(0xF0F1), 1<<uint(3), int8(1)<<6)
	k := -2
	big := 70
	var u uint = 5
	x := 1
	fmt.Println(x<<big, -8>>big, x<<u, 1<<(k+5))
	try("x << k", func() { fmt.Println(x << k) })
	try("x >> k", func() { fmt.Println(x >> k) })
	try("x <<= k", func() { x <<= k })
	try("in a loop", func() {
		s := 0
		for i := 3; i >= -1; i-- {
			s += 1 << i
			fmt.Print(s, " ")
		}
	})
	try("else if", func() {
		n := -1
		if n > 0 {
			fmt.Println("no")
		} else if 1<<n > 0 {
			fmt.Println("no")
		}
	})
	try("call", func() {
		count := func() int { return -3 }
		fmt.Println(x << count())
	})
	try("int8", func() {
		var c int8 = -1
		y := uint64(1) << c
		fmt.Println(y)
	})
	try("for cond", func() {
		n := 0
		for j := 2; 1<<j > 0 && n < 5; j-- {
			n++
		}
		fmt.Println(n)
	})
}
