package rdd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray"
)

// rankWeights is rank r's collection: small and large arrays, contiguous
// and not (transposed views), and a scalar.
func rankWeights(r int) *ndarray.WeightCollection {
	v := float32(r + 1)
	w := ndarray.NewWeightCollection()
	w.Set("conv1", ndarray.Arange(0, 6, 1).Reshape(2, 3).T().Mul(ndarray.Full(v, 3, 2)), ndarray.Full(v))
	w.Set("ip1", ndarray.Full(v, 300, 300), ndarray.Full(10*v, 300))
	w.Set("ip2", ndarray.Full(v, 256, 300).T(), ndarray.Full(-v, 7))
	return w
}

func TestAllreduceWeights(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprint("ranks=", n), func(t *testing.T) {
			want := rankWeights(0)
			for r := 1; r < n; r++ {
				want.AddInPlace(rankWeights(r))
			}
			got := make([]*ndarray.WeightCollection, n)
			errs := onComms(t, n, func(c Comm) error {
				got[c.Rank()] = rankWeights(c.Rank())
				return AllreduceWeights(c, got[c.Rank()])
			})
			for r := range got {
				if errs[r] != nil {
					t.Fatalf("rank %d: %v", r, errs[r])
				}
				if d := got[r].MaxDiff(want); d != 0 {
					t.Errorf("rank %d: differs from the sum by %g", r, d)
				}
				if got[r].Get("ip2")[0].IsContiguous() {
					t.Errorf("rank %d: the transposed view was replaced, not written through", r)
				}
			}
		})
	}
}

func TestAllreduceWeightsMismatch(t *testing.T) {
	errs := onRanks(t, 2, func(sc *Context) string {
		defer sc.Close()
		w := ndarray.NewWeightCollection()
		w.Set("ip", ndarray.New(10+sc.Rank()))
		return fmt.Sprint(AllreduceWeights(sc.Comm(), w))
	})
	for r, s := range errs {
		if !strings.Contains(s, "diverged") || !strings.Contains(s, "AllreduceFloat32Sum of 10 floats") || !strings.Contains(s, "AllreduceFloat32Sum of 11 floats") {
			t.Errorf("rank %d: %s, want an abort naming both lengths", r, s)
		}
	}
}

func TestAllreduceWeightsNilComm(t *testing.T) {
	w := rankWeights(2)
	if err := AllreduceWeights(nil, w); err != nil || w.MaxDiff(rankWeights(2)) != 0 {
		t.Errorf("AllreduceWeights(nil, w) = %v and changed w", err)
	}
}
