package rdd_test

import (
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// partWeights makes partition p's weights: values whose sum depends on
// the order they are added in.
func partWeights(p int) *ndarray.WeightCollection {
	w := ndarray.NewWeightCollection()
	v := make([]float32, 64)
	for i := range v {
		v[i] = float32(1+p) * 1e7 / float32(3+i) * float32(1-2*(p%2))
	}
	w.Set("l", ndarray.FromValues(v...))
	return w
}

// Under a local master the sum is the partitions' collections added in
// partition order, bit for bit, whatever the number of workers.
func TestSumWeightsOrder(t *testing.T) {
	const parts = 7
	want := partWeights(0)
	for p := 1; p < parts; p++ {
		want.AddInPlace(partWeights(p))
	}
	for _, master := range []string{"local[1]", "local[3]"} {
		sc, err := rdd.NewContext(master)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sc.Range(0, parts, 1, parts).SumWeights(nil, func(tc *rdd.TaskContext) (rdd.PartitionWeights, error) {
			return rdd.PartitionWeights{Weights: []*ndarray.WeightCollection{partWeights(tc.Partition())}, Value: tc.Partition()}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Sums[0].Get("l")[0].Data()
		for i, v := range want.Get("l")[0].Data() {
			if got[i] != v {
				t.Fatalf("%s: value %d is %v, want %v", master, i, got[i], v)
			}
		}
		for p, v := range res.Values {
			if v != p {
				t.Errorf("%s: value of partition %d is %v", master, p, v)
			}
		}
		sc.Close()
	}
}

func TestSumWeightsErrors(t *testing.T) {
	sc, err := rdd.NewContext("local[2]")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	r := sc.Range(0, 4, 1, 2)
	_, err = r.SumWeights(nil, func(tc *rdd.TaskContext) (rdd.PartitionWeights, error) {
		w := ndarray.NewWeightCollection()
		w.Set("l", ndarray.Zeros(1+tc.Partition()))
		return rdd.PartitionWeights{Weights: []*ndarray.WeightCollection{w}}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "partition 1, collection 0 does not match partition 0's") {
		t.Errorf("different layouts: %v", err)
	}
	_, err = r.SumWeights(nil, func(tc *rdd.TaskContext) (rdd.PartitionWeights, error) {
		return rdd.PartitionWeights{Weights: []*ndarray.WeightCollection{nil}}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "nil collection") {
		t.Errorf("a nil collection: %v", err)
	}
}
