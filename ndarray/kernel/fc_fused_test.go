package kernel

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestFCBackward checks FCBackward against FCInputGrad and FCWeightGrad
// bit for bit, on every implementation, over batches of one and several
// tiles and blocks (more than mc and kc rows), depths that are not
// multiples of the pieces, columns with edge panels and several parts:
// every weight's gradient handed over exactly once, the input gradient
// computed from the weights as they were before any update (the update
// here changes them).
func TestFCBackward(t *testing.T) {
	defer func(f, s int) { fcFuseFrom, fcStreamFrom = f, s }(fcFuseFrom, fcStreamFrom)
	fcFuseFrom, fcStreamFrom = 0, 0
	forEachImpl(t, func(t *testing.T) {
		for _, sz := range [][3]int{{2, 40, 64}, {5, 300, 70}, {14, 257, 1100}, {33, 70, 2100}, {300, 100, 97}, {32, 520, 2048}} {
			m, n, k := sz[0], sz[1], sz[2]
			if !FCBackwardFused(m, n, k) {
				t.Fatalf("%d×%d×%d: not fused", m, n, k)
			}
			rng := newRand(uint64(m*7 + n*3 + k))
			dy, x, w0 := randSlice(rng, m*n), randSlice(rng, m*k), randSlice(rng, n*k)
			for i := range x {
				if i%7 == 0 {
					x[i] = 0 // products ±0 whose sums must be +0
				}
			}
			wantDX := make([]float32, m*k)
			FCInputGrad(1, 0, m, k, n, dy, n, w0, k, 0, wantDX, k)
			wantDW := make([]float32, n*k)
			FCWeightGrad(1, 0, n, k, m, dy, n, x, k, 0, wantDW, k)
			for _, parts := range []int{1, 2, 3} {
				for _, withDX := range []bool{true, false} {
					name := fmt.Sprintf("%d×%d×%d parts=%d dx=%v", m, n, k, parts, withDX)
					w := append([]float32(nil), w0...)
					dW := make([]float32, n*k)
					seen := make([]int, n*k)
					var dx []float32
					if withDX {
						dx = make([]float32, m*k)
						for i := range dx {
							dx[i] = float32(math.NaN()) // must be written, not read
						}
					}
					for p := range parts {
						FCBackward(parts, p, m, n, k, dy, x, w, dx, func(row, col int, grad []float32) {
							for j, v := range grad {
								at := row*k + col + j
								dW[at] = v
								seen[at]++
								w[at] -= 0.5 * v
							}
						})
					}
					for i := range seen {
						if seen[i] != 1 {
							t.Fatalf("%s: the gradient of weight %d handed over %d times", name, i, seen[i])
						}
						if math.Float32bits(dW[i]) != math.Float32bits(wantDW[i]) {
							t.Fatalf("%s: weight gradient %d = %v, FCWeightGrad gives %v", name, i, dW[i], wantDW[i])
						}
					}
					for i := range dx {
						if math.Float32bits(dx[i]) != math.Float32bits(wantDX[i]) {
							t.Fatalf("%s: dx[%d][%d] = %v, FCInputGrad gives %v", name, i/k, i%k, dx[i], wantDX[i])
						}
					}
				}
			}
		}
		expectPanic(t, "one pass", func() { FCBackward(1, 0, 1, 2000, 2000, nil, nil, nil, nil, nil) })
		expectPanic(t, "len(w)", func() {
			FCBackward(1, 0, 2, 4, 4, make([]float32, 8), make([]float32, 8), make([]float32, 15), nil, nil)
		})
	})
}

// BenchmarkFCBackward times the backward pass of AlexNet's fc6 and fc7
// (batch 32) with the SGD update of the weights inside it, on one
// thread: path=inplace computes the input gradient (FCInputGrad), then
// the weight gradient block by block into the diff, each block updated
// in place (SGDStep) as it is computed; path=blocks the same with each
// block's gradient in a buffer that stays in the cache, the update
// written to the diff by SGDStepTo; path=fused reads the weights once
// (FCBackward, the same update for each piece); path=fused-nodiff the
// same with the update left in the gradient's buffer (SGDStep) instead of
// written to the diff, as the solver does when it defers the diff to the
// history (which the bytes counted still include), and path=fused-ahead
// that with SGDStepAhead given the next row's history, as the solver
// runs it (the hardware prefetchers start afresh on each row of 4 KB
// the update reads; the step prefetches the next one). Two more paths split
// fused-nodiff into its halves, to show how far its time is their sum
// rather than the larger of them: path=products is FCBackward with an
// update that does nothing (both products and one read of W, the
// arithmetic), path=update the same SGDStep over the same pieces of W
// and H in the same order with the gradient from a buffer in the cache
// (the memory traffic: W and H read and written), and path=update-rows
// that step over whole rows in order, the same bytes in one sequential
// stream each. It reports GFLOP (both products) and the bytes of weights,
// history and diff the update must move (read W and H, write W, H and the
// diff) per second of the thread's CPU time; the update paths count no
// FLOPs and only the bytes they move (W and H, read and written).
//
//	go test -run '^$' -bench FCBackward ./ndarray/kernel
func BenchmarkFCBackward(b *testing.B) {
	for _, l := range fcBenchLayers[:2] {
		M, N, K := l.m, l.n, l.k
		rng := newRand(1)
		w, x, dy := randLargeSlice(rng, N*K), randSlice(rng, M*K), randSlice(rng, M*N)
		for i := range w {
			w[i] *= 1e-2
		}
		h, d, dx := HugePageFloats(N*K), HugePageFloats(N*K), make([]float32, M*K)
		const rate, decay, momentum = 1e-6, 5e-4, 0.9
		update := func(row, col int, grad []float32) {
			lo := row*K + col
			hi := lo + len(grad)
			SGDStepTo(w[lo:hi], grad, h[lo:hi], d[lo:hi], decay, rate, momentum)
		}
		parts := (N*K + 1<<17 - 1) >> 17
		lo, hi := FCWeightGradRows(parts, 0, N, K, M)
		buf := make([]float32, (hi-lo)*K)
		paths := map[string]func(){
			"inplace": func() {
				FCInputGrad(1, 0, M, K, N, dy, N, w, K, 0, dx, K)
				for p := range parts {
					lo, hi := FCWeightGradRows(parts, p, N, K, M)
					FCWeightGrad(parts, p, N, K, M, dy, N, x, K, 0, d, K)
					SGDStep(w[lo*K:hi*K], d[lo*K:hi*K], h[lo*K:hi*K], decay, rate, momentum)
				}
			},
			"blocks": func() {
				FCInputGrad(1, 0, M, K, N, dy, N, w, K, 0, dx, K)
				for p := range parts {
					lo, hi := FCWeightGradRows(parts, p, N, K, M)
					FCWeightGradSpan(lo, hi, N, K, M, dy, N, x, K, 0, buf, K)
					update(lo, 0, buf[:(hi-lo)*K])
				}
			},
			"fused": func() { FCBackward(1, 0, M, N, K, dy, x, w, dx, update) },
			"fused-nodiff": func() {
				FCBackward(1, 0, M, N, K, dy, x, w, dx, func(row, col int, grad []float32) {
					lo := row*K + col
					hi := lo + len(grad)
					SGDStep(w[lo:hi], grad, h[lo:hi], decay, rate, momentum)
				})
			},
			"fused-ahead": func() {
				FCBackward(1, 0, M, N, K, dy, x, w, dx, func(row, col int, grad []float32) {
					lo := row*K + col
					hi := lo + len(grad)
					var next []float32
					if hi+K <= len(h) {
						next = h[lo+K : hi+K]
					}
					SGDStepAhead(w[lo:hi], grad, h[lo:hi], next, decay, rate, momentum)
				})
			},
			"products":    func() { FCBackward(1, 0, M, N, K, dy, x, w, dx, func(int, int, []float32) {}) },
			"weight-grad": func() { FCBackward(1, 0, M, N, K, dy, x, w, nil, func(int, int, []float32) {}) },
			"update": func() {
				for c := 0; c < K; c += fcFusedCols {
					for r := range N {
						lo := r*K + c
						hi := lo + min(fcFusedCols, K-c)
						SGDStep(w[lo:hi], buf[:hi-lo], h[lo:hi], decay, rate, momentum)
					}
				}
			},
			"update-rows": func() {
				for lo := 0; lo < N*K; lo += K {
					SGDStep(w[lo:lo+K], buf[:K], h[lo:lo+K], decay, rate, momentum)
				}
			},
		}
		for _, path := range []string{"inplace", "blocks", "fused", "fused-nodiff", "fused-ahead", "products", "weight-grad", "update", "update-rows"} {
			flops, bytes := 4*float64(M*N*K), 20*float64(N*K)
			if path == "weight-grad" {
				flops, bytes = 2*float64(M*N*K), 0 // the weight gradient alone, in the cache
			}
			if strings.HasPrefix(path, "update") {
				flops, bytes = 0, 16*float64(N*K) // no arithmetic counted, no diff
			}
			b.Run(fmt.Sprintf("%s/path=%s", l.name, path), func(b *testing.B) {
				benchFCBytes(b, flops, bytes, paths[path])
			})
		}
	}
}
