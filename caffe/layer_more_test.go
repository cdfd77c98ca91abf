package caffe

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// TestMoreLayersForward checks the added layers against values computed
// by hand.
func TestMoreLayersForward(t *testing.T) {
	env := &LayerEnv{Phase: caffepb.Phase_TEST, Seed: 1}
	run := func(def string, bottom []*Blob) *Blob {
		t.Helper()
		top := NewBlob()
		l := setupLayer(t, def, env, bottom, blobs(top))
		if err := l.Forward(bottom, blobs(top)); err != nil {
			t.Fatal(err)
		}
		return top
	}
	// Pairs (0,0)-(3,4): d = 5; (1,1)-(1,2): d = 1.
	a := blobOf([]int{2, 2}, 0, 0, 1, 1)
	b := blobOf([]int{2, 2}, 3, 4, 1, 2)
	for _, c := range []struct {
		def    string
		labels []float32
		want   float64
	}{
		{`type: "ContrastiveLoss"`, []float32{1, 1}, (25 + 1) / 4.0},
		{`type: "ContrastiveLoss" contrastive_loss_param { margin: 2 }`, []float32{0, 0}, (0 + 1) / 4.0},
		{`type: "ContrastiveLoss" contrastive_loss_param { margin: 2 legacy_version: true }`, []float32{0, 0}, (0 + 1) / 4.0},
		{`type: "ContrastiveLoss" contrastive_loss_param { margin: 6 }`, []float32{1, 0}, (25 + 25) / 4.0},
	} {
		got := run(c.def, blobs(a, b, blobOf([]int{2}, c.labels...))).DataSlice()[0]
		if math.Abs(float64(got)-c.want) > 1e-6 {
			t.Errorf("%s with labels %v: %g, want %g", c.def, c.labels, got, c.want)
		}
	}
	p := blobOf([]int{2, 3}, 0.2, 0.5, 0.3, 0.1, 0.1, 0.8)
	if got, want := run(`type: "MultinomialLogisticLoss"`, blobs(p, blobOf([]int{2}, 1, 2))).DataSlice()[0], -(math.Log(0.5)+math.Log(0.8))/2; math.Abs(float64(got)-want) > 1e-6 {
		t.Errorf("MultinomialLogisticLoss = %g, want %g", got, want)
	}
	s := blobOf([]int{1, 3}, 0.5, -2, 0.2)
	// label 0: hinges 1−0.5, max(0, 1−2)=0, 1+0.2
	if got := run(`type: "HingeLoss"`, blobs(s, blobOf([]int{1}, 0))).DataSlice()[0]; math.Abs(float64(got)-1.7) > 1e-6 {
		t.Errorf("HingeLoss = %g, want 1.7", got)
	}
	if got := run(`type: "HingeLoss" hinge_loss_param { norm: L2 }`, blobs(s, blobOf([]int{1}, 0))).DataSlice()[0]; math.Abs(float64(got)-(0.25+1.44)) > 1e-6 {
		t.Errorf("HingeLoss L2 = %g, want 1.69", got)
	}
	x := blobOf([]int{1, 1, 3, 4}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	if got := run(`type: "Crop" crop_param { offset: [1, 2] }`, blobs(x, NewBlob(1, 1, 2, 2))); !slices.Equal(got.DataSlice(), []float32{6, 7, 10, 11}) || !slices.Equal(got.Shape(), []int{1, 1, 2, 2}) {
		t.Errorf("Crop: %v %v", got.Shape(), got.DataSlice())
	}
	if got := run(`type: "Tile" tile_param { axis: 1 tiles: 2 }`, blobs(blobOf([]int{2, 2}, 1, 2, 3, 4))); !slices.Equal(got.DataSlice(), []float32{1, 2, 1, 2, 3, 4, 3, 4}) {
		t.Errorf("Tile: %v", got.DataSlice())
	}
	r := blobOf([]int{2, 2}, 1, -2, 3, 4)
	for _, c := range []struct {
		def  string
		want []float32
	}{
		{`type: "Reduction"`, []float32{6}},
		{`type: "Reduction" reduction_param { operation: ASUM axis: 1 }`, []float32{3, 7}},
		{`type: "Reduction" reduction_param { operation: SUMSQ axis: 1 coeff: 2 }`, []float32{10, 50}},
		{`type: "Reduction" reduction_param { operation: MEAN axis: 1 }`, []float32{-0.5, 3.5}},
	} {
		if got := run(c.def, blobs(r)).DataSlice(); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.def, got, c.want)
		}
	}
	// DummyData: a constant top and a gaussian one that changes per pass.
	t1, t2 := NewBlob(), NewBlob()
	l := setupLayer(t, `type: "DummyData" dummy_data_param { shape { dim: 2 dim: 3 } shape { dim: 4 }
		data_filler { type: "constant" value: 1.5 } data_filler { type: "gaussian" std: 1 } }`, env, nil, blobs(t1, t2))
	if err := l.Forward(nil, blobs(t1, t2)); err != nil {
		t.Fatal(err)
	}
	first := slices.Clone(t2.DataSlice())
	if err := l.Forward(nil, blobs(t1, t2)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(t1.Shape(), []int{2, 3}) || t1.DataSlice()[5] != 1.5 || len(t2.DataSlice()) != 4 || slices.Equal(first, t2.DataSlice()) {
		t.Errorf("DummyData: %v %v, gaussian %v then %v", t1.Shape(), t1.DataSlice(), first, t2.DataSlice())
	}
}

// TestMVNEmbedParameterForward checks MVN, Embed and Parameter by hand.
func TestMVNEmbedParameterForward(t *testing.T) {
	env := &LayerEnv{Phase: caffepb.Phase_TEST, Seed: 1}
	x, y := blobOf([]int{1, 1, 4}, 1, 2, 3, 4), NewBlob()
	l := setupLayer(t, `type: "MVN"`, env, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	s := float32(math.Sqrt(1.25)) + 1e-9
	if want := []float32{-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s}; !closeSlices(y.DataSlice(), want, 1e-6) {
		t.Errorf("MVN: %v, want %v", y.DataSlice(), want)
	}
	idx, e := blobOf([]int{3}, 2, 0, 2), NewBlob()
	l = setupLayer(t, `type: "Embed" embed_param { num_output: 2 input_dim: 3 bias_term: false }`, env, blobs(idx), blobs(e))
	copy(l.Params()[0].DataSlice(), []float32{1, 2, 3, 4, 5, 6})
	if err := l.Forward(blobs(idx), blobs(e)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.Shape(), []int{3, 2}) || !slices.Equal(e.DataSlice(), []float32{5, 6, 1, 2, 5, 6}) {
		t.Errorf("Embed: %v %v", e.Shape(), e.DataSlice())
	}
	if err := l.Forward(blobs(blobOf([]int{1}, 3)), blobs(e)); err == nil {
		t.Error("Embed of an index past input_dim: no error")
	}
	p := NewBlob()
	l = setupLayer(t, `type: "Parameter" parameter_param { shape { dim: 2 dim: 3 } }`, env, nil, blobs(p))
	l.Params()[0].DataSlice()[4] = 7
	if err := l.Forward(nil, blobs(p)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Shape(), []int{2, 3}) || p.DataSlice()[4] != 7 {
		t.Errorf("Parameter: %v %v", p.Shape(), p.DataSlice())
	}
}

// TestSPPForward checks a two-level pyramid on a 4×4 input: the global
// maximum, then the maxima of the four 2×2 quadrants; and that a pyramid
// of height 1 is a global pooling.
func TestSPPForward(t *testing.T) {
	env := &LayerEnv{Phase: caffepb.Phase_TEST}
	x := blobOf([]int{1, 1, 4, 4}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	y := NewBlob()
	l := setupLayer(t, `type: "SPP" spp_param { pyramid_height: 2 }`, env, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	if want := []float32{16, 6, 8, 14, 16}; !slices.Equal(y.Shape(), []int{1, 5}) || !slices.Equal(y.DataSlice(), want) {
		t.Errorf("SPP: %v %v, want [1 5] %v", y.Shape(), y.DataSlice(), want)
	}
	l = setupLayer(t, `type: "SPP" spp_param { pyramid_height: 1 pool: AVE }`, env, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y.Shape(), []int{1, 1, 1, 1}) || y.DataSlice()[0] != 8.5 {
		t.Errorf("SPP height 1: %v %v, want [1 1 1 1] [8.5]", y.Shape(), y.DataSlice())
	}
	// A 7-wide input: level 1 uses 4-wide kernels with one column of
	// padding, and still gives two bins.
	x7 := randBlob(5, -1, 1, 1, 2, 3, 7)
	l = setupLayer(t, `type: "SPP" spp_param { pyramid_height: 2 }`, env, blobs(x7), blobs(y))
	if !slices.Equal(y.Shape(), []int{1, 2 * 5}) {
		t.Errorf("SPP of 3×7: %v, want [1 10]", y.Shape())
	}
}

// TestSelectLayersForward checks Im2col, BatchReindex and Filter by hand.
func TestSelectLayersForward(t *testing.T) {
	env := &LayerEnv{Phase: caffepb.Phase_TEST}
	x := blobOf([]int{1, 1, 2, 3}, 1, 2, 3, 4, 5, 6)
	y := NewBlob()
	l := setupLayer(t, `type: "Im2col" convolution_param { kernel_size: 2 }`, env, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	// Rows (ki, kj) of the 1×2 output positions.
	if want := []float32{1, 2, 2, 3, 4, 5, 5, 6}; !slices.Equal(y.Shape(), []int{1, 4, 1, 2}) || !slices.Equal(y.DataSlice(), want) {
		t.Errorf("Im2col: %v %v, want [1 4 1 2] %v", y.Shape(), y.DataSlice(), want)
	}
	d := blobOf([]int{3, 2}, 1, 2, 3, 4, 5, 6)
	l = setupLayer(t, `type: "BatchReindex"`, env, blobs(d, blobOf([]int{3}, 2, 2, 0)), blobs(y))
	if err := l.Forward(blobs(d, blobOf([]int{3}, 2, 2, 0)), blobs(y)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y.DataSlice(), []float32{5, 6, 5, 6, 1, 2}) {
		t.Errorf("BatchReindex: %v", y.DataSlice())
	}
	if err := l.Forward(blobs(d, blobOf([]int{3}, 2, 3, 0)), blobs(y)); err == nil {
		t.Error("BatchReindex with index 3 of 3 samples: no error")
	}
	sel := blobOf([]int{3}, 0, 1, 1)
	l = setupLayer(t, `type: "Filter"`, env, blobs(d, sel), blobs(y))
	if err := l.Forward(blobs(d, sel), blobs(y)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y.Shape(), []int{2, 2}) || !slices.Equal(y.DataSlice(), []float32{3, 4, 5, 6}) {
		t.Errorf("Filter: %v %v", y.Shape(), y.DataSlice())
	}
}

// TestInfogainIdentityIsSoftmaxLoss checks that with H the identity,
// read from a .binaryproto source, InfogainLoss gives SoftmaxWithLoss's
// loss and gradient.
func TestInfogainIdentityIsSoftmaxLoss(t *testing.T) {
	env := &LayerEnv{Phase: caffepb.Phase_TRAIN, Dir: t.TempDir()}
	eye := make([]float32, 16)
	for i := 0; i < 4; i++ {
		eye[i*5] = 1
	}
	if err := WriteBlobProto(env.Dir+"/H.binaryproto", &caffepb.BlobProto{Shape: &caffepb.BlobShape{Dim: []int64{4, 4}}, Data: eye}); err != nil {
		t.Fatal(err)
	}
	scores, labels := randBlob(7, -2, 2, 3, 4), labelBlob(8, 4, 3)
	losses, grads := []float32{}, [][]float32{}
	for _, def := range []string{`type: "SoftmaxWithLoss"`, `type: "InfogainLoss" infogain_loss_param { source: "H.binaryproto" }`} {
		top := NewBlob()
		l := setupLayer(t, def, env, blobs(scores, labels), blobs(top))
		if err := l.Forward(blobs(scores, labels), blobs(top)); err != nil {
			t.Fatal(err)
		}
		top.DiffSlice()[0] = 1
		l.Backward(blobs(top), []bool{true, false}, blobs(scores, labels))
		losses = append(losses, top.DataSlice()[0])
		grads = append(grads, slices.Clone(scores.DiffSlice()))
	}
	if math.Abs(float64(losses[0]-losses[1])) > 1e-6 || !closeSlices(grads[0], grads[1], 1e-6) {
		t.Errorf("softmax loss %g and gradient %v; infogain with identity %g and %v", losses[0], grads[0], losses[1], grads[1])
	}
	missing, err := NewLayer(parseLayerDef(t, `type: "InfogainLoss" infogain_loss_param { source: "none.binaryproto" }`), env)
	if err != nil {
		t.Fatalf("the constructor reads no files: %v", err)
	}
	if err := missing.Setup(blobs(NewBlob(2, 3), NewBlob(2)), blobs(NewBlob())); err == nil || !strings.Contains(err.Error(), "none.binaryproto") {
		t.Errorf("a missing source: %v", err)
	}
}

// TestHugeBlobIsAnError checks that a mistyped, enormous shape fails the
// layer's setup with an error naming the limit.
func TestHugeBlobIsAnError(t *testing.T) {
	if _, err := NewLayer(parseLayerDef(t, `type: "DummyData" dummy_data_param { shape { dim: 50000 dim: 50000 } }`), &LayerEnv{}); err == nil || !strings.Contains(err.Error(), "more than 2147483647") {
		t.Errorf("a shape beyond Caffe's limit: %v", err)
	}
	l, err := NewLayer(parseLayerDef(t, `type: "DummyData" dummy_data_param { shape { dim: 40000 dim: 40000 } }`), &LayerEnv{})
	if err != nil {
		t.Fatal(err)
	}
	var setupErr error
	func() {
		defer func() {
			if r := recover(); r != nil {
				setupErr, _ = r.(error)
			}
		}()
		setupErr = l.Setup(nil, blobs(NewBlob()))
	}()
	if setupErr == nil || !strings.Contains(setupErr.Error(), "holds more than") {
		t.Errorf("setup of a 40000×40000 blob: %v", setupErr)
	}
}

// A net whose blob would be too large fails to build with an error naming
// the layer and the limit, not a panic.
func TestHugeBlobInANet(t *testing.T) {
	np, err := ParseNetParameter("huge.prototxt", []byte(`name: "huge"
layer { name: "d" type: "DummyData" top: "d" dummy_data_param { shape { dim: 50000 dim: 50000 } } }`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewNet(np, NetOptions{})
	want := `caffe: huge.prototxt:2:1: layer "d" (DummyData): `
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "[50000 50000]") || strings.Contains(err.Error(), "panic") {
		t.Errorf("got %v\nwant %s...[50000 50000]...", err, want)
	}
	// Past the shape rules, the blob's own limit reads as plainly.
	np, err = ParseNetParameter("huge.prototxt", []byte(`name: "huge"
layer { name: "d" type: "DummyData" top: "d" dummy_data_param { shape { dim: 40000 dim: 40000 } } }`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewNet(np, NetOptions{})
	want = `caffe: huge.prototxt:2:1: layer "d" (DummyData): blob shape [40000 40000] holds more than 1073741824 values`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant %s...", err, want)
	}
}
