//go:build ignore

// errors.Join collects several errors; Is matches any of them.
package main

import (
	"errors"
	"fmt"
)

var (
	ErrA = errors.New("first problem")
	ErrB = errors.New("second problem")
)

func validate(name string, age int) error {
	var errs []error
	if name == "" {
		errs = append(errs, ErrA)
	}
	if age < 0 {
		errs = append(errs, ErrB)
	}
	return errors.Join(errs...)
}

func main() {
	err := validate("", -1)
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrA), errors.Is(err, ErrB))
	fmt.Println(validate("x", 1) == nil)
}
