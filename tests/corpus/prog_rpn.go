//go:build ignore

// A reverse Polish notation calculator with a stack and errors.
package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

func eval(expr string) (float64, error) {
	var st []float64
	for _, tok := range strings.Fields(expr) {
		switch tok {
		case "+", "-", "*", "/":
			if len(st) < 2 {
				return 0, fmt.Errorf("%q needs two operands", tok)
			}
			a, b := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-2]
			var r float64
			switch tok {
			case "+":
				r = a + b
			case "-":
				r = a - b
			case "*":
				r = a * b
			case "/":
				if b == 0 {
					return 0, errors.New("division by zero")
				}
				r = a / b
			}
			st = append(st, r)
		default:
			v, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				return 0, fmt.Errorf("bad token %q", tok)
			}
			st = append(st, v)
		}
	}
	if len(st) != 1 {
		return 0, fmt.Errorf("%d values left", len(st))
	}
	return st[0], nil
}

func main() {
	for _, e := range []string{"3 4 + 2 *", "5 1 2 + 4 * + 3 -", "1 0 /", "1 +", "2 x", "1 2"} {
		v, err := eval(e)
		fmt.Println(e, "=>", v, err)
	}
}
