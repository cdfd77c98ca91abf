package caffe

import (
	"fmt"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// BenchmarkLayerLRNBackward times the backward pass alone of AlexNet's
// norm1 and norm2 (one thread, images per CPU second), reading the
// output back (kept=false, the layer alone) or recomputing it from the
// input (kept=true, as in a net where no later layer writes the top):
//
//	go test -run '^$' -bench LayerLRNBackward -benchtime 10x ./caffe
func BenchmarkLayerLRNBackward(b *testing.B) {
	for _, c := range []struct {
		name string
		in   []int
	}{{"norm1", []int{32, 96, 55, 55}}, {"norm2", []int{32, 256, 27, 27}}} {
		for _, kept := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/kept=%v", c.name, kept), func(b *testing.B) {
				x, y := randBlob(1, 0, 1, c.in...), NewBlob()
				l := setupLayer(b, `type: "LRN" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }`,
					&LayerEnv{Phase: caffepb.Phase_TRAIN, Threads: 1}, blobs(x), blobs(y))
				l.(*LRN).topKept = kept
				copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
				bs, ts, down := blobs(x), blobs(y), []bool{true}
				if err := l.Forward(bs, ts); err != nil {
					b.Fatal(err)
				}
				runBench(b, c.in[0], 1, 0, func() { l.Backward(ts, down, bs) })
			})
		}
	}
}
