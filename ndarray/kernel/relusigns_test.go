package kernel

import (
	"fmt"
	"math"
	"testing"
)

// TestReluSigns checks ReluSigns and ReluGradSigns against Relu and
// ReluGrad bit for bit, with signed zeros, infinities and NaNs among the
// values: the outputs, the signs (the outputs that are positive, the
// bits past the last value clear), and the gradients, with the outputs
// standing for x (an in-place ReLU) and, for slopes >= 0, the inputs;
// in place (dx = dy), and from signs recorded in parts of 64 values.
func TestReluSigns(t *testing.T) {
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32}
	forEachImpl(t, func(t *testing.T) {
		for _, slope := range []float32{0, 0.1, -2} {
			for _, n := range vecLengths {
				t.Run(fmt.Sprintf("slope=%g/%d", slope, n), func(t *testing.T) {
					rng := newRand(uint64(n + 5))
					x, dy := randSlice(rng, n), randSlice(rng, n)
					for i := range x {
						if rng.IntN(4) == 0 {
							x[i] = specials[rng.IntN(len(specials))]
						}
						if rng.IntN(8) == 0 {
							dy[i] = specials[rng.IntN(len(specials))]
						}
					}
					got, want := make([]float32, n+1), make([]float32, n+1)
					got[n], want[n] = sentinel, sentinel
					signs := make([]uint64, SignWords(n)+1)
					for i := range signs {
						signs[i] = ^uint64(0) // stale bits, to be overwritten
					}
					ReluSigns(got, x, slope, signs[:SignWords(n)])
					Relu(want, x, slope)
					checkBits(t, "ReluSigns", got, want)
					for i := range SignWords(n) * 64 {
						bit := signs[i/64]>>(i%64)&1 == 1
						if pos := i < n && want[i] > 0; bit != pos {
							t.Fatalf("sign %d = %v, want %v (output %g)", i, bit, pos, want[i])
						}
					}
					if signs[SignWords(n)] != ^uint64(0) {
						t.Fatalf("the word past the signs was written")
					}
					gotG, wantG := make([]float32, n+1), make([]float32, n+1)
					gotG[n], wantG[n] = sentinel, sentinel
					ReluGradSigns(gotG, dy, signs, slope)
					ReluGrad(wantG, dy, want[:n], slope)
					checkBits(t, "ReluGradSigns against the outputs", gotG, wantG)
					if slope >= 0 {
						ReluGrad(wantG, dy, x, slope)
						checkBits(t, "ReluGradSigns against the inputs", gotG, wantG)
					}
					inPlace := append([]float32(nil), dy...)
					ReluGradSigns(inPlace, inPlace, signs, slope)
					checkBits(t, "ReluGradSigns in place", inPlace, gotG[:n])
					// In parts of 64 values, as goroutines share a blob.
					parts := make([]uint64, SignWords(n))
					y := append([]float32(nil), x...)
					for lo := 0; lo < n; lo += 128 {
						hi := min(n, lo+128)
						ReluSigns(y[lo:hi], y[lo:hi], slope, parts[lo/64:])
					}
					checkBits(t, "ReluSigns in parts, in place", y, want[:n])
					for i, w := range parts {
						if w != signs[i] {
							t.Fatalf("signs in parts: word %d = %#x, want %#x", i, w, signs[i])
						}
					}
				})
			}
		}
	})
}

func TestReluSignsPanics(t *testing.T) {
	expectPanic(t, "kernel: ReluSigns: len(signs) = 1, want >= SignWords(65) = 2", func() {
		ReluSigns(make([]float32, 65), make([]float32, 65), 0, make([]uint64, 1))
	})
	expectPanic(t, "kernel: ReluGradSigns: len(dx) = 3", func() {
		ReluGradSigns(make([]float32, 3), make([]float32, 4), make([]uint64, 1), 0)
	})
}
