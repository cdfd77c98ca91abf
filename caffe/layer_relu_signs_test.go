package caffe

import (
	"fmt"
	"testing"
)

// reluSignsNet has ReLUs in place (relu1, with a negative slope, whose
// signs are then not the inputs', on 4×40,000 values, which two threads
// share out; relu2 on too few values to record signs), one not in place,
// and one in place followed by an in-place Dropout, which rewrites its
// blob before the backward pass.
const reluSignsNet = `
name: "relusigns"
force_backward: true
layer { name: "in" type: "Input" top: "x" top: "label"
  input_param { shape { dim: 4 dim: 7 } shape { dim: 4 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "x" top: "h1"
  inner_product_param { num_output: 40000 weight_filler { type: "gaussian" std: 1 } bias_filler { type: "gaussian" std: 0.5 } } }
layer { name: "relu1" type: "ReLU" bottom: "h1" top: "h1" relu_param { negative_slope: -0.5 } }
layer { name: "ip2" type: "InnerProduct" bottom: "h1" top: "h2"
  inner_product_param { num_output: 37 weight_filler { type: "gaussian" std: 0.01 } bias_filler { type: "gaussian" std: 0.5 } } }
layer { name: "relu2" type: "ReLU" bottom: "h2" top: "h2" }
layer { name: "relu3" type: "ReLU" bottom: "h2" top: "h3" relu_param { negative_slope: 0.1 } }
layer { name: "relu4" type: "ReLU" bottom: "h3" top: "h3" }
layer { name: "drop4" type: "Dropout" bottom: "h3" top: "h3" }
layer { name: "ip3" type: "InnerProduct" bottom: "h3" top: "score"
  inner_product_param { num_output: 5 weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "score" bottom: "label" top: "loss" }
`

// TestReLUSigns checks that the ReLUs in place whose blobs no later layer
// writes keep their signs, and that the net's values and gradients are
// those of the same net whose ReLUs read their outputs back, bit for
// bit, over a few passes, on one and two threads.
func TestReLUSigns(t *testing.T) {
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			signs := mustNet(t, reluSignsNet, NetOptions{Seed: 3, Threads: threads})
			plain := mustNet(t, reluSignsNet, NetOptions{Seed: 3, Threads: threads})
			want := map[string]bool{"relu1": true, "relu2": true, "relu3": false, "relu4": false}
			for i, name := range signs.LayerNames() {
				r, ok := signs.layers[i].(*ReLU)
				if !ok {
					continue
				}
				if r.keepSigns != want[name] {
					t.Errorf("%s: keepSigns %v, want %v", name, r.keepSigns, want[name])
				}
				plain.layers[i].(*ReLU).keepSigns = false
			}
			for pass := range 3 {
				for _, n := range []*Net{signs, plain} {
					x := n.Blob("x").DataSlice()
					for i := range x {
						x[i] = float32((i*7+pass*3)%11) - 5
					}
					copy(n.Blob("label").DataSlice(), []float32{0, 2, 4, 1})
					for i := range n.NumLayers() {
						if _, err := n.ForwardLayer(i); err != nil {
							t.Fatal(err)
						}
					}
				}
				relu1 := signs.layers[2].(*ReLU)
				if !relu1.signsValid {
					t.Fatalf("pass %d: relu1 kept no signs", pass)
				}
				for _, n := range []*Net{signs, plain} {
					for i := n.NumLayers() - 1; i >= 0; i-- {
						if err := n.BackwardLayer(i); err != nil {
							t.Fatal(err)
						}
					}
				}
				if relu1.signsValid {
					t.Fatalf("pass %d: relu1's signs outlive its backward pass", pass)
				}
				sameBlobs(t, signs, plain)
			}
		})
	}
}

// TestReLUSignsFused checks that a fused group's forward pass, which
// leaves its ReLU's Forward out, drops the signs an earlier pass of the
// ReLU alone recorded.
func TestReLUSignsFused(t *testing.T) {
	const src = `
name: "fusedrelu"
force_backward: true
layer { name: "in" type: "Input" top: "x" top: "label"
  input_param { shape { dim: 16 dim: 3 dim: 36 dim: 36 } shape { dim: 16 } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "c"
  convolution_param { num_output: 8 kernel_size: 3 weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "relu" type: "ReLU" bottom: "c" top: "c" }
layer { name: "pool" type: "Pooling" bottom: "c" top: "p" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "p" top: "score"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "score" bottom: "label" top: "loss" }
`
	n := mustNet(t, src, NetOptions{Seed: 1, Threads: 1})
	if n.fusions[1] == nil || n.fusions[1].relu == nil {
		t.Fatal("the convolution and its ReLU make no fused group")
	}
	r := n.fusions[1].relu
	for i := range n.NumLayers() {
		if _, err := n.ForwardLayer(i); err != nil {
			t.Fatal(err)
		}
	}
	if !r.signsValid {
		t.Fatal("the ReLU run alone kept no signs")
	}
	if _, err := n.Forward(); err != nil {
		t.Fatal(err)
	}
	if r.signsValid {
		t.Error("the signs of the ReLU's own pass outlive the fused group's pass")
	}
}

// TestReLUSignsInnerProduct checks the same for an inner product whose
// forward pass rectifies its top itself (Net.ipReLUs).
func TestReLUSignsInnerProduct(t *testing.T) {
	const src = `
name: "iprelu"
force_backward: true
layer { name: "in" type: "Input" top: "x" top: "label"
  input_param { shape { dim: 4 dim: 7 } shape { dim: 4 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "x" top: "h"
  inner_product_param { num_output: 20000 weight_filler { type: "gaussian" std: 1 } } }
layer { name: "relu" type: "ReLU" bottom: "h" top: "h" }
layer { name: "ip2" type: "InnerProduct" bottom: "h" top: "score"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.01 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "score" bottom: "label" top: "loss" }
`
	n := mustNet(t, src, NetOptions{Seed: 1, Threads: 1})
	r := n.ipReLUs[1]
	if r == nil {
		t.Fatal("ip1 and its ReLU do not run as one")
	}
	for i := range n.NumLayers() {
		if _, err := n.ForwardLayer(i); err != nil {
			t.Fatal(err)
		}
	}
	if !r.signsValid {
		t.Fatal("the ReLU run alone kept no signs")
	}
	if _, err := n.Forward(); err != nil {
		t.Fatal(err)
	}
	if r.signsValid {
		t.Error("the signs of the ReLU's own pass outlive the inner product's pass with it")
	}
}
