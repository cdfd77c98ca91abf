package caffe

import (
	"fmt"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// TestDirectBackwardOnePass trains a net whose middle convolutions need
// both their input and weight gradients on the direct path, each with an
// in-place ReLU (the second leaky), whose backward pass reads a block's
// output gradient once for the ReLU's gradient, the bias gradient and
// both interleaved layouts (kernel.DirectConv.LoadGradTiles): fused and
// layer by layer, on one and two threads, with a batch of a whole block
// and a last block on the column path, and requires identical weights,
// blobs and gradients.
func TestDirectBackwardOnePass(t *testing.T) {
	lanes := kernel.DirectConvLanes()
	if lanes == 0 {
		t.Skip("no direct convolution with these kernels")
	}
	batch := lanes + 2
	net := fmt.Sprintf(`name: "onepass"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: %d dim: 3 dim: 9 dim: 9 } shape { dim: %d } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 16 kernel_size: 3 pad: 1 group: 2 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.05 } } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" relu_param { negative_slope: 0.1 } }
layer { name: "conv3" type: "Convolution" bottom: "conv2" top: "conv3" convolution_param { num_output: 6 kernel_size: 5 pad: 2 weight_filler { type: "xavier" } } }
layer { name: "relu3" type: "ReLU" bottom: "conv3" top: "conv3" }
layer { name: "ip" type: "InnerProduct" bottom: "conv3" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`, batch, batch)
	trainFusedAlone(t, "onepass.prototxt", net, 0.29, func(t *testing.T, n *Net) {
		for _, name := range []string{"conv2", "conv3"} {
			if c := n.Layer(name).(*Convolution); c.direct == nil {
				t.Fatalf("%s is not on the direct path", name)
			}
		}
	})
}

// trainFusedAlone trains net (trainSGDSteps, input frequency freq) fused
// and layer by layer on one and two threads, checks the fused net with
// check, and requires the same weights, blobs and gradients of both.
func trainFusedAlone(t *testing.T, file, net string, freq float64, check func(*testing.T, *Net)) {
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			run := func(fuse bool) *Net {
				fuseLayers = fuse
				return trainSGDSteps(t, file, net, threads, 5, freq)
			}
			fused, alone := run(true), run(false)
			check(t, fused)
			sameNets(t, fused, alone)
		})
	}
}

// TestWinogradTraining trains a net whose 3×3 convolutions of 64 channels a group
// and 5×5 one of 48 run their forward passes and input gradients on
// Winograd's transforms (kernel.DirectConv.Winograd), the second with an
// overlapping MAX pooling that the fused path computes from the whole
// block's output:
// fused and layer by layer, on one and two threads, with a batch of a
// whole block and a last block of two images, and requires identical
// weights, blobs and gradients.
func TestWinogradTraining(t *testing.T) {
	lanes := kernel.DirectConvLanes()
	if lanes == 0 || !kernel.Winograd() {
		t.Skip("no Winograd's transforms with these kernels")
	}
	batch := lanes + 2
	net := fmt.Sprintf(`name: "winograd"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: %d dim: 64 dim: 7 dim: 7 } shape { dim: %d } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 128 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 128 kernel_size: 3 pad: 1 group: 2 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.05 } } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }
layer { name: "pool2" type: "Pooling" bottom: "conv2" top: "pool2" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "conv3" type: "Convolution" bottom: "pool2" top: "conv3" convolution_param { num_output: 96 kernel_size: 5 pad: 2 group: 2 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.02 } } }
layer { name: "relu3" type: "ReLU" bottom: "conv3" top: "conv3" }
layer { name: "ip" type: "InnerProduct" bottom: "conv3" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`, batch, batch)
	trainFusedAlone(t, "winograd.prototxt", net, 0.37, func(t *testing.T, n *Net) {
		for _, name := range []string{"conv1", "conv2", "conv3"} {
			if c := n.Layer(name).(*Convolution); !c.winograd() {
				t.Fatalf("%s is not on Winograd's transforms", name)
			}
		}
	})
}
