//go:build ignore

// Named results start at zero on every call, in loops and after a
// variable that receives the result held a value; deferred calls may
// still change them after a return.
package main

import (
	"errors"
	"fmt"
	"strconv"
)

func Sum[T int | float64](xs []T) (total T) {
	for _, x := range xs {
		total += x
	}
	return
}

type Parser struct{ fails int }

func (p *Parser) Parse(s string) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.fails++
			err = fmt.Errorf("parse %q: %v", s, r)
		}
	}()
	v, err := strconv.Atoi(s)
	if err != nil {
		panic(err.(*strconv.NumError).Err)
	}
	n += v
	return n * 2, nil
}

func counter() (next func() int, reset func()) {
	var c int
	next = func() int { c++; return c }
	reset = func() { c = 0 }
	return
}

func divmod(a, b int) (q, r int) {
	q = a / b
	r = a % b
	return
}

func pair() (_ int, err error) {
	err = errors.New("e")
	return
}

func split(s string) (head, tail string) {
	if len(s) == 0 {
		return
	}
	head += s[:1]
	tail += s[1:]
	return
}

func twice() (a, b int) {
	defer func() { a *= 10 }()
	return divmod(17, 5)
}

var total = 5

// next reads the variable its caller assigns its result to.
func next() (n int) {
	n = total + 1
	return
}

func nextDeferred() (n int) {
	defer func() {}()
	n += total
	return
}

func add(k int) (t int) {
	t += k
	return
}

// parse returns through a variable that shadows its result err, and
// defers a call that reads the results.
func parse(s string) (n int, err error) {
	defer func() {
		if err != nil {
			fmt.Println("deferred sees:", err)
		}
	}()
	if v, err := strconv.Atoi(s); err != nil {
		return 0, err
	} else {
		n = v
	}
	return n * 2, nil
}

func swap(a, b int) (x, y int) {
	defer func() { x *= 10 }()
	{
		x, y := b, a
		return x, y
	}
}

func main() {
	fmt.Println(parse("21"))
	fmt.Println(parse("x"))
	fmt.Println(swap(1, 2))
	total = next()
	fmt.Println(total)
	x := 100
	x = add(1)
	fmt.Println(x)
	y := 10
	y = nextDeferred()
	fmt.Println(y)

	for i := 1; i <= 3; i++ {
		fmt.Println(Sum([]int{i, i}), Sum([]float64{0.5 * float64(i)}))
	}
	p := &Parser{}
	for _, s := range []string{"1", "x", "3", "y"} {
		n, err := p.Parse(s)
		fmt.Println(n, err)
	}
	fmt.Println(p.fails)
	inc, reset := counter()
	inc()
	fmt.Println(inc())
	reset()
	fmt.Println(inc())
	for i := 0; i < 3; i++ {
		q, r := divmod(10+i, 3)
		fmt.Println(q, r)
	}
	for i := 0; i < 2; i++ {
		fmt.Println(pair())
	}
	for _, w := range []string{"go", "", "shell"} {
		h, t := split(w)
		fmt.Printf("%q %q\n", h, t)
	}
	for i := 0; i < 2; i++ {
		fmt.Println(twice())
	}
	sq := func(n int) (out []int) {
		for i := 0; i < n; i++ {
			out = append(out, i*i)
		}
		return
	}
	for i := 1; i <= 3; i++ {
		fmt.Println(sq(i))
	}
}
