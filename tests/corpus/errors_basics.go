//go:build ignore

// Functions return an error as their last result; nil means success.
package main

import (
	"errors"
	"fmt"
	"strconv"
)

func parseAge(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("age %q: %w", s, err)
	}
	if n < 0 {
		return 0, errors.New("age is negative")
	}
	return n, nil
}

func main() {
	for _, in := range []string{"42", "-1", "old"} {
		if age, err := parseAge(in); err != nil {
			fmt.Println("error:", err)
		} else {
			fmt.Println("age", age)
		}
	}
}
