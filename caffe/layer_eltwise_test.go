package caffe

import (
	"strings"
	"testing"
)

func TestLayerEltwise(t *testing.T) {
	a := []float32{1, -2, 3, 4}
	b := []float32{2, -2, -1, 4}
	c := []float32{0, 5, 2, 3}
	cases := []struct {
		name  string
		param string
		want  []float32
		grads [][]float32 // for dy = 1
	}{
		{"sum", ``, []float32{3, 1, 4, 11}, [][]float32{{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}},
		{"sum-coeff", `coeff: 1 coeff: -1 coeff: 0.5`, []float32{-1, 2.5, 5, 1.5}, [][]float32{{1, 1, 1, 1}, {-1, -1, -1, -1}, {0.5, 0.5, 0.5, 0.5}}},
		{"prod", `operation: PROD`, []float32{0, 20, -6, 48}, [][]float32{{0, -10, -2, 12}, {0, -10, 6, 12}, {2, 4, -3, 16}}},
		// Between the first two bottoms a tie goes to the second.
		{"max", `operation: MAX`, []float32{2, 5, 3, 4}, [][]float32{{0, 0, 1, 0}, {1, 0, 0, 1}, {0, 1, 0, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bs := blobs(blobOf([]int{4}, a...), blobOf([]int{4}, b...), blobOf([]int{4}, c...))
			y := NewBlob()
			l := setupLayer(t, `type: "Eltwise" eltwise_param { `+tc.param+` }`, nil, bs, blobs(y))
			if err := l.Forward(bs, blobs(y)); err != nil {
				t.Fatal(err)
			}
			if !closeSlices(y.DataSlice(), tc.want, 1e-6) {
				t.Errorf("got %v, want %v", y.DataSlice(), tc.want)
			}
			fillFloats(y.DiffSlice(), 1)
			l.Backward(blobs(y), []bool{true, true, true}, bs)
			for i, g := range tc.grads {
				if !closeSlices(bs[i].DiffSlice(), g, 1e-6) {
					t.Errorf("gradient %d = %v, want %v", i, bs[i].DiffSlice(), g)
				}
			}
		})
	}
}

func TestLayerEltwiseErrors(t *testing.T) {
	cases := []struct {
		param string
		in    [][]int
		want  string
	}{
		{`operation: PROD coeff: 1 coeff: 2`, [][]int{{2}, {2}}, "only for the SUM"},
		{`coeff: 1`, [][]int{{2}, {2}}, "one per bottom"},
		{``, [][]int{{2}, {3}}, "same shape"},
	}
	for _, c := range cases {
		l, err := NewLayer(parseLayerDef(t, `type: "Eltwise" eltwise_param { `+c.param+` }`), nil)
		if err == nil {
			var bs []*Blob
			for _, s := range c.in {
				bs = append(bs, NewBlob(s...))
			}
			err = l.Setup(bs, blobs(NewBlob()))
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.param, err, c.want)
		}
	}
}
