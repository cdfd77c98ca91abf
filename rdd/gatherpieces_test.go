package rdd

import (
	"fmt"
	"math"
	"testing"
)

// GatherPieces gives every rank the vector whose pieces the ranks hold,
// whatever the others hold outside their pieces; a local master returns
// its vector.
func TestGatherPieces(t *testing.T) {
	const n = 11
	whole := func() []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i) + 0.25
		}
		return v
	}
	sc := newTestContext(t, "local[2]")
	if got, err := sc.GatherPieces(whole()); err != nil || len(got) != n || got[3] != 3.25 {
		t.Fatalf("local: %v, %v", got, err)
	}
	if got, err := sc.GatherPieces(nil); got != nil || err != nil {
		t.Fatalf("local nil: %v, %v", got, err)
	}
	for _, size := range []int{2, 3, 4} {
		got := onRanks(t, size, func(sc *Context) string {
			defer sc.Close()
			v := whole()
			lo, hi := EncodedPiece(n, sc.Rank(), size)
			for i := range v {
				if i < lo || i >= hi {
					v[i] = float32(math.NaN()) // not this rank's: never read
				}
			}
			out, err := sc.GatherPieces(v)
			if err != nil {
				return err.Error()
			}
			want := whole()
			for i := range want {
				if math.Float32bits(out[i]) != math.Float32bits(want[i]) {
					return fmt.Sprintf("value %d: %g, want %g", i, out[i], want[i])
				}
			}
			return "ok"
		})
		for r, s := range got {
			if s != "ok" {
				t.Errorf("rank %d of %d: %s", r, size, s)
			}
		}
	}
}
