package kernel

import (
	"math"
	"testing"
)

// TestLCGFill checks LCGFill against the generator stepped one value at a
// time, on every implementation, for lengths around the vector kernels'
// steps and across calls (the returned state resumes the stream).
func TestLCGFill(t *testing.T) {
	const mul, add = 1664525, 1013904223
	forEachImpl(t, func(t *testing.T) {
		for _, gen := range [][2]uint32{{mul, add}, {22695477, 1}, {1, 0}} {
			state, want := uint32(7), uint32(7)
			for _, n := range []int{0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 200, 50176} {
				dst := make([]float32, n+1)
				dst[n] = -1
				state = LCGFill(dst[:n], state, gen[0], gen[1])
				for i, v := range dst[:n] {
					want = gen[0]*want + gen[1]
					if w := float32(want>>8) / (1 << 24); math.Float32bits(v) != math.Float32bits(w) {
						t.Fatalf("generator %v, length %d, value %d: %g, want %g", gen, n, i, v, w)
					}
				}
				if dst[n] != -1 {
					t.Fatalf("generator %v, length %d: wrote past the end", gen, n)
				}
				if state != want {
					t.Fatalf("generator %v, length %d: state %d, want %d", gen, n, state, want)
				}
			}
		}
	})
}

// BenchmarkLCGFill fills LeNet's synthetic batch (64 images of 28×28),
// nanoseconds per batch: the vector kernels against one value at a time.
func BenchmarkLCGFill(b *testing.B) {
	dst := make([]float32, 64*28*28)
	b.Run("one-at-a-time", func(b *testing.B) {
		state := uint32(1)
		for b.Loop() {
			state = lcgFillGo(dst, state, 1664525, 1013904223)
		}
	})
	for _, name := range Implementations() {
		b.Run(name, func(b *testing.B) {
			prev, err := SetImplementation(name)
			if err != nil {
				b.Fatal(err)
			}
			defer SetImplementation(prev)
			state := uint32(1)
			for b.Loop() {
				state = LCGFill(dst, state, 1664525, 1013904223)
			}
		})
	}
}
