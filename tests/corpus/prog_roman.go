//go:build ignore

// Converting integers to Roman numerals and back.
package main

import (
	"fmt"
	"strings"
)

var numerals = []struct {
	v int
	s string
}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"},
	{50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}}

func toRoman(n int) string {
	var b strings.Builder
	for _, nu := range numerals {
		for n >= nu.v {
			b.WriteString(nu.s)
			n -= nu.v
		}
	}
	return b.String()
}

func fromRoman(s string) int {
	vals := map[byte]int{'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
	total := 0
	for i := 0; i < len(s); i++ {
		v := vals[s[i]]
		if i+1 < len(s) && vals[s[i+1]] > v {
			total -= v
		} else {
			total += v
		}
	}
	return total
}

func main() {
	for _, n := range []int{4, 9, 14, 1994, 2024, 3999} {
		r := toRoman(n)
		fmt.Println(n, r, fromRoman(r) == n)
	}
}
