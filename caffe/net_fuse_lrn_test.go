package caffe

import (
	"context"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// lrnPoolNet is AlexNet's first two stages on a small image: LRNs across
// channels after rectified convolutions, each pooled (MAX, then AVE).
const lrnPoolNet = `name: "lrnpool"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: 3 dim: 3 dim: 115 dim: 115 } shape { dim: 3 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 12 kernel_size: 11 stride: 4 weight_filler { type: "gaussian" std: 0.05 } bias_filler { type: "constant" value: 0.01 } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "norm1" type: "LRN" bottom: "conv1" top: "norm1" lrn_param { local_size: 5 alpha: 0.5 beta: 0.75 } }
layer { name: "pool1" type: "Pooling" bottom: "norm1" top: "pool1" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "conv2" type: "Convolution" bottom: "pool1" top: "conv2" convolution_param { num_output: 16 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.05 } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }
layer { name: "norm2" type: "LRN" bottom: "conv2" top: "norm2" lrn_param { local_size: 3 alpha: 0.3 beta: 0.75 } }
layer { name: "pool2" type: "Pooling" bottom: "norm2" top: "pool2" pooling_param { pool: AVE kernel_size: 3 stride: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "pool2" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`

// TestFusedLRNPool trains lrnPoolNet three steps with the LRN–pooling
// pairs run as one pass and with every layer alone, on one and two
// threads, keeping every top and with Net.SetKeepTops(false): every
// blob (with SetKeepTops(false), but the LRNs' tops and their gradients,
// which then stay in the pass's buffers, and conv1's gradient, which then
// stays in its group's) and every weight is the same bit for bit, and
// the pairs do run as one pass, norm1's backward inside conv1's group;
// the forward pass's groups of channels as large as the planes (norm1's
// 12, norm2's 16) and of one (norm1) and of five planes (norm2: the last
// of one).
func TestFusedLRNPool(t *testing.T) {
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	defer func(v int) { lrnPoolGroup = v }(lrnPoolGroup)
	for _, threads := range []int{1, 2} {
		for _, keep := range []bool{true, false} {
			for _, group := range []int{lrnPoolGroup, 1000} {
				lrnPoolGroup = group
				t.Run(fmt.Sprintf("threads=%d/keep=%v/group=%d", threads, keep, group), func(t *testing.T) {
					run := func(fuse bool) *Net {
						fuseLayers = fuse
						return trainLRNPool(t, threads, keep)
					}
					fused, alone := run(true), run(false)
					fuseLayers = true
					for _, name := range []string{"norm1", "norm2"} {
						i := layerIndex(fused, name)
						if f := fused.lrnPools[i]; f == nil || !f.fits() {
							t.Errorf("%s and its pooling do not run as one pass", name)
						}
					}
					// conv1's weight gradient on the row convolution (the
					// portable kernels have none) reads each image's gradient
					// right after norm1 and pool1 computed it.
					rows := kernel.NewRowConv(3, 115, 115, 12, 11, 11, 0, 0, 4, 4) != nil
					if g := fused.chainedConv(fused.lrnPools[layerIndex(fused, "norm1")]); rows && (g == nil || g.conv != fused.Layer("conv1")) {
						t.Errorf("norm1 and pool1 do not run backward inside conv1's group")
					}
					// conv2 on the direct path reads each block's gradient
					// right after norm2 and pool2 computed it.
					if c := fused.Layer("conv2").(*Convolution); c.direct != nil {
						if g := fused.chainedConv(fused.lrnPools[layerIndex(fused, "norm2")]); g == nil || g.conv != c {
							t.Errorf("norm2 and pool2 do not run backward inside conv2's group")
						}
					} else {
						t.Logf("conv2 is not on the direct path")
					}
					for _, name := range fused.BlobNames() {
						if !keep && (name == "norm1" || name == "norm2" || name == "conv1") {
							a, b := fused.Blob(name), alone.Blob(name)
							if name == "conv1" {
								// Only its gradient stays in the buffers.
								if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
									t.Errorf("blob %s value %d: fused %v, alone %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
								}
							}
							continue
						}
						a, b := fused.Blob(name), alone.Blob(name)
						if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
							t.Errorf("blob %s value %d: fused %v, alone %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
						}
						if i, ok := sameBits(a.DiffSlice(), b.DiffSlice()); !ok {
							t.Errorf("blob %s gradient %d: fused %v, alone %v", name, i, a.DiffSlice()[i], b.DiffSlice()[i])
						}
					}
					pa, pb := fused.LearnableParams(), alone.LearnableParams()
					for k := range pa {
						if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
							t.Errorf("parameter %d value %d: fused %v, alone %v", k, i, pa[k].DataSlice()[i], pb[k].DataSlice()[i])
						}
					}
				})
			}
		}
	}
}

// TestLRNPoolUnfusedBackward: a backward pass run layer by layer after a
// fused forward that left the LRNs' tops unwritten
// (Net.SetKeepTops(false)) gives the gradients of a forward that wrote
// them.
func TestLRNPoolUnfusedBackward(t *testing.T) {
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	run := func(keep bool) *Net {
		fuseLayers = true
		n := newLRNPoolSolver(t, 1).Net()
		n.SetKeepTops(keep)
		fillFloats(n.Blob("norm1").DataSlice(), 7)
		fillFloats(n.Blob("norm2").DataSlice(), 8)
		if _, err := n.Forward(); err != nil {
			t.Fatal(err)
		}
		fuseLayers = false
		if err := n.Backward(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	skip, keep := run(false), run(true)
	pa, pb := skip.LearnableParams(), keep.LearnableParams()
	for k := range pa {
		if i, ok := sameBits(pa[k].DiffSlice(), pb[k].DiffSlice()); !ok {
			t.Errorf("parameter %d gradient %d: %v, with every top kept %v", k, i, pa[k].DiffSlice()[i], pb[k].DiffSlice()[i])
		}
	}
}

// newLRNPoolSolver builds an SGD solver for lrnPoolNet with its data
// filled.
func newLRNPoolSolver(t *testing.T, threads int) *Solver {
	t.Helper()
	np, err := ParseNetParameter("lrnpool.prototxt", []byte(lrnPoolNet))
	if err != nil {
		t.Fatal(err)
	}
	sp := &caffepb.SolverParameter{NetParam: np, BaseLr: proto.Float32(0.1), Momentum: proto.Float32(0.9),
		LrPolicy: proto.String("fixed"), Type: proto.String("SGD")}
	s, err := NewSolver(sp, SolverOptions{Threads: threads, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	x, label := s.Net().Blob("data").DataSlice(), s.Net().Blob("label").DataSlice()
	for i := range x {
		x[i] = float32(math.Sin(float64(i) * 0.017))
	}
	for i := range label {
		label[i] = float32(i % 3)
	}
	return s
}

// trainLRNPool runs three steps of newLRNPoolSolver's solver and returns
// its net.
func trainLRNPool(t *testing.T, threads int, keep bool) *Net {
	t.Helper()
	s := newLRNPoolSolver(t, threads)
	s.Net().SetKeepTops(keep)
	if err := s.Step(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	return s.Net()
}

// layerIndex returns the index of the layer named name in n.
func layerIndex(n *Net, name string) int {
	for i, l := range n.LayerNames() {
		if l == name {
			return i
		}
	}
	return -1
}

// BenchmarkLRNPoolForward times the forward pass of AlexNet's norm1–pool1
// and norm2–pool2 pairs (one pass over the images, the LRN's top left in
// a worker's buffer as the trainer trains) on a batch of 32, one thread,
// in images per CPU second.
func BenchmarkLRNPoolForward(b *testing.B) {
	for _, c := range []struct {
		name      string
		c, hw, ls int
	}{{"norm1", 96, 55, 5}, {"norm2", 256, 27, 5}} {
		b.Run(c.name, func(b *testing.B) {
			n := mustNet(b, fmt.Sprintf(`name: "lrnpool"
state { phase: TRAIN }
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 32 dim: %d dim: %d dim: %d } } }
layer { name: "norm" type: "LRN" bottom: "data" top: "norm" lrn_param { local_size: %d alpha: 0.0001 beta: 0.75 } }
layer { name: "pool" type: "Pooling" bottom: "norm" top: "pool" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
`, c.c, c.hw, c.hw, c.ls), NetOptions{Threads: 1, Seed: 1})
			n.SetKeepTops(false)
			x := n.Blob("data").DataSlice()
			for i := range x {
				x[i] = float32(math.Sin(float64(i)*0.017)) + 1
			}
			if f := n.lrnPools[layerIndex(n, "norm")]; f == nil || !f.fits() {
				b.Fatal("the pair does not run as one pass")
			}
			runBench(b, 32, 1, 0, func() {
				if _, err := n.Forward(); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
