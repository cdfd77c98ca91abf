package caffe

import (
	"fmt"
	"testing"
)

func TestLayerAccuracy(t *testing.T) {
	// Four samples, three classes.
	scores := []float32{
		0.1, 0.7, 0.2, // label 1: right
		0.5, 0.5, 0.0, // label 0: tied with class 1, counts as wrong at top 1
		0.3, 0.4, 0.3, // label 2: classes 0 (tie) and 1 score at least as much: right only at top 3
		0.2, 0.3, 0.5, // label 0: wrong at top 1 and 2
	}
	labels := []float32{1, 0, 2, 0}
	cases := []struct {
		name     string
		param    string
		want     float32
		perClass []float32
	}{
		{"top1", ``, 0.25, []float32{0, 1, 0}},
		{"top2", `top_k: 2`, 0.5, []float32{0.5, 1, 0}},
		{"top3", `top_k: 3`, 1, []float32{1, 1, 1}},
		{"ignore", `ignore_label: 0`, 0.5, []float32{0, 1, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, lab := blobOf([]int{4, 3}, scores...), blobOf([]int{4}, labels...)
			acc, per := NewBlob(), NewBlob()
			l := setupLayer(t, `type: "Accuracy" accuracy_param { `+c.param+` }`, nil, blobs(s, lab), blobs(acc, per))
			if err := l.Forward(blobs(s, lab), blobs(acc, per)); err != nil {
				t.Fatal(err)
			}
			if got := acc.DataSlice()[0]; got != c.want || acc.NumAxes() != 0 {
				t.Errorf("accuracy %v (shape %v), want %v", got, acc.Shape(), c.want)
			}
			if !closeSlices(per.DataSlice(), c.perClass, 1e-6) {
				t.Errorf("per class %v, want %v", per.DataSlice(), c.perClass)
			}
		})
	}
}

func TestLayerAccuracySpatial(t *testing.T) {
	// N=1, C=2, H·W=3; labels per position.
	s := blobOf([]int{1, 2, 3}, 1, 0, 5, 0, 1, 4)
	lab := blobOf([]int{1, 3}, 0, 0, 1)
	acc := NewBlob()
	l := setupLayer(t, `type: "Accuracy"`, nil, blobs(s, lab), blobs(acc))
	if err := l.Forward(blobs(s, lab), blobs(acc)); err != nil {
		t.Fatal(err)
	}
	if got, want := acc.DataSlice()[0], float32(1)/3; got != want {
		t.Errorf("accuracy %v, want %v", got, want)
	}
	if err := l.Reshape(blobs(s, NewBlob(2)), blobs(acc)); err == nil {
		t.Error("wrong label count accepted")
	}
}

func TestLayerArgMax(t *testing.T) {
	x := []float32{1, 5, 3, 5, 2, 0, 9, 1}
	cases := []struct {
		name  string
		param string
		shape []int
		want  []float32
	}{
		{"top1", ``, []int{2, 1, 1}, []float32{3, 2}}, // tie 5/5: the larger index wins
		{"top2", `top_k: 2`, []int{2, 1, 2}, []float32{3, 1, 2, 0}},
		{"max-val", `out_max_val: true top_k: 2`, []int{2, 2, 2}, []float32{3, 1, 5, 5, 2, 0, 9, 2}},
		{"axis1", `axis: 1`, []int{2, 1}, []float32{3, 2}},
		{"axis0-values", `axis: 0 out_max_val: true`, []int{1, 4}, []float32{2, 5, 9, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, y := blobOf([]int{2, 4}, x...), NewBlob()
			l := setupLayer(t, `type: "ArgMax" argmax_param { `+c.param+` }`, nil, blobs(b), blobs(y))
			if err := l.Forward(blobs(b), blobs(y)); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(y.Shape()) != fmt.Sprint(c.shape) || !closeSlices(y.DataSlice(), c.want, 0) {
				t.Errorf("got %v %v, want %v %v", y.Shape(), y.DataSlice(), c.shape, c.want)
			}
		})
	}
}
