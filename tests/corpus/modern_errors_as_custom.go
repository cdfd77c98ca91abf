//go:build ignore

// errors.As with an error type declared in the program, by value and by pointer.
package main

import (
	"errors"
	"fmt"
)

type CodeErr struct{ Code int }

func (e CodeErr) Error() string { return fmt.Sprintf("code %d", e.Code) }

type PathErr struct{ Path string }

func (e *PathErr) Error() string { return "bad path " + e.Path }

func main() {
	err := fmt.Errorf("outer: %w", CodeErr{404})
	var ce CodeErr
	fmt.Println(errors.As(err, &ce), ce.Code)
	err2 := errors.Join(errors.New("x"), &PathErr{"/tmp"})
	var pe *PathErr
	fmt.Println(errors.As(err2, &pe), pe.Path)
	fmt.Println(errors.As(err, &pe))
}
