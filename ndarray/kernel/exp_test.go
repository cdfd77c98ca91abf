package kernel

import (
	"math"
	"testing"
)

// TestExpF32 checks ExpF32 against math.Exp, bit for bit, on every
// implementation: over float32 bit patterns of both signs sampled every
// few units in the last place (all values of the vector kernel's range,
// and those beyond it, which take math.Exp's other branches), the
// special values, steps that mix values in and out of the kernel's range,
// in place, and lengths around its step.
func TestExpF32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		const stride = 61
		var src []float32
		for b := uint32(0); b < 1<<31-stride; b += stride {
			src = append(src, math.Float32frombits(b), math.Float32frombits(b|1<<31))
		}
		special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, expLimit, -expLimit,
			float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
			math.Nextafter32(expLimit, 1000), math.Nextafter32(-expLimit, -1000), 88.72, 88.73, -87.3, -103.97, -103.98}
		for _, v := range special {
			// Alone in a step, and mixed into one of ordinary values.
			src = append(src, v, 0.5, -0.25, 3, -7, 1e-3, -20, 10, v)
		}
		check := func(dst, src []float32) {
			t.Helper()
			for i, v := range src {
				want := float32(math.Exp(float64(v)))
				if got := dst[i]; math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
					t.Fatalf("ExpF32(%v (%#x)) = %v (%#x), math.Exp gives %v (%#x)", v, math.Float32bits(v), got, math.Float32bits(got), want, math.Float32bits(want))
				}
			}
		}
		dst := make([]float32, len(src))
		ExpF32(dst, src)
		check(dst, src)
		for n := range 2*expStep + 2 {
			in := append([]float32(nil), src[1000:1000+n]...)
			ExpF32(in, in)
			check(in, src[1000:1000+n])
		}
	})
}

// BenchmarkExpF32 times ExpF32 on a softmax's shifted scores (LeNet's
// loss: 64 images of 10 classes).
func BenchmarkExpF32(b *testing.B) {
	src := make([]float32, 640)
	for i := range src {
		src[i] = -float32(i%13) * 0.37
	}
	dst := make([]float32, len(src))
	for b.Loop() {
		ExpF32(dst, src)
	}
}
