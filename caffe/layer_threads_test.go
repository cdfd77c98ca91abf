package caffe

import (
	"fmt"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
)

// TestLayerThreads runs the layers that share their work among threads on
// one, two and three of them: the outputs and the bottom gradients must be
// those of one thread exactly, the parameter gradients (summed in another
// order) nearly, and the runs must not allocate. The inputs are large
// enough for every layer to use all the threads (the convolutions take an
// image per product).
func TestLayerThreads(t *testing.T) {
	defer func(v int) { convColBudget = v }(convColBudget)
	convColBudget = 1 << 13
	cases := []struct {
		name string
		def  string
		in   []int
		// exactParams: the parameter gradients do not depend on the split.
		exactParams bool
	}{
		{"ReLU", `type: "ReLU"`, []int{4, 8, 64, 80}, true},
		{"ReLU/leaky", `type: "ReLU" relu_param { negative_slope: 0.1 }`, []int{3, 7, 100, 101}, true},
		{"Pooling/MAX", `type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }`, []int{4, 16, 32, 32}, true},
		{"Pooling/AVE", `type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 }`, []int{4, 16, 32, 32}, true},
		{"LRN", `type: "LRN" lrn_param { local_size: 5 alpha: 0.5 beta: 0.75 }`, []int{5, 7, 9, 11}, true},
		{"LRN/WITHIN", `type: "LRN" lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 norm_region: WITHIN_CHANNEL }`, []int{3, 4, 9, 11}, true},
		// 29 rows split 28 + 1 on two threads (AVX-512 tiles of 14 rows).
		{"InnerProduct/transpose", `type: "InnerProduct" inner_product_param { num_output: 8 transpose: true weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{29, 9100}, true},
		// 600 outputs: the input gradient in 3 blocks of depth on 2 and 3
		// threads (inputGradBlocks); 2,000: 8 blocks, in parts of
		// columns.
		{"InnerProduct/depth-blocks", `type: "InnerProduct" inner_product_param { num_output: 600 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{33, 300}, true},
		// Products too small to split: the input and weight gradients
		// side by side (backwardPair).
		{"InnerProduct/pair", `type: "InnerProduct" inner_product_param { num_output: 10 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{7, 3, 5, 5}, true},
		// Images and weight columns halved: 32 + 32 rows, 48 + 52 columns.
		{"InnerProduct/pair-halves", `type: "InnerProduct" inner_product_param { num_output: 10 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{64, 100}, true},
		// 64 outputs: few row tiles, a part each (fcRowParts).
		{"InnerProduct/row-tiles", `type: "InnerProduct" inner_product_param { num_output: 64 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{100, 1024}, true},
		{"InnerProduct/columns", `type: "InnerProduct" inner_product_param { num_output: 2000 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{20, 2, 5, 30}, true},
		{"Convolution", `type: "Convolution" convolution_param { num_output: 6 kernel_size: 3 pad: 1 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{9, 4, 24, 24}, false},
		{"Deconvolution", `type: "Deconvolution" convolution_param { num_output: 4 group: 2 kernel_size: 3 stride: 2 pad: 1 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{9, 4, 10, 10}, false},
		{"Convolution/group-stride", `type: "Convolution" convolution_param { num_output: 4 group: 2 kernel_size: 3 stride: 2 weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`, []int{7, 4, 31, 31}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, grad [][]float32
			var params [][][]float32
			for _, threads := range []int{1, 2, 3} {
				x, y := randBlob(1, -1, 1, c.in...), NewBlob()
				l := setupLayer(t, c.def, &LayerEnv{Seed: 3, Threads: threads}, blobs(x), blobs(y))
				dy := randBlob(2, -1, 1, y.Shape()...).DataSlice()
				bs, ts, down := blobs(x), blobs(y), []bool{true}
				step := func() {
					for _, p := range l.Params() {
						clear(p.DiffSlice())
					}
					if err := l.Forward(bs, ts); err != nil {
						t.Fatal(err)
					}
					copy(y.DiffSlice(), dy)
					l.Backward(ts, down, bs)
				}
				step()
				out = append(out, append([]float32(nil), y.DataSlice()...))
				grad = append(grad, append([]float32(nil), x.DiffSlice()...))
				var ps [][]float32
				for _, p := range l.Params() {
					ps = append(ps, append([]float32(nil), p.DiffSlice()...))
				}
				params = append(params, ps)
				if !raceEnabled {
					if allocs, sites := alloctest.Count(3, step); allocs != 0 {
						t.Errorf("%d threads: %v allocations per Forward+Backward, want 0:%s", threads, allocs, alloctest.String(sites))
					}
				}
			}
			for i := 1; i < len(out); i++ {
				what := fmt.Sprintf("%d threads", i+1)
				if j := firstDiff(out[i], out[0], 0); j >= 0 {
					t.Errorf("%s: output %d = %v, one thread %v", what, j, out[i][j], out[0][j])
				}
				if j := firstDiff(grad[i], grad[0], 0); j >= 0 {
					t.Errorf("%s: bottom gradient %d = %v, one thread %v", what, j, grad[i][j], grad[0][j])
				}
				tol := 1e-5
				if c.exactParams {
					tol = 0
				}
				for k := range params[i] {
					if j := firstDiff(params[i][k], params[0][k], tol); j >= 0 {
						t.Errorf("%s: parameter %d gradient %d = %v, one thread %v", what, k, j, params[i][k][j], params[0][k][j])
					}
				}
			}
		})
	}
}
