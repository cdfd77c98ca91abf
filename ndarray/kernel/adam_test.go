package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// TestAdamStep compares every implementation's AdamStep with adamGo, bit
// for bit, on lengths around the vectors and unrolled steps, unaligned
// starts, and special values: a zero second moment (√0 + eps), −0,
// infinities and NaN, values whose squares underflow or overflow.
func TestAdamStep(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000} {
			for _, off := range []int{0, 3} {
				rng := newRand(uint64(n*8 + off))
				g, m, v := randSlice(rng, n+off)[off:], randSlice(rng, n+off)[off:], randSlice(rng, n+off)[off:]
				for i := range v {
					v[i] = v[i] * v[i] // a second moment is not negative
				}
				special := []float32{0, float32(math.Copysign(0, -1)), 1e-30, 3e19, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
				for i := range min(n, len(special)) {
					g[i] = special[i]
					if i%2 == 0 {
						m[i], v[i] = 0, 0
					}
				}
				wg, wm, wv := append([]float32(nil), g...), append([]float32(nil), m...), append([]float32(nil), v...)
				// float32 variables: 1−b1 is then computed as AdamStep does.
				b1, b2, eps, rate := float32(0.9), float32(0.999), float32(1e-8), float32(0.00137)
				AdamStep(g, m, v, b1, b2, eps, rate)
				adamGo(wg, wm, wv, b1, 1-b1, b2, 1-b2, eps, rate)
				sameBits(t, fmt.Sprintf("n=%d off=%d g", n, off), g, wg)
				sameBits(t, fmt.Sprintf("n=%d off=%d m", n, off), m, wm)
				sameBits(t, fmt.Sprintf("n=%d off=%d v", n, off), v, wv)
			}
		}
	})
}

// BenchmarkAdamStep times one Adam step over LeNet's and AlexNet's
// parameters on each implementation, in parameters per second of the
// thread's CPU time:
//
//	go test -run '^$' -bench AdamStep ./ndarray/kernel
func BenchmarkAdamStep(b *testing.B) {
	for _, n := range []int{431080, 60965224} {
		g, m, v := make([]float32, n), make([]float32, n), make([]float32, n)
		adamGo(g, m, v, 0.9, 0.1, 0.999, 0.001, 1e-8, 0.001) // fault the pages in
		for _, im := range available() {
			b.Run(fmt.Sprintf("%d/%s", n, im.name), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0 := threadCPUTime()
				for b.Loop() {
					im.vec.adam(g, m, v, 0.9, 0.1, 0.999, 0.001, 1e-8, 0.001)
				}
				if cpu := threadCPUTime() - cpu0; cpu > 0 {
					b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e9, "Gparam/cpu-s")
				}
			})
		}
	}
}
