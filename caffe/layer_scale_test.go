package caffe

import (
	"fmt"
	"testing"
)

func TestLayerScaleBias(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6} // [1, 2, 3]
	cases := []struct {
		name   string
		def    string
		params [][]float32
		second *Blob
		want   []float32
		pshape []int
	}{
		{"scale-channel", `type: "Scale"`, [][]float32{{2, -1}}, nil, []float32{2, 4, 6, -4, -5, -6}, []int{2}},
		{"scale-bias", `type: "Scale" scale_param { bias_term: true }`, [][]float32{{2, -1}, {1, 10}}, nil, []float32{3, 5, 7, 6, 5, 4}, []int{2}},
		{"scale-last-axis", `type: "Scale" scale_param { axis: -1 }`, [][]float32{{1, 0, -1}}, nil, []float32{1, 0, -3, 4, 0, -6}, []int{3}},
		{"scale-all-axes", `type: "Scale" scale_param { axis: 1 num_axes: -1 }`, [][]float32{{1, 1, 1, 0, 0, 0}}, nil, []float32{1, 2, 3, 0, 0, 0}, []int{2, 3}},
		{"scale-scalar", `type: "Scale" scale_param { num_axes: 0 }`, [][]float32{{3}}, nil, []float32{3, 6, 9, 12, 15, 18}, []int{}},
		{"scale-bottom", `type: "Scale" scale_param { axis: 0 }`, nil, blobOf([]int{1, 2}, 10, 0), []float32{10, 20, 30, 0, 0, 0}, nil},
		{"bias-channel", `type: "Bias"`, [][]float32{{1, -1}}, nil, []float32{2, 3, 4, 3, 4, 5}, []int{2}},
		{"bias-bottom", `type: "Bias" bias_param { axis: 2 }`, nil, blobOf([]int{3}, 0, 1, 2), []float32{1, 3, 5, 4, 6, 8}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs := blobs(blobOf([]int{1, 2, 3}, x...))
			if c.second != nil {
				bs = append(bs, c.second)
			}
			y := NewBlob()
			l := setupLayer(t, c.def, nil, bs, blobs(y))
			if len(l.Params()) != len(c.params) {
				t.Fatalf("%d parameter blobs, want %d", len(l.Params()), len(c.params))
			}
			for i, p := range c.params {
				if i == 0 && fmt.Sprint(l.Params()[0].Shape()) != fmt.Sprint(c.pshape) {
					t.Errorf("parameter shape %v, want %v", l.Params()[0].Shape(), c.pshape)
				}
				copy(l.Params()[i].DataSlice(), p)
			}
			if err := l.Forward(bs, blobs(y)); err != nil {
				t.Fatal(err)
			}
			if !closeSlices(y.DataSlice(), c.want, 1e-6) {
				t.Errorf("got %v, want %v", y.DataSlice(), c.want)
			}
		})
	}
}

func TestLayerScaleDefaultFillers(t *testing.T) {
	x := NewBlob(2, 3)
	l := setupLayer(t, `type: "Scale" scale_param { bias_term: true }`, nil, blobs(x), blobs(NewBlob()))
	if p := l.Params(); !closeSlices(p[0].DataSlice(), []float32{1, 1, 1}, 0) || !closeSlices(p[1].DataSlice(), []float32{0, 0, 0}, 0) {
		t.Errorf("default scale %v and bias %v, want ones and zeros", p[0].DataSlice(), p[1].DataSlice())
	}
	if err := setupErr(t, `type: "Scale"`, blobs(x, NewBlob(4)), blobs(NewBlob())); err == nil {
		t.Error("a scale bottom of the wrong shape was accepted")
	}
}

func setupErr(t *testing.T, def string, bottom, top []*Blob) error {
	t.Helper()
	l, err := NewLayer(parseLayerDef(t, def), nil)
	if err != nil {
		return err
	}
	return l.Setup(bottom, top)
}
