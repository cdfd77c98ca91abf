//go:build ignore

// fmt.Errorf with %w wraps; errors.Unwrap and errors.Is see through the chain.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

var ErrNotReady = errors.New("not ready")

func step(n int) error {
	if n > 2 {
		return fmt.Errorf("step %d: %w", n, ErrNotReady)
	}
	return nil
}

func main() {
	err := fmt.Errorf("pipeline: %w", step(3))
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrNotReady), errors.Unwrap(errors.Unwrap(err)) == ErrNotReady)
	fmt.Println(errors.Is(step(1), ErrNotReady))
	_, err = os.Open("/nonexistent/file.txt")
	fmt.Println(errors.Is(err, fs.ErrNotExist), errors.Is(err, os.ErrNotExist))
}
