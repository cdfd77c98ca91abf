package caffe

import (
	"fmt"
	"strings"
	"testing"
)

func TestLayerConcat(t *testing.T) {
	cases := []struct {
		name   string
		param  string
		a, b   *Blob
		shape  []int
		want   []float32
		errSub string
	}{
		{"axis1", ``, blobOf([]int{2, 1}, 1, 2), blobOf([]int{2, 2}, 3, 4, 5, 6), []int{2, 3}, []float32{1, 3, 4, 2, 5, 6}, ""},
		{"axis0", `concat_param { axis: 0 }`, blobOf([]int{1, 2}, 1, 2), blobOf([]int{2, 2}, 3, 4, 5, 6), []int{3, 2}, []float32{1, 2, 3, 4, 5, 6}, ""},
		{"concat_dim", `concat_param { concat_dim: 0 }`, blobOf([]int{1, 2}, 1, 2), blobOf([]int{1, 2}, 3, 4), []int{2, 2}, []float32{1, 2, 3, 4}, ""},
		{"mismatch", ``, NewBlob(2, 1), NewBlob(3, 1), nil, nil, "same shape except"},
		{"both-axes", `concat_param { axis: 0 concat_dim: 0 }`, NewBlob(2, 1), NewBlob(2, 1), nil, nil, "not both"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y := NewBlob()
			l, err := NewLayer(parseLayerDef(t, `type: "Concat" `+c.param), nil)
			if err == nil {
				err = l.Setup(blobs(c.a, c.b), blobs(y))
			}
			if c.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), c.errSub) {
					t.Fatalf("error %v, want %q", err, c.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Forward(blobs(c.a, c.b), blobs(y)); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(y.Shape()) != fmt.Sprint(c.shape) || !closeSlices(y.DataSlice(), c.want, 0) {
				t.Errorf("got %v %v, want %v %v", y.Shape(), y.DataSlice(), c.shape, c.want)
			}
		})
	}
}

func TestLayerSlice(t *testing.T) {
	x := blobOf([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	cases := []struct {
		name   string
		param  string
		tops   int
		want   [][]float32
		errSub string
	}{
		{"points", `slice_param { slice_point: 1 }`, 2, [][]float32{{1, 4}, {2, 3, 5, 6}}, ""},
		{"equal", `slice_param { axis: 1 }`, 3, [][]float32{{1, 4}, {2, 5}, {3, 6}}, ""},
		{"axis0", `slice_param { slice_dim: 0 }`, 2, [][]float32{{1, 2, 3}, {4, 5, 6}}, ""},
		{"uneven", ``, 2, nil, "evenly divide"},
		{"point-count", `slice_param { slice_point: 1 slice_point: 2 }`, 2, nil, "one fewer"},
		{"point-order", `slice_param { slice_point: 2 slice_point: 1 }`, 3, nil, "ascending"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top := make([]*Blob, c.tops)
			for i := range top {
				top[i] = NewBlob()
			}
			l, err := NewLayer(parseLayerDef(t, `type: "Slice" `+c.param), nil)
			if err == nil {
				err = l.Setup(blobs(x), top)
			}
			if c.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), c.errSub) {
					t.Fatalf("error %v, want %q", err, c.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Forward(blobs(x), top); err != nil {
				t.Fatal(err)
			}
			for i, tp := range top {
				if !closeSlices(tp.DataSlice(), c.want[i], 0) {
					t.Errorf("top %d = %v, want %v", i, tp.DataSlice(), c.want[i])
				}
			}
		})
	}
}

func TestLayerSplitSharesData(t *testing.T) {
	x, a, b := blobOf([]int{3}, 1, 2, 3), NewBlob(), NewBlob()
	l := setupLayer(t, `type: "Split"`, nil, blobs(x), blobs(a, b))
	if err := l.Forward(blobs(x), blobs(a, b)); err != nil {
		t.Fatal(err)
	}
	x.DataSlice()[0] = 7
	if a.DataSlice()[0] != 7 || b.DataSlice()[0] != 7 {
		t.Errorf("tops %v %v do not share the bottom's values", a.DataSlice(), b.DataSlice())
	}
	copy(a.DiffSlice(), []float32{1, 2, 3})
	copy(b.DiffSlice(), []float32{10, 20, 30})
	l.Backward(blobs(a, b), []bool{true}, blobs(x))
	if want := []float32{11, 22, 33}; !closeSlices(x.DiffSlice(), want, 0) {
		t.Errorf("gradient %v, want %v", x.DiffSlice(), want)
	}
}

func TestLayerFlattenReshape(t *testing.T) {
	cases := []struct {
		name, def string
		in        []int
		want      []int
		errSub    string
	}{
		{"flatten", `type: "Flatten"`, []int{2, 3, 4, 5}, []int{2, 60}, ""},
		{"flatten-range", `type: "Flatten" flatten_param { axis: 1 end_axis: 2 }`, []int{2, 3, 4, 5}, []int{2, 12, 5}, ""},
		{"flatten-all", `type: "Flatten" flatten_param { axis: 0 }`, []int{2, 3}, []int{6}, ""},
		{"reshape-infer", `type: "Reshape" reshape_param { shape { dim: 0 dim: -1 dim: 2 } }`, []int{2, 3, 4}, []int{2, 6, 2}, ""},
		{"reshape-axes", `type: "Reshape" reshape_param { shape { dim: 2 dim: 2 } axis: 1 num_axes: 1 }`, []int{3, 4, 5}, []int{3, 2, 2, 5}, ""},
		{"reshape-insert", `type: "Reshape" reshape_param { shape { dim: 1 } axis: -1 num_axes: 0 }`, []int{3, 4}, []int{3, 4, 1}, ""},
		{"reshape-bad-count", `type: "Reshape" reshape_param { shape { dim: 5 } }`, []int{2, 3}, nil, "has 5 values"},
		{"reshape-two-infer", `type: "Reshape" reshape_param { shape { dim: -1 dim: -1 } }`, []int{2, 3}, nil, "more than one -1"},
		{"reshape-no-copy-axis", `type: "Reshape" reshape_param { shape { dim: 0 dim: 0 dim: 0 } }`, []int{6, 1}, nil, "no axis 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := randBlob(1, -1, 1, c.in...), NewBlob()
			l, err := NewLayer(parseLayerDef(t, c.def), nil)
			if err == nil {
				err = l.Setup(blobs(x), blobs(y))
			}
			if c.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), c.errSub) {
					t.Fatalf("error %v, want %q", err, c.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(y.Shape()) != fmt.Sprint(c.want) {
				t.Errorf("shape %v, want %v", y.Shape(), c.want)
			}
			if err := l.Forward(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			if !closeSlices(y.DataSlice(), x.DataSlice(), 0) {
				t.Error("values moved")
			}
			if err := l.Setup(blobs(x), blobs(x)); err == nil {
				t.Error("in-place Setup succeeded")
			}
		})
	}
}

func TestLayerSilence(t *testing.T) {
	x := randBlob(1, -1, 1, 2, 2)
	copy(x.DiffSlice(), []float32{1, 2, 3, 4})
	l := setupLayer(t, `type: "Silence"`, nil, blobs(x), nil)
	if err := l.Forward(blobs(x), nil); err != nil {
		t.Fatal(err)
	}
	l.Backward(nil, []bool{true}, blobs(x))
	if !closeSlices(x.DiffSlice(), make([]float32, 4), 0) {
		t.Errorf("gradient %v, want zeros", x.DiffSlice())
	}
}
