package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// TestSGDStepTo checks SGDStepTo against SGDStep to the bit, with and
// without decay, for lengths and alignments of d that take every loop of
// the kernels (the unaligned head, four vectors, one vector, the tail),
// in every implementation; g must be left alone.
func TestSGDStepTo(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 16, 63, 64, 65, 1000} {
			for _, off := range []int{0, 1, 5, 15} {
				for _, decay := range []float32{0, 5e-4} {
					rng := newRand(uint64(n*16 + off))
					w, g, h := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
					if n > 3 {
						g[3], w[3] = float32(math.Copysign(0, -1)), 2 // −0 + decay·w: decay must not be skipped
					}
					ww, wg, wh := append([]float32(nil), w...), append([]float32(nil), g...), append([]float32(nil), h...)
					g0 := append([]float32(nil), g...)
					buf := make([]float32, n+off+1)
					buf[n+off] = 42
					d := buf[off : off+n]
					const rate, momentum = 0.01, 0.9
					SGDStepTo(w, g, h, d, decay, rate, momentum)
					SGDStep(ww, wg, wh, decay, rate, momentum)
					for i := range w {
						if math.Float32bits(w[i]) != math.Float32bits(ww[i]) || math.Float32bits(d[i]) != math.Float32bits(wg[i]) ||
							math.Float32bits(h[i]) != math.Float32bits(wh[i]) || math.Float32bits(g[i]) != math.Float32bits(g0[i]) {
							t.Fatalf("n=%d off=%d decay=%v: element %d: w, h, d, g = %v %v %v %v, want %v %v %v %v",
								n, off, decay, i, w[i], h[i], d[i], g[i], ww[i], wh[i], wg[i], g0[i])
						}
					}
					if buf[n+off] != 42 {
						t.Fatalf("n=%d off=%d: SGDStepTo wrote past d", n, off)
					}
				}
			}
		}
		expectPanic(t, "len(d)", func() {
			SGDStepTo(make([]float32, 4), make([]float32, 4), make([]float32, 4), make([]float32, 3), 0, 1, 0)
		})
	})
}

// TestFill checks the plain and non-temporal fills, every loop and
// alignment, in every implementation.
func TestFill(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 15, 16, 17, 64, 100, 1000} {
			for _, off := range []int{0, 1, 7} {
				for _, nt := range []bool{false, true} {
					buf := make([]float32, n+off+1)
					active.vec.fill(buf[off:off+n], 3, nt)
					for i, v := range buf {
						want := float32(3)
						if i < off || i >= off+n {
							want = 0
						}
						if v != want {
							t.Fatalf("n=%d off=%d nt=%v: element %d = %v, want %v", n, off, nt, i, v, want)
						}
					}
				}
			}
		}
	})
}

// BenchmarkMemoryBandwidth measures what one core moves to and from
// memory, in GB per second of the thread's CPU time, over arrays of the
// size of AlexNet's fc6 weights (151 MB each, beyond L2; in transparent
// huge pages where Linux allows, as the caffe package allocates large
// blobs, HugePageFloats): a read stream
// (Sum), a write stream with plain stores (each line is read first, for
// ownership, which the figure does not count) and with non-temporal ones,
// a read-modify-write (Scale), a copy, and the solver's update of a
// parameter computed block by block as the fully connected layers do it:
// "update-inplace" writes each block's gradient into the diff (read for
// ownership) and runs SGDStep on it (reads w, h, g; writes w, h, g),
// "update-to" computes the block's gradient into a buffer that stays in
// L2 and runs SGDStepTo (reads w, h; writes w, h and the diff
// non-temporally). The bytes counted are those the pass must move (the
// floor); the ratio of two passes' rates shows what the extra traffic
// costs:
//
//	go test -run '^$' -bench MemoryBandwidth -benchtime 10x ./ndarray/kernel
func BenchmarkMemoryBandwidth(b *testing.B) {
	const n = 9216 * 4096
	const block = 1 << 17
	x, y, h, d := HugePageFloats(n), HugePageFloats(n), HugePageFloats(n), HugePageFloats(n)
	gbuf := make([]float32, block)
	for _, s := range [][]float32{x, y, h, d} {
		active.vec.fill(s, 1e-3, false) // fault the pages in
	}
	active.vec.fill(gbuf, 1e-3, false)
	passes := []struct {
		name  string
		bytes int // per float
		run   func()
	}{
		{"read", 4, func() { Sum(x) }},
		{"write", 4, func() { active.vec.fill(x, 1e-3, false) }},
		{"write-nt", 4, func() { active.vec.fill(x, 1e-3, true) }},
		{"rmw", 8, func() { Scale(1, x) }},
		{"copy", 8, func() { copy(y, x) }},
		{"update-inplace", 20, func() {
			for lo := 0; lo < n; lo += block {
				hi := min(n, lo+block)
				copy(d[lo:hi], gbuf[:hi-lo])
				SGDStep(x[lo:hi], d[lo:hi], h[lo:hi], 5e-4, 1e-9, 0.9)
			}
		}},
		{"update-to", 20, func() {
			for lo := 0; lo < n; lo += block {
				hi := min(n, lo+block)
				SGDStepTo(x[lo:hi], gbuf[:hi-lo], h[lo:hi], d[lo:hi], 5e-4, 1e-9, 0.9)
			}
		}},
	}
	for _, p := range passes {
		b.Run(fmt.Sprintf("%s/%dMB", p.name, n*4>>20), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			p.run()
			cpu0 := threadCPUTime()
			for b.Loop() {
				p.run()
			}
			if cpu := threadCPUTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(p.bytes)*n*float64(b.N)/cpu.Seconds()/1e9, "GB/cpu-s")
			}
		})
	}
}
