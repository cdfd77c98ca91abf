package ndarray

import (
	"errors"
	"testing"
)

// TestHugeShapeIsAnError checks that a shape beyond MaxSize is a shape
// error, not an allocation that exhausts memory.
func TestHugeShapeIsAnError(t *testing.T) {
	err := Try(func() { Zeros(100000, 100000, 100) })
	if !errors.Is(err, ErrShape) {
		t.Fatalf("Zeros(1e5, 1e5, 100): %v, want ErrShape", err)
	}
}
