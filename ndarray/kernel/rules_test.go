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

// BenchmarkSolverSteps times one step of Adam, Nesterov, RMSProp, AdaGrad
// and AdaDelta over
// LeNet's and AlexNet's parameters on each implementation, in parameters
// per second of the thread's CPU time:
//
//	go test -run '^$' -bench SolverSteps ./ndarray/kernel
func BenchmarkSolverSteps(b *testing.B) {
	for _, n := range []int{431080, 60965224} {
		g, m, v := make([]float32, n), make([]float32, n), make([]float32, n)
		adamGo(g, m, v, 0.9, 0.1, 0.999, 0.001, 1e-8, 0.001) // fault the pages in
		for _, rule := range []string{"adam", "nesterov", "rmsprop", "adagrad", "adadelta"} {
			for _, im := range available() {
				step := map[string]func(){
					"adam":     func() { im.vec.adam(g, m, v, 0.9, 0.1, 0.999, 0.001, 1e-8, 0.001) },
					"nesterov": func() { im.vec.nesterov(g, m, 0.9, 1.9, 0.01) },
					"rmsprop":  func() { im.vec.rmsProp(g, v, 0.98, 0.02, 1e-8, 0.01) },
					"adagrad":  func() { im.vec.adaGrad(g, v, 1e-8, 0.01) },
					"adadelta": func() { im.vec.adaDelta(g, m, v, 0.95, 0.05, 1e-6, 1) },
				}[rule]
				b.Run(fmt.Sprintf("%s/%d/%s", rule, n, im.name), func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					cpu0 := threadCPUTime()
					for b.Loop() {
						step()
					}
					if cpu := threadCPUTime() - cpu0; cpu > 0 {
						b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e9, "Gparam/cpu-s")
					}
				})
			}
		}
	}
}

// TestSolverSteps compares every implementation's NesterovStep,
// RMSPropStep, AdaGradStep and AdaDeltaStep with their Go loops, bit for
// bit, on the lengths and values of TestAdamStep.
func TestSolverSteps(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000} {
			for _, off := range []int{0, 3} {
				rng := newRand(uint64(n*8 + off + 1))
				g, h := randSlice(rng, n+off)[off:], randSlice(rng, n+off)[off:]
				special := []float32{0, float32(math.Copysign(0, -1)), 1e-30, 3e19, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
				for i := range min(n, len(special)) {
					g[i] = special[i]
				}
				mom, rate, d, delta := float32(0.95), float32(0.013), float32(0.98), float32(1e-8)
				// Nesterov.
				ng, nh := append([]float32(nil), g...), append([]float32(nil), h...)
				wg, wh := append([]float32(nil), g...), append([]float32(nil), h...)
				NesterovStep(ng, nh, mom, rate)
				nesterovGo(wg, wh, mom, 1+mom, rate)
				sameBits(t, fmt.Sprintf("nesterov n=%d off=%d g", n, off), ng, wg)
				sameBits(t, fmt.Sprintf("nesterov n=%d off=%d h", n, off), nh, wh)
				// RMSProp: a history is not negative.
				for i := range h {
					h[i] *= h[i]
				}
				rg, rh := append([]float32(nil), g...), append([]float32(nil), h...)
				wg, wh = append([]float32(nil), g...), append([]float32(nil), h...)
				RMSPropStep(rg, rh, d, delta, rate)
				rmsPropGo(wg, wh, d, 1-d, delta, rate)
				sameBits(t, fmt.Sprintf("rmsprop n=%d off=%d g", n, off), rg, wg)
				sameBits(t, fmt.Sprintf("rmsprop n=%d off=%d h", n, off), rh, wh)
				// AdaGrad.
				ag, ah := append([]float32(nil), g...), append([]float32(nil), h...)
				wg, wh = append([]float32(nil), g...), append([]float32(nil), h...)
				AdaGradStep(ag, ah, delta, rate)
				adaGradGo(wg, wh, delta, rate)
				sameBits(t, fmt.Sprintf("adagrad n=%d off=%d g", n, off), ag, wg)
				sameBits(t, fmt.Sprintf("adagrad n=%d off=%d h", n, off), ah, wh)
				// AdaDelta: a second history, not negative either.
				h2 := make([]float32, len(h))
				for i := range h2 {
					h2[i] = h[len(h)-1-i] * 0.5
				}
				dg, dh, dh2 := append([]float32(nil), g...), append([]float32(nil), h...), append([]float32(nil), h2...)
				wg, wh, wh2 := append([]float32(nil), g...), append([]float32(nil), h...), append([]float32(nil), h2...)
				AdaDeltaStep(dg, dh, dh2, mom, delta, rate)
				adaDeltaGo(wg, wh, wh2, mom, 1-mom, delta, rate)
				sameBits(t, fmt.Sprintf("adadelta n=%d off=%d g", n, off), dg, wg)
				sameBits(t, fmt.Sprintf("adadelta n=%d off=%d h", n, off), dh, wh)
				sameBits(t, fmt.Sprintf("adadelta n=%d off=%d h2", n, off), dh2, wh2)
			}
		}
	})
}
