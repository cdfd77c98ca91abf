package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// TestLaneSumsExact checks every implementation's lane sums bit for bit
// against the portable ones (each vector's lanes added first to last),
// for every block length and tail, with the rows after the last one
// holding values that must not reach dst; and that laneSumsSet stores
// the sums that laneSums adds to −0.
func TestLaneSumsExact(t *testing.T) {
	for _, im := range available() {
		k := im.direct
		if k == nil {
			continue
		}
		L := k.lanes
		ref := laneSumsGo(L)
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 15, 16, 17, 20, 24, 31, 32, 33, 40, 47, 48, 100} {
			t.Run(fmt.Sprintf("%s/n=%d", im.name, n), func(t *testing.T) {
				rng := newRand(uint64(20 + n))
				// Values of many magnitudes, so that the order of the
				// additions shows in the rounding.
				src := randSlice(rng, (n+1)*L)
				for i := range src {
					src[i] *= float32(math.Ldexp(1, int(rng.Uint64()%24)-12))
				}
				for i := n * L; i < len(src); i++ {
					src[i] = float32(math.NaN())
				}
				dst := randSlice(rng, n+1)
				got := append([]float32(nil), dst...)
				want := append([]float32(nil), dst...)
				k.laneSums(&got[0], &src[0], n)
				ref(&want[0], &src[0], n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("dst[%d] = %v (%#08x), want %v (%#08x)", i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
					}
				}
				// laneSumsSet: the sums added to −0 (each sum itself,
				// −0 and +0 kept), whatever dst held; dst[n] untouched.
				set := append([]float32(nil), dst...)
				for i := range n {
					set[i] = float32(math.NaN())
				}
				want = make([]float32, n+1)
				for i := range n {
					want[i] = float32(math.Copysign(0, -1))
				}
				want[n] = dst[n]
				if n > 2 {
					// Sums of +0 and of −0 lanes.
					for l := range L {
						src[l], src[L+l] = 0, float32(math.Copysign(0, -1))
					}
				}
				ref(&want[0], &src[0], n)
				k.laneSumsSet(&set[0], &src[0], n)
				for i := range set {
					if math.Float32bits(set[i]) != math.Float32bits(want[i]) {
						t.Fatalf("set: dst[%d] = %v (%#08x), want %v (%#08x)", i, set[i], math.Float32bits(set[i]), want[i], math.Float32bits(want[i]))
					}
				}
			})
		}
	}
}

// BenchmarkLaneSums times the lane sums of the direct convolution's
// weight gradient: n vectors summed into n floats, as one chunk of a
// weight-gradient tile (n = 40, the default chunk) or a long run.
func BenchmarkLaneSums(b *testing.B) {
	for _, im := range available() {
		k := im.direct
		if k == nil {
			continue
		}
		for _, n := range []int{8, 16, 40, 1200} {
			b.Run(fmt.Sprintf("%s/n=%d", im.name, n), func(b *testing.B) {
				L := k.lanes
				// As many chunks as fill about 16 KB, as the accumulators
				// of a tile do (in the first-level cache).
				// dst rows apart, as the weight gradient's rows are.
				reps, stride := max(1, 4096/(n*L)), (n+31)/16*16
				src := randSlice(newRand(1), reps*n*L)
				dst := make([]float32, reps*stride)
				b.SetBytes(int64(4 * reps * n * L))
				// The thread's CPU time per vector: the machine may be
				// shared.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				t0, iters := threadCPUTime(), 0
				for b.Loop() {
					iters++
					for r := range reps {
						k.laneSums(&dst[r*stride], &src[r*n*L], n)
					}
				}
				b.ReportMetric(float64(threadCPUTime()-t0)/float64(max(1, iters)*reps*n), "cpu-ns/vec")
			})
		}
	}
}
