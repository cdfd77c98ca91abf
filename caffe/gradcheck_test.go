package caffe

import (
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

// gradCheck runs GradientCheck in a test.
type gradCheck struct {
	step      float64
	threshold float64
	seed      uint64
	bottoms   []int
	tops      []int
	noParams  bool
	before    func()
}

// checkT is the part of testing.TB the checker uses.
type checkT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

func (c gradCheck) run(t checkT, l Layer, bottom, top []*Blob) {
	t.Helper()
	err := GradientCheck{Step: c.step, Threshold: c.threshold, Seed: c.seed, Bottoms: c.bottoms, Tops: c.tops,
		NoParams: c.noParams, Before: c.before}.Run(l, bottom, top)
	if err != nil {
		t.Errorf("%v", err)
	}
}

func itoaTest(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoaTest(i/10) + string(rune('0'+i%10))
}

// parseLayerDef parses a LayerParameter in protobuf text format.
func parseLayerDef(t testing.TB, text string) *caffepb.LayerParameter {
	t.Helper()
	def := &caffepb.LayerParameter{}
	if err := prototext.Unmarshal([]byte(text), def); err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return def
}

// setupLayer makes the layer the text defines and sets it up.
func setupLayer(t testing.TB, text string, env *LayerEnv, bottom, top []*Blob) Layer {
	t.Helper()
	l, err := NewLayer(parseLayerDef(t, text), env)
	if err != nil {
		t.Fatalf("NewLayer: %v", err)
	}
	if err := l.Setup(bottom, top); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	return l
}

// randBlob returns a blob of the shape with values uniform on [lo, hi).
func randBlob(seed uint64, lo, hi float32, shape ...int) *Blob {
	b := NewBlob(shape...)
	rng := ndarray.NewRNG(seed)
	for i := range b.DataSlice() {
		b.DataSlice()[i] = lo + (hi-lo)*rng.Float32()
	}
	return b
}

// awayFromZeroBlob returns values with |x| in [0.1, 1.1): clear of the
// kink at zero of ReLU, AbsVal and friends.
func awayFromZeroBlob(seed uint64, shape ...int) *Blob {
	b := randBlob(seed, -1, 1, shape...)
	for i, v := range b.DataSlice() {
		if v < 0 {
			b.DataSlice()[i] = v - 0.1
		} else {
			b.DataSlice()[i] = v + 0.1
		}
	}
	return b
}

// distinctBlob returns a shuffled arithmetic sequence spaced 0.05 apart,
// so that no two values are within the checker's step of each other
// (needed for max pooling and Eltwise MAX).
func distinctBlob(seed uint64, shape ...int) *Blob {
	b := NewBlob(shape...)
	rng := ndarray.NewRNG(seed)
	d := b.DataSlice()
	for i := range d {
		d[i] = float32(i)*0.05 - float32(len(d))*0.025
	}
	for i := len(d) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		d[i], d[j] = d[j], d[i]
	}
	return b
}

// distinctBlobs returns n blobs of the shape whose values are all
// distinct and spaced as distinctBlob's.
func distinctBlobs(seed uint64, n int, shape ...int) []*Blob {
	all := distinctBlob(seed, append([]int{n}, shape...)...)
	size := all.Count() / n
	out := make([]*Blob, n)
	for i := range out {
		out[i] = NewBlob(shape...)
		copy(out[i].DataSlice(), all.DataSlice()[i*size:(i+1)*size])
	}
	return out
}

// labelBlob returns integer labels in [0, classes).
func labelBlob(seed uint64, classes int, shape ...int) *Blob {
	b := NewBlob(shape...)
	rng := ndarray.NewRNG(seed)
	for i := range b.DataSlice() {
		b.DataSlice()[i] = float32(rng.IntN(classes))
	}
	return b
}

// blobOf returns a blob of the shape holding vals.
func blobOf(shape []int, vals ...float32) *Blob {
	b := NewBlob(shape...)
	if len(vals) != b.Count() {
		panic("blobOf: wrong number of values")
	}
	copy(b.DataSlice(), vals)
	return b
}

func blobs(b ...*Blob) []*Blob { return b }

// closeSlices reports whether got and want agree within tol (absolute and
// relative).
func closeSlices(got, want []float32, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) || math.IsNaN(g) != math.IsNaN(w) {
			return false
		}
	}
	return true
}

// TestGradCheckCatchesWrongGradient makes sure the checker fails a layer
// whose backward is wrong.
func TestGradCheckCatchesWrongGradient(t *testing.T) {
	bottom := awayFromZeroBlob(1, 2, 3)
	top := NewBlob()
	l := setupLayer(t, `type: "ReLU" relu_param { negative_slope: 0.5 }`, nil, blobs(bottom), blobs(top))
	broken := &brokenLayer{Layer: l}
	ft := &fakeT{}
	gradCheck{}.run(ft, broken, blobs(bottom), blobs(top))
	if !ft.failed {
		t.Fatal("the checker accepted a gradient scaled by 1.5")
	}
}

// brokenLayer scales the bottom gradient of the layer it wraps.
type brokenLayer struct{ Layer }

func (b *brokenLayer) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	b.Layer.Backward(top, propagateDown, bottom)
	for i, v := range bottom[0].DiffSlice() {
		bottom[0].DiffSlice()[i] = 1.5 * v
	}
}

// fakeT records failures instead of failing the test.
type fakeT struct{ failed bool }

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
