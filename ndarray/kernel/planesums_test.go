package kernel

import (
	"fmt"
	"math"
	"testing"
)

// TestPlaneSums checks that each implementation's planeSums gives every
// lane the bits its Sum gives that lane's floats, and planeSumsAt over
// vectors taken in a shuffled order the bits of Sum in that order: planes of every length
// from 0 past two groups of four vectors and some longer ones, the
// vectors spread out, values of mixed signs and magnitudes (so that a
// change in the order of the additions shows in the bits).
func TestPlaneSums(t *testing.T) {
	for _, im := range available() {
		k := im.direct
		if im == goGemm {
			k = goDirect
		}
		if k == nil || k.planeSums == nil {
			continue
		}
		L := k.lanes
		rng := newRand(7)
		const gap = 3 // vectors between two of the plane's
		src := randSlice(rng, 700*gap*L)
		for i := range src {
			// Magnitudes from 2^-10 to 2^10: rounding depends on order.
			src[i] *= float32(math.Ldexp(1, int(rng.IntN(21))-10))
		}
		for _, n := range append(seq(0, 2*4*16+3), 100, 576, 600) {
			t.Run(fmt.Sprintf("%s/n=%d", im.name, n), func(t *testing.T) {
				got := make([]float32, L)
				for i := range got {
					got[i] = 99 // overwritten
				}
				k.planeSums(&got[0], &src[0], gap*L*4, n)
				// planeSumsAt over the vectors in another order: vector
				// i at position perm[i].
				perm := rng.Perm(700)[:n]
				offs := make([]int32, max(n, 1)) // one at least, to point at
				for i, q := range perm {
					offs[i] = int32(q)
				}
				gotAt := make([]float32, L)
				k.planeSumsAt(&gotAt[0], &src[0], &offs[0], gap*L*4, n)
				lane, laneAt := make([]float32, n), make([]float32, n)
				for l := range L {
					for p := range n {
						lane[p] = src[p*gap*L+l]
						laneAt[p] = src[perm[p]*gap*L+l]
					}
					want := im.vec.sum(lane)
					if math.Float32bits(got[l]) != math.Float32bits(want) {
						t.Fatalf("lane %d: %v, want %v (Sum of the lane) bit for bit", l, got[l], want)
					}
					if want := im.vec.sum(laneAt); math.Float32bits(gotAt[l]) != math.Float32bits(want) {
						t.Fatalf("planeSumsAt, lane %d: %v, want %v (Sum of the lane) bit for bit", l, gotAt[l], want)
					}
				}
				if n%k.sumWidth != 0 {
					return
				}
				// The plane's vectors added to their buckets in runs of
				// consecutive buckets (as unpoolBand adds bands), then
				// planeSums over the buckets: the same bits.
				B, W := k.sumBuckets, k.sumWidth
				buckets := make([]float32, B*L)
				whole := n / B * B
				for q := 0; q < n; {
					b, run := q%B, 1+rng.IntN(B)
					if q < whole {
						run = min(run, whole-q, B-b)
					} else {
						b = q % W
						run = min(run, n-q, W-b)
					}
					k.planeSumsAdd(&buckets[b*L], &src[q*gap*L], gap*L*4, run)
					q += run
				}
				gotB := make([]float32, L)
				k.planeSums(&gotB[0], &buckets[0], L*4, B)
				sameBits(t, "planeSums over the buckets", gotB, got)
			})
		}
	}
}

// seq returns lo, lo+1, …, hi−1.
func seq(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// BenchmarkPlaneSums times planeSums on LeNet's conv1 planes as
// WeightGradPooledBias meets them: 576 vectors of a tile of four
// channels (256 bytes apart), 20 channels of a block (737 KB, from the
// L2 cache), CPU µs per block.
//
//	go test -run '^$' -bench PlaneSums ./ndarray/kernel
func BenchmarkPlaneSums(b *testing.B) {
	k := active.direct
	if k == nil {
		b.Skip("no direct convolution")
	}
	L := k.lanes
	const P, tile, channels = 576, 4, 20
	src := randSlice(newRand(1), channels*P*L)
	dst := make([]float32, L)
	benchFLOPs(b, 0, func() {
		for c := range channels {
			t, i := c/tile, c%tile
			k.planeSums(&dst[0], &src[(t*tile*P+i)*L], tile*L*4, P)
		}
	})
}
