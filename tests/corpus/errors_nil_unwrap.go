//go:build ignore

package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

type wrapNil struct{}

func (wrapNil) Error() string { return "wrapNil" }
func (wrapNil) Unwrap() error { return nil }

func main() {
	var err error = &os.PathError{Op: "open", Path: "x"} // Unwrap returns nil
	fmt.Println(errors.Is(err, io.EOF), errors.Is(err, fs.ErrNotExist))
	var pe *os.PathError
	fmt.Println(errors.As(err, &pe), pe.Op)
	fmt.Println(errors.Unwrap(err) == nil)
	w := fmt.Errorf("load: %w", err)
	fmt.Println(errors.Is(w, io.EOF), errors.As(w, &pe), pe.Path)
	_, err = os.Open("/nonexistent/file")
	fmt.Println(errors.Is(err, fs.ErrNotExist), errors.Is(err, os.ErrPermission))
	fmt.Println(errors.Is(wrapNil{}, io.EOF), errors.Is(fmt.Errorf("x: %w", wrapNil{}), wrapNil{}))
	var le *os.LinkError
	fmt.Println(errors.As(w, &le), le == nil)
}
