package caffe

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func TestLayerInnerProductForward(t *testing.T) {
	cases := []struct {
		name   string
		param  string
		in     []int
		x      []float32
		w, b   []float32
		shape  []int
		want   []float32
		wshape []int
	}{
		{
			name: "plain", param: `num_output: 2`,
			in: []int{2, 3}, x: []float32{1, 2, 3, 4, 5, 6},
			w: []float32{1, 0, -1, 0.5, 0.5, 0.5}, b: []float32{10, 20},
			shape: []int{2, 2}, want: []float32{8, 23, 8, 27.5}, wshape: []int{2, 3},
		},
		{
			name: "transpose", param: `num_output: 2 transpose: true`,
			in: []int{2, 3}, x: []float32{1, 2, 3, 4, 5, 6},
			w: []float32{1, 0.5, 0, 0.5, -1, 0.5}, b: []float32{10, 20},
			shape: []int{2, 2}, want: []float32{8, 23, 8, 27.5}, wshape: []int{3, 2},
		},
		{
			name: "flattens", param: `num_output: 1 bias_term: false`,
			in: []int{1, 2, 1, 2}, x: []float32{1, 2, 3, 4},
			w: []float32{1, 1, 1, 1}, shape: []int{1, 1}, want: []float32{10}, wshape: []int{1, 4},
		},
		{
			name: "axis2", param: `num_output: 1 axis: 2 bias_term: false`,
			in: []int{1, 2, 2}, x: []float32{1, 2, 3, 4},
			w: []float32{1, -1}, shape: []int{1, 2, 1}, want: []float32{-1, -1}, wshape: []int{1, 2},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := blobOf(c.in, c.x...), NewBlob()
			l := setupLayer(t, `type: "InnerProduct" inner_product_param { `+c.param+` }`, nil, blobs(x), blobs(y))
			if got := l.Params()[0].Shape(); fmt.Sprint(got) != fmt.Sprint(c.wshape) {
				t.Fatalf("weight shape %v, want %v", got, c.wshape)
			}
			copy(l.Params()[0].DataSlice(), c.w)
			if c.b != nil {
				copy(l.Params()[1].DataSlice(), c.b)
			}
			if err := l.Forward(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(y.Shape()) != fmt.Sprint(c.shape) || !closeSlices(y.DataSlice(), c.want, 1e-6) {
				t.Errorf("output %v %v, want %v %v", y.Shape(), y.DataSlice(), c.shape, c.want)
			}
		})
	}
}

func TestLayerInnerProductBackward(t *testing.T) {
	x, y := blobOf([]int{2, 2}, 1, 2, 3, 4), NewBlob()
	l := setupLayer(t, `type: "InnerProduct" inner_product_param { num_output: 1 }`, nil, blobs(x), blobs(y))
	copy(l.Params()[0].DataSlice(), []float32{2, -1})
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	copy(y.DiffSlice(), []float32{1, 10})
	fillFloats(l.Params()[0].DiffSlice(), 100) // gradients accumulate
	l.Backward(blobs(y), []bool{true}, blobs(x))
	if want := []float32{131, 142}; !closeSlices(l.Params()[0].DiffSlice(), want, 0) {
		t.Errorf("weight gradient %v, want %v", l.Params()[0].DiffSlice(), want)
	}
	if want := []float32{11}; !closeSlices(l.Params()[1].DiffSlice(), want, 0) {
		t.Errorf("bias gradient %v, want %v", l.Params()[1].DiffSlice(), want)
	}
	if want := []float32{2, -1, 20, -10}; !closeSlices(x.DiffSlice(), want, 0) {
		t.Errorf("bottom gradient %v, want %v", x.DiffSlice(), want)
	}
}

func TestLayerInnerProductErrors(t *testing.T) {
	if _, err := NewLayer(parseLayerDef(t, `type: "InnerProduct"`), nil); err == nil || !strings.Contains(err.Error(), "num_output") {
		t.Errorf("no num_output: %v", err)
	}
	x := NewBlob(2, 3)
	l := setupLayer(t, `type: "InnerProduct" inner_product_param { num_output: 2 }`, nil, blobs(x), blobs(NewBlob()))
	x.Reshape(2, 4)
	if err := l.Reshape(blobs(x), blobs(NewBlob())); err == nil || !strings.Contains(err.Error(), "K = 3") {
		t.Errorf("Reshape to another K: %v", err)
	}
}

func TestLayerInnerProductAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	x, y := randBlob(1, -1, 1, 8, 20), NewBlob()
	l := setupLayer(t, `type: "InnerProduct" inner_product_param { num_output: 10 }`, &LayerEnv{Threads: 2}, blobs(x), blobs(y))
	bs, ts, down := blobs(x), blobs(y), []bool{true}
	allocs, sites := alloctest.Count(5, func() {
		if err := l.Reshape(bs, ts); err != nil {
			t.Fatal(err)
		}
		if err := l.Forward(bs, ts); err != nil {
			t.Fatal(err)
		}
		l.Backward(ts, down, bs)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Reshape+Forward+Backward, want 0:%s", allocs, alloctest.String(sites))
	}
}

// TestLayerInnerProductMatchesSgemm checks Forward and Backward on one and
// two threads, bit for bit, against the products computed with Sgemm as
// the layer defines them (topᵀ = W·bottomᵀ, dW += dyᵀ·x, dx = dy·W, db
// += the rows of dy one by one), on
// batches of 1..100 and sizes that are not multiples of the tiles.
func TestLayerInnerProductMatchesSgemm(t *testing.T) {
	for _, s := range []struct{ m, n, k int }{{1, 7, 5}, {3, 33, 70}, {32, 300, 600}, {64, 500, 800}, {100, 65, 1030}, {5, 1030, 1030}} {
		for _, threads := range []int{1, 2} {
			x, y := randBlob(1, -1, 1, s.m, s.k), NewBlob()
			def := fmt.Sprintf(`type: "InnerProduct" inner_product_param { num_output: %d weight_filler { type: "gaussian" std: 0.1 } bias_filler { type: "gaussian" std: 1 } }`, s.n)
			l := setupLayer(t, def, &LayerEnv{Threads: threads}, blobs(x), blobs(y))
			w, bias := l.Params()[0].DataSlice(), l.Params()[1].DataSlice()
			dw0 := randBlob(3, -1, 1, s.n, s.k).DataSlice()
			copy(l.Params()[0].DiffSlice(), dw0)
			db0 := randBlob(4, -1, 1, s.n).DataSlice()
			copy(l.Params()[1].DiffSlice(), db0)
			if err := l.Forward(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			copy(y.DiffSlice(), randBlob(2, -1, 1, s.m, s.n).DataSlice())
			l.Backward(blobs(y), []bool{true}, blobs(x))

			m, n, k := s.m, s.n, s.k
			yT := make([]float32, n*m)
			kernel.Sgemm(false, true, n, m, k, 1, w, k, x.DataSlice(), k, 0, yT, m)
			wantY := make([]float32, m*n)
			for j := range n {
				for i := range m {
					wantY[i*n+j] = yT[j*m+i] + bias[j]
				}
			}
			wantDW := append([]float32(nil), dw0...)
			kernel.Sgemm(true, false, n, k, m, 1, y.DiffSlice(), n, x.DataSlice(), k, 1, wantDW, k)
			wantDB := append([]float32(nil), db0...)
			for i := range m {
				for j := range n {
					wantDB[j] += y.DiffSlice()[i*n+j]
				}
			}
			wantDX := make([]float32, m*k)
			kernel.Sgemm(false, false, m, k, n, 1, y.DiffSlice(), n, w, k, 0, wantDX, k)
			for _, c := range []struct {
				name      string
				got, want []float32
			}{{"top", y.DataSlice(), wantY}, {"weight gradient", l.Params()[0].DiffSlice(), wantDW},
				{"bias gradient", l.Params()[1].DiffSlice(), wantDB}, {"bottom gradient", x.DiffSlice(), wantDX}} {
				for i := range c.want {
					if math.Float32bits(c.got[i]) != math.Float32bits(c.want[i]) {
						t.Fatalf("m=%d n=%d k=%d threads=%d: %s[%d] = %g, Sgemm gives %g", m, n, k, threads, c.name, i, c.got[i], c.want[i])
					}
				}
			}
		}
	}
}

// TestDealTasks checks how dealTasks deals groups of tasks into shares:
// each share its span of every group in turn, the later groups numbered
// on from each other below zero, and the shares' starts.
func TestDealTasks(t *testing.T) {
	for _, c := range []struct {
		threads int
		counts  []int
		tasks   []int
		starts  []int
	}{
		{2, []int{2, 4}, []int{0, -1, -2, 1, -3, -4}, []int{0, 3, 6}},
		{2, []int{3, 5}, []int{0, -1, -2, 1, 2, -3, -4, -5}, []int{0, 3, 8}},
		{2, []int{4, 2, 2}, []int{0, 1, -1, -3, 2, 3, -2, -4}, []int{0, 4, 8}},
		{3, []int{1, 1}, []int{0, -1}, []int{0, 0, 2}}, // two shares, the first empty
		{1, []int{2, 1}, []int{0, 1, -1}, []int{0, 3}},
		{4, []int{1}, []int{0}, []int{0, 1}},
	} {
		starts := []int{7}
		tasks := dealTasks([]int{9, 9}, &starts, c.threads, c.counts...)
		if !slices.Equal(tasks, c.tasks) || !slices.Equal(starts, c.starts) {
			t.Errorf("dealTasks(%d, %v) = %v, starts %v; want %v, %v", c.threads, c.counts, tasks, starts, c.tasks, c.starts)
		}
		if again := dealTasks(tasks, nil, c.threads, c.counts...); !slices.Equal(again, c.tasks) {
			t.Errorf("dealTasks(%d, %v) reusing its tasks = %v", c.threads, c.counts, again)
		}
	}
}
