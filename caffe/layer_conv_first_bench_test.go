package caffe

import (
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// firstConvCases are the first convolutions of CIFAR-10 quick and
// AlexNet: few input channels, no bottom gradient.
var firstConvCases = []struct {
	name string
	def  string
	in   []int
}{
	{"cifar/conv1", `type: "Convolution" convolution_param { num_output: 32 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.0001 } }`, []int{100, 3, 32, 32}},
	{"alexnet/conv1", `type: "Convolution" convolution_param { num_output: 96 kernel_size: 11 stride: 4 weight_filler { type: "gaussian" std: 0.01 } }`, []int{32, 3, 227, 227}},
}

// BenchmarkLayerConvFirst times the Forward and the Backward (weight and
// bias gradients only) of the nets' first convolutions separately,
// single-threaded, with their share of the FMA peak.
//
//	go test -run '^$' -bench LayerConvFirst ./caffe
func BenchmarkLayerConvFirst(b *testing.B) {
	for _, c := range firstConvCases {
		for _, pass := range []string{"fwd", "bwd"} {
			b.Run(c.name+"/"+pass, func(b *testing.B) {
				x, y := randBlob(1, -1, 1, c.in...), NewBlob()
				l := setupLayer(b, c.def, &LayerEnv{Phase: caffepb.Phase_TRAIN, Threads: 1}, blobs(x), blobs(y))
				copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
				bs, ts, down := blobs(x), blobs(y), []bool{false}
				fc := l.(flopCounter)
				f, bw := fc.flops(bs, ts, down)
				if err := l.Forward(bs, ts); err != nil {
					b.Fatal(err)
				}
				if pass == "fwd" {
					runBench(b, c.in[0], 1, f, func() {
						if err := l.Forward(bs, ts); err != nil {
							b.Fatal(err)
						}
					})
					return
				}
				runBench(b, c.in[0], 1, bw, func() { l.Backward(ts, down, bs) })
			})
		}
	}
}
