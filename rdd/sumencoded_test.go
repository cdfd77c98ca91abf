package rdd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray"
)

// encodedVector is partition p's vector: rounded to the encoding, or made
// sparse.
func encodedVector(enc ndarray.Encoding, p, n int) []float32 {
	rng := rand.New(rand.NewPCG(uint64(p), 9))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64()) * float32(math.Pow(10, float64(rng.IntN(6)-4)))
	}
	if enc == ndarray.Sparse {
		ndarray.TopK(v, n/10+1)
	}
	enc.Round(v)
	return v
}

// sumEncodedOn runs SumEncoded over k partitions of n values on sc, with
// a finish that rounds with error feedback, twice (so the feedback
// matters), and returns the second sum and how often finish saw each
// position.
func sumEncodedOn(sc *Context, enc ndarray.Encoding, k, n int) ([]float32, []int, int64, error) {
	r := sc.Range(0, k, 1, k)
	residual := make([]float32, n)
	seen := make([]int, n)
	var mu sync.Mutex
	finish := func(lo int, sum []float32) {
		mu.Lock()
		defer mu.Unlock()
		for i := range sum {
			seen[lo+i]++
			v := sum[i] + residual[lo+i]
			sum[i] = v
			enc.Round(sum[i : i+1])
			residual[lo+i] = v - sum[i]
		}
	}
	var res *EncodedSum
	var err error
	for round := 0; round < 2; round++ {
		res, err = r.SumEncoded(context.Background(), n, enc, func(tc *TaskContext) (PartitionVector, error) {
			return PartitionVector{Values: encodedVector(enc, tc.Partition()+10*round, n), Value: tc.Partition()}, nil
		}, finish)
		if err != nil {
			return nil, nil, 0, err
		}
		for p, v := range res.Values {
			if v.(int) != p {
				return nil, nil, 0, fmt.Errorf("value %d of partition %d", v, p)
			}
		}
	}
	return res.Sum, seen, res.BytesSent, nil
}

// Under SPMD, on any number of ranks, SumEncoded gives a local master's
// sum bit for bit, calls finish once per position, and sends about twice
// the encoded vectors.
func TestSumEncodedSPMD(t *testing.T) {
	const n = 1001
	for _, enc := range []ndarray.Encoding{ndarray.BFloat16, ndarray.Float16, ndarray.Sparse} {
		for _, k := range []int{1, 3, 5} {
			sc := newTestContext(t, "local[2]")
			want, seen, sent, err := sumEncodedOn(sc, enc, k, n)
			if err != nil {
				t.Fatal(err)
			}
			if sent != 0 {
				t.Errorf("a local master sent %d bytes", sent)
			}
			for i, c := range seen {
				if c != 2 {
					t.Fatalf("local: finish saw position %d %d times in 2 rounds", i, c)
				}
			}
			for _, size := range []int{2, 3, 4} {
				got := onRanks(t, size, func(sc *Context) string {
					defer sc.Close()
					sum, seen, sent, err := sumEncodedOn(sc, enc, k, n)
					if err != nil {
						return err.Error()
					}
					lo, hi := EncodedPiece(n, sc.Rank(), size)
					for i, c := range seen {
						if mine := i >= lo && i < hi; mine && c != 2 || !mine && c != 0 {
							return fmt.Sprintf("finish saw position %d %d times (piece %d-%d)", i, c, lo, hi)
						}
					}
					for i := range sum {
						if math.Float32bits(sum[i]) != math.Float32bits(want[i]) {
							return fmt.Sprintf("value %d: %g, local master %g", i, sum[i], want[i])
						}
					}
					// Each partition held here goes out once, in pieces,
					// and the piece of the sum to every other rank.
					full := 0
					for p := sc.Rank(); p < k; p += size {
						full += enc.EncodedLen(encodedVector(enc, p+10, n))
					}
					if enc != ndarray.Sparse && (sent < int64(full)/2 || sent > int64(full)+int64(size*2*n)) {
						return fmt.Sprintf("sent %d bytes for partitions of %d encoded bytes", sent, full)
					}
					return "ok"
				})
				for r, s := range got {
					if s != "ok" {
						t.Errorf("%s, %d partitions, rank %d of %d: %s", enc, k, r, size, s)
					}
				}
			}
		}
	}
}

func TestSumEncodedWrongLength(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	_, err := sc.Range(0, 2, 1, 2).SumEncoded(context.Background(), 4, ndarray.BFloat16, func(tc *TaskContext) (PartitionVector, error) {
		return PartitionVector{Values: make([]float32, 3)}, nil
	}, func(int, []float32) {})
	if err == nil || !strings.Contains(err.Error(), "returned 3 values, want 4") {
		t.Errorf("error %v", err)
	}
}
