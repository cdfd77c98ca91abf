package ndarray

import (
	"errors"
	"fmt"
)

// ErrShape is the sentinel of every shape error: an operation on arrays
// whose shapes do not fit, an index out of range, or a bad axis. Methods of
// Array panic with an error wrapping ErrShape, as slice indexing does in Go;
// use Try to turn such a panic into an error.
var ErrShape = errors.New("ndarray: shape mismatch")

type shapeErr struct{ msg string }

func (e *shapeErr) Error() string { return "ndarray: " + e.msg }
func (e *shapeErr) Unwrap() error { return ErrShape }

func shapeError(format string, args ...any) error {
	return &shapeErr{msg: fmt.Sprintf(format, args...)}
}

// Try calls f and returns the shape error it panicked with, if any. Other
// panics propagate.
func Try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.Is(e, ErrShape) {
				err = e
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}
