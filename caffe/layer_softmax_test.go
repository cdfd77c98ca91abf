package caffe

import (
	"math"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
)

func TestLayerSoftmaxForward(t *testing.T) {
	ln2, ln3 := float32(math.Ln2), float32(math.Log(3))
	cases := []struct {
		name string
		def  string
		in   []int
		x    []float32
		want []float32
	}{
		{"rows", `type: "Softmax"`, []int{2, 3}, []float32{0, 0, ln2, ln3, 0, 0}, []float32{0.25, 0.25, 0.5, 0.6, 0.2, 0.2}},
		{"large-values", `type: "Softmax"`, []int{1, 2}, []float32{1000, 1000}, []float32{0.5, 0.5}},
		{"spatial", `type: "Softmax"`, []int{1, 2, 2}, []float32{0, ln3, 0, 0}, []float32{0.5, 0.75, 0.5, 0.25}},
		{"axis0", `type: "Softmax" softmax_param { axis: 0 }`, []int{2, 2}, []float32{ln3, 0, 0, 0}, []float32{0.75, 0.5, 0.25, 0.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := blobOf(c.in, c.x...), NewBlob()
			l := setupLayer(t, c.def, nil, blobs(x), blobs(y))
			if err := l.Forward(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			if !closeSlices(y.DataSlice(), c.want, 1e-6) {
				t.Errorf("got %v, want %v", y.DataSlice(), c.want)
			}
		})
	}
}

func TestLayerSoftmaxWithLoss(t *testing.T) {
	ln2, ln3, ln5 := math.Ln2, math.Log(3), math.Log(5)
	scores := []float32{0, 0, float32(ln2), float32(ln3), 0, 0} // p = [.25 .25 .5], [.6 .2 .2]
	cases := []struct {
		name   string
		loss   string
		labels []float32
		want   float64
		grad   []float32 // with loss weight 2
	}{
		{"valid", ``, []float32{2, 1}, (ln2 + ln5) / 2, []float32{0.25, 0.25, -0.5, 0.6, -0.8, 0.2}},
		{"ignore-valid", `loss_param { ignore_label: 1 }`, []float32{2, 1}, ln2, []float32{0.5, 0.5, -1, 0, 0, 0}},
		{"ignore-full", `loss_param { ignore_label: 1 normalization: FULL }`, []float32{2, 1}, ln2 / 2, []float32{0.25, 0.25, -0.5, 0, 0, 0}},
		{"ignore-batch", `loss_param { ignore_label: 1 normalization: BATCH_SIZE }`, []float32{2, 1}, ln2 / 2, []float32{0.25, 0.25, -0.5, 0, 0, 0}},
		{"ignore-none", `loss_param { ignore_label: 1 normalization: NONE }`, []float32{2, 1}, ln2, []float32{0.5, 0.5, -1, 0, 0, 0}},
		{"normalize-false", `loss_param { ignore_label: 1 normalize: false }`, []float32{2, 1}, ln2 / 2, []float32{0.25, 0.25, -0.5, 0, 0, 0}},
		{"normalize-true", `loss_param { ignore_label: 1 normalize: true }`, []float32{2, 1}, ln2, []float32{0.5, 0.5, -1, 0, 0, 0}},
		{"all-ignored", `loss_param { ignore_label: 0 }`, []float32{0, 0}, 0, []float32{0, 0, 0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, lab := blobOf([]int{2, 3}, scores...), blobOf([]int{2}, c.labels...)
			loss, prob := NewBlob(), NewBlob()
			l := setupLayer(t, `type: "SoftmaxWithLoss" `+c.loss, nil, blobs(x, lab), blobs(loss, prob))
			if lt, _ := LookupLayerType(l.Type()); !lt.Loss {
				t.Error("SoftmaxWithLoss is not registered as a loss")
			}
			if err := l.Forward(blobs(x, lab), blobs(loss, prob)); err != nil {
				t.Fatal(err)
			}
			if loss.NumAxes() != 0 || math.Abs(float64(loss.DataSlice()[0])-c.want) > 1e-6 {
				t.Errorf("loss %v (shape %v), want %v (scalar)", loss.DataSlice()[0], loss.Shape(), c.want)
			}
			if want := []float32{0.25, 0.25, 0.5, 0.6, 0.2, 0.2}; !closeSlices(prob.DataSlice(), want, 1e-6) {
				t.Errorf("probabilities %v, want %v", prob.DataSlice(), want)
			}
			loss.DiffSlice()[0] = 2
			l.Backward(blobs(loss, prob), []bool{true, false}, blobs(x, lab))
			if !closeSlices(x.DiffSlice(), c.grad, 1e-6) {
				t.Errorf("gradient %v, want %v", x.DiffSlice(), c.grad)
			}
		})
	}
}

func TestLayerSoftmaxWithLossErrors(t *testing.T) {
	x, loss := NewBlob(2, 3), NewBlob()
	l, err := NewLayer(parseLayerDef(t, `type: "SoftmaxWithLoss"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Setup(blobs(x, NewBlob(2, 2)), blobs(loss)); err == nil || !strings.Contains(err.Error(), "4 labels for 2 predictions") {
		t.Errorf("wrong label count: %v", err)
	}
	lab := blobOf([]int{2}, 0, 3)
	if err := l.Setup(blobs(x, lab), blobs(loss)); err != nil {
		t.Fatal(err)
	}
	if err := l.Forward(blobs(x, lab), blobs(loss)); err == nil || !strings.Contains(err.Error(), "outside 0..2") {
		t.Errorf("label out of range: %v", err)
	}
}

func TestLayerSoftmaxWithLossAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	x, lab, loss := randBlob(1, -1, 1, 16, 10), labelBlob(2, 10, 16), NewBlob()
	l := setupLayer(t, `type: "SoftmaxWithLoss"`, nil, blobs(x, lab), blobs(loss))
	loss.DiffSlice()[0] = 1
	bs, ts, down := blobs(x, lab), blobs(loss), []bool{true, false}
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

func TestLayerEuclideanLoss(t *testing.T) {
	a, b, loss := blobOf([]int{2, 2}, 1, 2, 3, 4), blobOf([]int{2, 2}, 0, 2, 5, 3), NewBlob()
	l := setupLayer(t, `type: "EuclideanLoss"`, nil, blobs(a, b), blobs(loss))
	if err := l.Forward(blobs(a, b), blobs(loss)); err != nil {
		t.Fatal(err)
	}
	if got := loss.DataSlice()[0]; got != 1.5 { // (1 + 0 + 4 + 1) / 2 / 2
		t.Errorf("loss %v, want 1.5", got)
	}
	loss.DiffSlice()[0] = 2
	l.Backward(blobs(loss), []bool{true, true}, blobs(a, b))
	if want := []float32{1, 0, -2, 1}; !closeSlices(a.DiffSlice(), want, 0) {
		t.Errorf("first gradient %v, want %v", a.DiffSlice(), want)
	}
	if want := []float32{-1, 0, 2, -1}; !closeSlices(b.DiffSlice(), want, 0) {
		t.Errorf("second gradient %v, want %v", b.DiffSlice(), want)
	}
}

func TestLayerSigmoidCrossEntropyLoss(t *testing.T) {
	x := []float32{0, 2, -1, 30}
	targets := []float32{1, 0, 1, -1}
	ce := func(v, t float64) float64 {
		p := 1 / (1 + math.Exp(-v))
		return -(t*math.Log(p) + (1-t)*math.Log(1-p))
	}
	cases := []struct {
		name string
		loss string
		want float64
	}{
		{"batch-size", `loss_param { ignore_label: -1 }`, (ce(0, 1) + ce(2, 0) + ce(-1, 1)) / 2},
		{"valid", `loss_param { ignore_label: -1 normalization: VALID }`, (ce(0, 1) + ce(2, 0) + ce(-1, 1)) / 3},
		{"full", `loss_param { ignore_label: -1 normalization: FULL }`, (ce(0, 1) + ce(2, 0) + ce(-1, 1)) / 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b, loss := blobOf([]int{2, 2}, x...), blobOf([]int{2, 2}, targets...), NewBlob()
			l := setupLayer(t, `type: "SigmoidCrossEntropyLoss" `+c.loss, nil, blobs(a, b), blobs(loss))
			if err := l.Forward(blobs(a, b), blobs(loss)); err != nil {
				t.Fatal(err)
			}
			if got := float64(loss.DataSlice()[0]); math.Abs(got-c.want) > 1e-5 {
				t.Errorf("loss %v, want %v", got, c.want)
			}
			loss.DiffSlice()[0] = 1
			l.Backward(blobs(loss), []bool{true, false}, blobs(a, b))
			if g := a.DiffSlice()[3]; g != 0 {
				t.Errorf("gradient at an ignored position %v, want 0", g)
			}
		})
	}
}
