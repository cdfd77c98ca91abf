package caffe

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// TestLayerConvolutionRowsExact checks that a convolution on the row
// convolution (kernel.RowConv: CIFAR-10 quick's first, AlexNet's first on
// narrower and shorter images) gives the same top as on the column path,
// bit for bit, and the same gradients, on one and two threads, and that
// its Forward and Backward allocate nothing.
func TestLayerConvolutionRowsExact(t *testing.T) {
	defer func(v bool) { convRows = v }(convRows)
	cases := []struct {
		name string
		conv string
		in   []int
		plan func() *kernel.RowConv
	}{
		{"cifar-conv1", `num_output: 32 pad: 2 kernel_size: 5`, []int{7, 3, 32, 32},
			func() *kernel.RowConv { return kernel.NewRowConv(3, 32, 32, 32, 5, 5, 2, 2, 1, 1) }},
		{"alexnet-conv1-narrow", `num_output: 20 kernel_size: 11 stride: 4`, []int{3, 3, 31, 119},
			func() *kernel.RowConv { return kernel.NewRowConv(3, 31, 119, 20, 11, 11, 0, 0, 4, 4) }},
		{"alexnet-conv1-rows", `num_output: 14 kernel_size: 11 stride: 4`, []int{2, 3, 19, 227},
			func() *kernel.RowConv { return kernel.NewRowConv(3, 19, 227, 14, 11, 11, 0, 0, 4, 4) }},
	}
	for _, c := range cases {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/threads=%d", c.name, threads), func(t *testing.T) {
				testConvolutionRowsExact(t, c.conv, c.in, threads, c.plan() != nil)
			})
		}
	}
}

func testConvolutionRowsExact(t *testing.T, conv string, in []int, threads int, planned bool) {
	def := `type: "Convolution" convolution_param { ` + conv + ` weight_filler { type: "gaussian" std: 0.1 } bias_filler { type: "gaussian" std: 0.1 } }`
	run := func(rows bool) (*Convolution, *Blob, *Blob) {
		convRows = rows
		x, y := randBlob(1, -1, 1, in...), NewBlob()
		l := setupLayer(t, def, &LayerEnv{Seed: 3, Threads: threads}, blobs(x), blobs(y)).(*Convolution)
		if err := l.Forward(blobs(x), blobs(y)); err != nil {
			t.Fatal(err)
		}
		copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
		l.Backward(blobs(y), []bool{true}, blobs(x))
		return l, x, y
	}
	lc, xc, yc := run(false)
	lr, xr, yr := run(true)
	if lc.rows != nil {
		t.Fatal("column path: the row convolution is planned")
	}
	if (lr.rows != nil) != planned {
		t.Fatalf("row convolution planned %v", lr.rows != nil)
	}
	same := func(what string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s[%d] = %g, want %g (the column path)", what, i, got[i], want[i])
			}
		}
	}
	same("top", yr.DataSlice(), yc.DataSlice())
	same("bottom gradient", xr.DiffSlice(), xc.DiffSlice())
	same("weight gradient", lr.Params()[0].DiffSlice(), lc.Params()[0].DiffSlice())
	same("bias gradient", lr.Params()[1].DiffSlice(), lc.Params()[1].DiffSlice())
	if raceEnabled {
		return
	}
	bs, ts := blobs(xr), blobs(yr)
	for _, down := range []bool{true, false} {
		allocs, sites := alloctest.Count(3, func() {
			if err := lr.Forward(bs, ts); err != nil {
				t.Fatal(err)
			}
			lr.Backward(ts, []bool{down}, bs)
		})
		if allocs != 0 {
			t.Errorf("propagate down %v: %v allocations per Forward+Backward, want 0:%s", down, allocs, alloctest.String(sites))
		}
	}
}

// TestLayerConvolutionRowsWeightGrad checks the weight and bias gradients
// of a first layer (no bottom gradient wanted) on the row convolution,
// whose lanes sum in another order (AlexNet's geometry on flat rows,
// CIFAR-10 quick's in the row layout), against the column path's to
// rounding, on one and two threads.
func TestLayerConvolutionRowsWeightGrad(t *testing.T) {
	defer func(v bool) { convRows = v }(convRows)
	for _, c := range []struct {
		name, conv string
		in         []int
	}{
		{"cifar-conv1", `num_output: 32 pad: 2 kernel_size: 5`, []int{5, 3, 32, 32}},
		{"alexnet-conv1-rows", `num_output: 14 kernel_size: 11 stride: 4`, []int{3, 3, 35, 227}},
	} {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/threads=%d", c.name, threads), func(t *testing.T) {
				def := `type: "Convolution" convolution_param { ` + c.conv + ` weight_filler { type: "gaussian" std: 0.1 } bias_filler { type: "gaussian" std: 0.1 } }`
				run := func(rows bool) (*Convolution, []float32, []float32) {
					convRows = rows
					x, y := randBlob(1, -1, 1, c.in...), NewBlob()
					l := setupLayer(t, def, &LayerEnv{Seed: 3, Threads: threads}, blobs(x), blobs(y)).(*Convolution)
					if err := l.Forward(blobs(x), blobs(y)); err != nil {
						t.Fatal(err)
					}
					copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
					l.Backward(blobs(y), []bool{false}, blobs(x))
					return l, l.Params()[0].DiffSlice(), l.Params()[1].DiffSlice()
				}
				_, wc, bc := run(false)
				lr, wr, br := run(true)
				if lr.rows == nil || !lr.rows.GradFits() {
					t.Skip("no row weight gradient with these kernels")
				}
				for name, p := range map[string][2][]float32{"weight": {wr, wc}, "bias": {br, bc}} {
					for i := range p[1] {
						if d := math.Abs(float64(p[0][i] - p[1][i])); d > 1e-4*(1+math.Abs(float64(p[1][i]))) {
							t.Fatalf("%s gradient[%d] = %g, want %g (the column path)", name, i, p[0][i], p[1][i])
						}
					}
				}
			})
		}
	}
}
