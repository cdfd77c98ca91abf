//go:build ignore

// errors.As with targets of interface types the program declares: the
// first error in the chain whose type has the methods is taken.
package main

import (
	"errors"
	"fmt"
)

type TimeoutError struct{ Op string }

func (t TimeoutError) Error() string { return t.Op + ": timeout" }
func (t TimeoutError) Timeout() bool { return true }

type TempError struct {
	Code  int
	Retry int
}

func (t *TempError) Error() string   { return fmt.Sprintf("temporary failure %d", t.Code) }
func (t *TempError) Temporary() bool { return t.Retry > 0 }

type timeouter interface{ Timeout() bool }

type temporary interface {
	error
	Temporary() bool
}

func classify(err error) string {
	var to timeouter
	if errors.As(err, &to) {
		return fmt.Sprintf("timeout (%v)", to.Timeout())
	}
	var tmp temporary
	if errors.As(err, &tmp) {
		return fmt.Sprintf("temporary=%v: %v", tmp.Temporary(), tmp)
	}
	var anon interface{ Unwrap() error }
	if errors.As(err, &anon) {
		return "wrapped: " + anon.Unwrap().Error()
	}
	return "other: " + err.Error()
}

func main() {
	errs := []error{
		TimeoutError{"read"},
		fmt.Errorf("fetch: %w", TimeoutError{"dial"}),
		&TempError{503, 2},
		fmt.Errorf("db: %w", fmt.Errorf("query: %w", &TempError{429, 0})),
		errors.New("plain"),
		errors.Join(errors.New("a"), &TempError{500, 1}),
	}
	for i, err := range errs {
		fmt.Println(i, classify(err))
	}
	var to interface{ Timeout() bool }
	fmt.Println(errors.As(errs[1], &to), to)
}
