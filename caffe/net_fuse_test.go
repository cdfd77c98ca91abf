package caffe

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// TestFusedPassesIdentical trains LeNet and CIFAR-10 quick a few steps
// with the convolution, ReLU and pooling groups fused and with every
// layer run alone, on one goroutine and on two, and requires every blob's
// values and gradients and every weight to be identical bit for bit.
func TestFusedPassesIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two nets a few steps four times")
	}
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	nets := []struct {
		name, model string
		c, h, w     int
		groups      [][]string // the groups that run fused: first and last layer
		ipReLUs     []string   // the inner products run with their ReLU
		bwdReLUs    []string   // the inner products run backward with the ReLU of their input
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, [][]string{{"conv1", "pool1"}, {"conv2", "pool2"}}, []string{"ip1"}, []string{"ip2"}},
		// conv1 (3 channels in) is on the column path, pooled and then
		// rectified.
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, [][]string{{"conv1", "relu1"}, {"conv2", "pool2"}, {"conv3", "pool3"}}, nil, nil},
	}
	for _, nt := range nets {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/threads=%d", nt.name, threads), func(t *testing.T) {
				run := func(fuse bool) *Solver {
					fuseLayers = fuse
					s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, threads)
					if err := s.Step(context.Background(), 3); err != nil {
						t.Fatal(err)
					}
					return s
				}
				fused, alone := run(true), run(false)
				var groups [][]string
				for _, f := range fused.Net().fusions {
					fuseLayers = true
					if f != nil && f.fits() {
						names := fused.Net().LayerNames()
						groups = append(groups, []string{names[f.first], names[f.last]})
					}
				}
				if !slices.EqualFunc(groups, nt.groups, slices.Equal) {
					t.Errorf("fused groups %v, want %v", groups, nt.groups)
				}
				var ipReLUs []string
				for i, r := range fused.Net().ipReLUs {
					if r != nil {
						ipReLUs = append(ipReLUs, fused.Net().LayerNames()[i])
					}
				}
				if !slices.Equal(ipReLUs, nt.ipReLUs) {
					t.Errorf("inner products run with their ReLU %v, want %v", ipReLUs, nt.ipReLUs)
				}
				var bwdReLUs []string
				for i := range fused.Net().bwdReLUs {
					if r := fused.Net().gradReLU(i); r != nil {
						bwdReLUs = append(bwdReLUs, fused.Net().LayerNames()[i])
					}
				}
				if !slices.Equal(bwdReLUs, nt.bwdReLUs) {
					t.Errorf("inner products run backward with the ReLU of their input %v, want %v", bwdReLUs, nt.bwdReLUs)
				}
				for _, name := range fused.Net().BlobNames() {
					a, b := fused.Net().Blob(name), alone.Net().Blob(name)
					if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
						t.Errorf("blob %s value %d: fused %v, alone %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
					}
					if i, ok := sameBits(a.DiffSlice(), b.DiffSlice()); !ok {
						t.Errorf("blob %s gradient %d: fused %v, alone %v", name, i, a.DiffSlice()[i], b.DiffSlice()[i])
					}
				}
				pa, pb := fused.Net().LearnableParams(), alone.Net().LearnableParams()
				for k := range pa {
					if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
						t.Errorf("parameter %d value %d: fused %v, alone %v", k, i, pa[k].DataSlice()[i], pb[k].DataSlice()[i])
					}
				}
			})
		}
	}
}

// TestKeepTops trains LeNet a few steps with Net.SetKeepTops(false) and
// with every top kept, on one and two threads: the convolution tops that
// run pooled on interleaved blocks are left unwritten, values and
// gradients, as are the output and its gradient of a convolution pooled
// on the column path (CIFAR-10 quick's conv1), and every other blob,
// gradient and weight is the same bit for bit.
func TestKeepTops(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet and CIFAR-10 quick a few steps four times")
	}
	nets := []struct {
		name, model string
		c, h, w     int
		unread      []string // the tops left unwritten
		unreadGrads []string // the tops whose gradients are left unwritten
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, []string{"conv1", "conv2"}, []string{"conv1", "conv2"}},
		// ReLU and AVE pooling on the blocks; conv1's MAX pooling, then
		// a ReLU, on the column path, a chunk at a time in a buffer.
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, []string{"conv1", "conv2", "conv3"}, []string{"conv1", "conv2", "conv3"}},
	}
	for _, nt := range nets {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/threads=%d", nt.name, threads), func(t *testing.T) {
				run := func(keep bool) *Solver {
					s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, threads)
					s.Net().SetKeepTops(keep)
					for _, name := range nt.unread {
						fillFloats(s.Net().Blob(name).DataSlice(), 7)
					}
					for _, name := range nt.unreadGrads {
						fillFloats(s.Net().Blob(name).DiffSlice(), 7)
					}
					if err := s.Step(context.Background(), 3); err != nil {
						t.Fatal(err)
					}
					return s
				}
				skip, keep := run(false), run(true)
				if kernel.DirectConvLanes() == 0 {
					return // no direct convolution: nothing to skip
				}
				for _, name := range skip.Net().BlobNames() {
					a, b := skip.Net().Blob(name), keep.Net().Blob(name)
					if slices.Contains(nt.unread, name) {
						// The images of a last block on the column path
						// are written.
						c := skip.Net().Layer(name).(*Convolution)
						blocks := a.DataSlice()
						if d := c.direct; d != nil && d.tail {
							blocks = blocks[:(d.nblocks-1)*d.plan.Lanes()*c.outSize]
						}
						if i := slices.IndexFunc(blocks, func(v float32) bool { return v != 7 }); i >= 0 {
							t.Errorf("blob %s value %d = %v: written", name, i, a.DataSlice()[i])
						}
						if i := slices.IndexFunc(b.DataSlice(), func(v float32) bool { return v != 7 }); i < 0 {
							t.Errorf("blob %s: not written with every top kept", name)
						}
					} else if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
						t.Errorf("blob %s value %d: %v, with every top kept %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
					}
					if slices.Contains(nt.unreadGrads, name) {
						grads := a.DiffSlice()
						if c := skip.Net().Layer(name).(*Convolution); c.direct != nil && c.direct.tail {
							grads = grads[:(c.direct.nblocks-1)*c.direct.plan.Lanes()*c.outSize]
						}
						if i := slices.IndexFunc(grads, func(v float32) bool { return v != 7 }); i >= 0 {
							t.Errorf("blob %s gradient %d = %v: written", name, i, a.DiffSlice()[i])
						}
						if i := slices.IndexFunc(b.DiffSlice(), func(v float32) bool { return v != 7 }); i < 0 {
							t.Errorf("blob %s: gradient not written with every top kept", name)
						}
					} else if i, ok := sameBits(a.DiffSlice(), b.DiffSlice()); !ok {
						t.Errorf("blob %s gradient %d: %v, with every top kept %v", name, i, a.DiffSlice()[i], b.DiffSlice()[i])
					}
				}
				pa, pb := skip.Net().LearnableParams(), keep.Net().LearnableParams()
				for k := range pa {
					if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
						t.Errorf("parameter %d value %d: %v, with every top kept %v", k, i, pa[k].DataSlice()[i], pb[k].DataSlice()[i])
					}
				}
			})
		}
	}
}

// TestKeepTopsUnfusedBackward: a backward pass that cannot run fused
// after a forward that left the convolution's top unwritten (CIFAR-10
// quick's conv2, rectified in place: the ReLU's gradient reads the top)
// gives the gradients of a forward that wrote it.
func TestKeepTopsUnfusedBackward(t *testing.T) {
	if testing.Short() {
		t.Skip("runs CIFAR-10 quick's forward and backward twice")
	}
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	run := func(keep bool) *Net {
		fuseLayers = true
		n := benchSolver(t, "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, 1).Net()
		n.SetKeepTops(keep)
		fillFloats(n.Blob("conv2").DataSlice(), 7)
		if _, err := n.Forward(); err != nil {
			t.Fatal(err)
		}
		fuseLayers = false // the backward runs the layers one by one
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

// trainSGDSteps builds an SGD solver (learning rate 0.1, momentum 0.9) for
// the net text on the given threads and seed, fills its "data" blob with
// sin(i·freq) and its "label" blob with i mod 3, runs three steps and
// returns its net.
func trainSGDSteps(t *testing.T, file, net string, threads int, seed uint64, freq float64) *Net {
	t.Helper()
	np, err := ParseNetParameter(file, []byte(net))
	if err != nil {
		t.Fatal(err)
	}
	sp := &caffepb.SolverParameter{NetParam: np, BaseLr: proto.Float32(0.1), Momentum: proto.Float32(0.9),
		LrPolicy: proto.String("fixed"), Type: proto.String("SGD")}
	s, err := NewSolver(sp, SolverOptions{Threads: threads, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	x, label := s.Net().Blob("data").DataSlice(), s.Net().Blob("label").DataSlice()
	for i := range x {
		x[i] = float32(math.Sin(float64(i) * freq))
	}
	for i := range label {
		label[i] = float32(i % 3)
	}
	if err := s.Step(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	return s.Net()
}

// sameBits reports whether a and b hold the same bits, and else the first
// index where they differ.
func sameBits(a, b []float32) (int, bool) {
	if len(a) != len(b) {
		return min(len(a), len(b)), false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i, false
		}
	}
	return 0, true
}

// sameBlobs checks that every blob of fused holds the same bits as
// alone's, values and gradients.
func sameBlobs(t *testing.T, fused, alone *Net) {
	t.Helper()
	for _, name := range fused.BlobNames() {
		a, b := fused.Blob(name), alone.Blob(name)
		if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
			t.Errorf("blob %s value %d: fused %v, alone %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
		}
		if i, ok := sameBits(a.DiffSlice(), b.DiffSlice()); !ok {
			t.Errorf("blob %s gradient %d: fused %v, alone %v", name, i, a.DiffSlice()[i], b.DiffSlice()[i])
		}
	}
}

// sameNets checks sameBlobs and that every learnable parameter of fused
// holds the same values as alone's.
func sameNets(t *testing.T, fused, alone *Net) {
	t.Helper()
	sameBlobs(t, fused, alone)
	pa, pb := fused.LearnableParams(), alone.LearnableParams()
	for k := range pa {
		if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
			t.Errorf("parameter %d value %d: fused %v, alone %v", k, i, pa[k].DataSlice()[i], pb[k].DataSlice()[i])
		}
	}
}

// TestFusionRules checks which layer sequences are fused: a convolution
// whose top another layer also reads, a ReLU that is not in place, and a
// pooling with a mask top are left alone.
func TestFusionRules(t *testing.T) {
	const head = `name: "f" input: "data" input_shape { dim: 2 dim: 3 dim: 8 dim: 8 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }
`
	tests := []struct {
		name, rest string
		fused      bool
	}{
		{"conv+pool", `layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }`, true},
		{"conv+relu+pool", `layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" pooling_param { pool: AVE kernel_size: 3 stride: 2 } }`, true},
		{"conv+relu", `layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "ip" type: "InnerProduct" bottom: "conv" top: "ip" inner_product_param { num_output: 2 } }`, true},
		{"conv alone", `layer { name: "ip" type: "InnerProduct" bottom: "conv" top: "ip" inner_product_param { num_output: 2 } }`, false},
		{"relu not in place", `layer { name: "relu" type: "ReLU" bottom: "conv" top: "r" }
layer { name: "pool" type: "Pooling" bottom: "r" top: "pool" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }`, false},
		{"top read again", `layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "other" type: "ReLU" bottom: "conv" top: "other" }`, false},
		{"conv+pool+relu", `layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "relu" type: "ReLU" bottom: "pool" top: "pool" }`, true},
		{"mask top", `layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" top: "mask" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np, err := ParseNetParameter("f.prototxt", []byte(head+tt.rest))
			if err != nil {
				t.Fatal(err)
			}
			n, err := NewNet(np, NetOptions{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := n.fusions[n.layerByName["conv"]] != nil; got != tt.fused {
				t.Errorf("fused %v, want %v", got, tt.fused)
			}
		})
	}
}

// TestFusedPassesIdenticalGroups trains a net holding every kind of group
// (a convolution and its ReLU; a convolution, ReLU, pooling and ReLU; a
// column-path convolution and an AVE pooling) and a batch smaller than a
// block of lanes, fused and layer by layer, and requires identical
// weights and blobs.
func TestFusedPassesIdenticalGroups(t *testing.T) {
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	const net = `name: "groups"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: 5 dim: 3 dim: 12 dim: 12 } shape { dim: 5 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 6 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" relu_param { negative_slope: 0.1 } }
layer { name: "pool2" type: "Pooling" bottom: "conv2" top: "pool2" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "relu3" type: "ReLU" bottom: "pool2" top: "pool2" }
layer { name: "conv3" type: "Convolution" bottom: "pool2" top: "conv3" convolution_param { num_output: 4 kernel_size: 2 stride: 2 weight_filler { type: "xavier" } } }
layer { name: "pool3" type: "Pooling" bottom: "conv3" top: "pool3" pooling_param { pool: AVE kernel_size: 2 stride: 1 } }
layer { name: "ip" type: "InnerProduct" bottom: "pool3" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			run := func(fuse bool) *Net {
				fuseLayers = fuse
				return trainSGDSteps(t, "groups.prototxt", net, threads, 3, 0.37)
			}
			fused, alone := run(true), run(false)
			var groups []string
			fuseLayers = true
			for _, f := range fused.fusions {
				if f != nil && f.fits() {
					groups = append(groups, fused.LayerNames()[f.first]+"–"+fused.LayerNames()[f.last])
				}
			}
			want := []string{"conv1–relu1", "conv2–relu3", "conv3–pool3"}
			switch {
			case threads > 1 && kernel.DirectConvLanes() == 0:
				// Without a direct convolution (the noasm build) every
				// convolution runs on columns, and five images make one
				// chunk, which two threads do not share.
				want = nil
			case threads > 1:
				// conv3's five images make one chunk of columns, which
				// its two threads do not share: it runs layer by layer.
				want = want[:2]
			}
			if !slices.Equal(groups, want) {
				t.Errorf("fused groups %v, want %v", groups, want)
			}
			sameNets(t, fused, alone)
		})
	}
}

// TestFusedPoolOnBlocks checks the groups whose max pooling runs on the
// direct convolution's interleaved blocks against the layers run alone,
// bit for bit: a batch whose last block holds fewer images (25), windows
// with gaps between them (1×2 windows 2×3 apart), and a pooling whose
// backward pass runs alone after a fused forward pass, which must first
// write the mask the blocks hold.
func TestFusedPoolOnBlocks(t *testing.T) {
	testFusedPoolOnBlocks(t, `name: "blocks"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: 25 dim: 2 dim: 14 dim: 14 } shape { dim: 25 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 12 kernel_size: 3 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "conv2" type: "Convolution" bottom: "pool1" top: "conv2" convolution_param { num_output: 7 kernel_size: 2 weight_filler { type: "xavier" } bias_filler { type: "constant" value: -0.2 } } }
layer { name: "pool2" type: "Pooling" bottom: "conv2" top: "pool2" pooling_param { pool: MAX kernel_h: 1 kernel_w: 2 stride_h: 2 stride_w: 3 } }
layer { name: "relu2" type: "ReLU" bottom: "pool2" top: "pool2" }
layer { name: "ip" type: "InnerProduct" bottom: "pool2" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`, []string{"pool1", "pool2"})
}

// TestFusedOverlappingPoolOnBlocks is TestFusedPoolOnBlocks for the
// groups of CIFAR-10 quick's shapes whose pooling has overlapping 3×3
// windows of stride 2, the last clipped (Caffe's rounded-up output size):
// a convolution, a ReLU and an AVE pooling (conv2, conv3); a convolution,
// a MAX pooling and a ReLU of its top (conv1, here on the direct path);
// a convolution, a leaky ReLU and a MAX pooling; and an AVE pooling of
// 2×3 windows of stride 1 of a convolution's own values; each on a batch
// of 25 images (a last block of lanes holding fewer images; with AVX-512,
// on the column path) and of 20.
func TestFusedOverlappingPoolOnBlocks(t *testing.T) {
	for _, batch := range []int{25, 20} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			testFusedPoolOnBlocks(t, fmt.Sprintf(`name: "overlap"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: %d dim: 5 dim: 15 dim: 16 } shape { dim: %[1]d } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 12 kernel_size: 5 pad: 2 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "relu1" type: "ReLU" bottom: "pool1" top: "pool1" }
layer { name: "conv2" type: "Convolution" bottom: "pool1" top: "conv2" convolution_param { num_output: 10 kernel_size: 5 pad: 2 weight_filler { type: "xavier" } bias_filler { type: "constant" value: -0.05 } } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }
layer { name: "pool2" type: "Pooling" bottom: "conv2" top: "pool2" pooling_param { pool: AVE kernel_size: 3 stride: 2 } }
layer { name: "conv3" type: "Convolution" bottom: "pool2" top: "conv3" convolution_param { num_output: 9 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.02 } } }
layer { name: "relu3" type: "ReLU" bottom: "conv3" top: "conv3" relu_param { negative_slope: 0.1 } }
layer { name: "pool3" type: "Pooling" bottom: "conv3" top: "pool3" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "conv4" type: "Convolution" bottom: "pool3" top: "conv4" convolution_param { num_output: 6 kernel_size: 2 pad: 1 weight_filler { type: "xavier" } } }
layer { name: "pool4" type: "Pooling" bottom: "conv4" top: "pool4" pooling_param { pool: AVE kernel_h: 2 kernel_w: 3 stride: 1 } }
layer { name: "ip" type: "InnerProduct" bottom: "pool4" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`, batch), []string{"pool1", "pool2", "pool3", "pool4"})
		})
	}
}

// testFusedPoolOnBlocks runs the net fused and layer by layer, on one
// and two goroutines, and compares every blob and gradient bit for bit;
// the poolings named must run on the interleaved blocks where their
// convolution is on the direct path.
func testFusedPoolOnBlocks(t *testing.T, net string, pools []string) {
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	for _, threads := range []int{1, 2} {
		for _, mode := range []string{"fused", "fused forward"} {
			t.Run(fmt.Sprintf("threads=%d/%s", threads, mode), func(t *testing.T) {
				run := func(fuse bool) *Net {
					fuseLayers = fuse
					np, err := ParseNetParameter("blocks.prototxt", []byte(net))
					if err != nil {
						t.Fatal(err)
					}
					n, err := NewNet(np, NetOptions{Threads: threads, Seed: 5})
					if err != nil {
						t.Fatal(err)
					}
					x, label := n.Blob("data").DataSlice(), n.Blob("label").DataSlice()
					for i := range x {
						x[i] = float32(math.Sin(float64(i) * 0.61))
						if i%97 == 3 {
							x[i] = 0 // ties
						}
					}
					for i := range label {
						label[i] = float32(i % 3)
					}
					if _, err := n.Forward(); err != nil {
						t.Fatal(err)
					}
					if fuse {
						for _, name := range pools {
							c := n.Layer("conv" + name[4:]).(*Convolution)
							if p := n.Layer(name).(*Pooling); p.pending == nil && c.direct != nil && c.direct.nblocks > 1 {
								t.Errorf("%s: not pooled on the interleaved blocks", name)
							}
						}
					}
					if mode == "fused forward" && fuse {
						for i := len(n.layers) - 1; i >= 0; i-- {
							if err := n.BackwardLayer(i); err != nil {
								t.Fatal(err)
							}
						}
					} else if err := n.Backward(); err != nil {
						t.Fatal(err)
					}
					return n
				}
				fused, alone := run(true), run(false)
				sameBlobs(t, fused, alone)
				for _, name := range append([]string{"ip"}, fused.LayerNames()...) {
					if name[:min(4, len(name))] != "conv" && name != "ip" {
						continue
					}
					a, b := fused.Layer(name).Params(), alone.Layer(name).Params()
					for k := range a {
						if i, ok := sameBits(a[k].DiffSlice(), b[k].DiffSlice()); !ok {
							t.Errorf("%s parameter %d gradient %d: fused %v, alone %v", name, k, i, a[k].DiffSlice()[i], b[k].DiffSlice()[i])
						}
					}
				}
				for _, name := range pools {
					p := fused.Layer(name).(*Pooling)
					if p.pending != nil && p.method == caffepb.PoolingParameter_MAX {
						p.pending.conv.writePoolMask(p)
					}
					if !slices.Equal(p.mask, alone.Layer(name).(*Pooling).mask) {
						t.Errorf("%s: the masks differ", name)
					}
				}
			})
		}
	}
}

// TestFusedFirstConvReLULRN trains the first layers of an AlexNet-like
// net on a smaller image (a convolution on the row convolution's flat
// rows, rectified in place, then LRN across channels and max pooling),
// fused and layer by layer, and requires identical weights and blobs.
func TestFusedFirstConvReLULRN(t *testing.T) {
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	const net = `name: "first"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: 3 dim: 3 dim: 115 dim: 115 } shape { dim: 3 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 10 kernel_size: 11 stride: 4 weight_filler { type: "gaussian" std: 0.05 } bias_filler { type: "constant" value: 0.01 } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "norm1" type: "LRN" bottom: "conv1" top: "norm1" lrn_param { local_size: 5 alpha: 0.5 beta: 0.75 } }
layer { name: "pool1" type: "Pooling" bottom: "norm1" top: "pool1" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "pool1" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			run := func(fuse bool) *Net {
				fuseLayers = fuse
				return trainSGDSteps(t, "first.prototxt", net, threads, 5, 0.013)
			}
			fused, alone := run(true), run(false)
			fuseLayers = true
			if f := fused.fusions[1]; threads == 1 && (f == nil || !f.fits() || f.last != 2) {
				t.Errorf("conv1 and relu1 do not run fused")
			}
			if l := fused.layers[3].(*LRN); l.reluGrad == nil || !l.reluDone || !l.topKept {
				t.Errorf("norm1 does not compute relu1's gradient, or reads its output back")
			}
			// (The portable kernels have no row convolution.)
			if c := fused.layers[1].(*Convolution); kernel.NewRowConv(3, 115, 115, 10, 11, 11, 0, 0, 4, 4) != nil && (c.rows == nil || !c.rows.FlatForward()) {
				t.Errorf("conv1 is not on the row convolution's flat rows")
			}
			sameNets(t, fused, alone)
		})
	}
}
