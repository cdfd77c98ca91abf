package caffe

import (
	"fmt"
	"slices"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

// layerBase is what every layer keeps: its type, definition, environment,
// parameter blobs and which parameter gradients are wanted.
type layerBase struct {
	typ       string
	def       *caffepb.LayerParameter
	env       LayerEnv
	blobs     []*Blob
	noParamGr []bool // noParamGr[i]: skip the gradient of blobs[i]
}

func newLayerBase(typ string, def *caffepb.LayerParameter, env *LayerEnv) layerBase {
	b := layerBase{typ: typ, def: def}
	if def == nil {
		b.def = &caffepb.LayerParameter{}
	}
	if env != nil {
		b.env = *env
	}
	return b
}

// Type returns the registered type name.
func (l *layerBase) Type() string { return l.typ }

// Params returns the parameter blobs.
func (l *layerBase) Params() []*Blob { return l.blobs }

// SetParamPropagateDown switches the gradient of parameter blob i on or off.
func (l *layerBase) SetParamPropagateDown(i int, propagate bool) {
	if i < 0 {
		return
	}
	if i >= len(l.noParamGr) {
		l.noParamGr = append(l.noParamGr, make([]bool, i+1-len(l.noParamGr))...)
	}
	l.noParamGr[i] = !propagate
}

// paramGrad reports whether the gradient of parameter blob i is wanted.
func (l *layerBase) paramGrad(i int) bool {
	return i >= len(l.noParamGr) || !l.noParamGr[i]
}

// threads is the number of goroutines the layer's products may use.
func (l *layerBase) threads() int { return max(1, l.env.Threads) }

// train reports whether the layer runs in the TRAIN phase.
func (l *layerBase) train() bool { return l.env.Phase == caffepb.Phase_TRAIN }

// errorf makes an error naming the layer: `caffe: layer "conv1"
// (Convolution): ...`. A %w verb in format wraps as fmt.Errorf does.
func (l *layerBase) errorf(format string, args ...any) error {
	return fmt.Errorf("caffe: layer %q (%s): "+format, append([]any{l.def.GetName(), l.typ}, args...)...)
}

// checkBlobs checks the numbers of bottoms and tops against those the
// layer's type was registered with (Caffe's ExactNumBottomBlobs and
// friends), and that none is nil.
func (l *layerBase) checkBlobs(bottom, top []*Blob) error {
	if t, err := LookupLayerType(l.typ); err == nil {
		if !t.Bottoms.Allows(len(bottom)) {
			return l.errorf("takes %v bottom blob(s), got %d", t.Bottoms, len(bottom))
		}
		if !t.Tops.Allows(len(top)) {
			return l.errorf("takes %v top blob(s), got %d", t.Tops, len(top))
		}
	}
	for i, b := range bottom {
		if b == nil {
			return l.errorf("bottom %d is nil", i)
		}
	}
	for i, b := range top {
		if b == nil {
			return l.errorf("top %d is nil", i)
		}
	}
	return nil
}

// notInPlace returns an error if top i is bottom i, for layers that
// cannot compute in place.
func (l *layerBase) notInPlace(bottom, top []*Blob) error {
	for i := range min(len(bottom), len(top)) {
		if bottom[i] == top[i] {
			return l.errorf("cannot compute in place (top %d is bottom %d)", i, i)
		}
	}
	return nil
}

// initParams creates the parameter blobs with the given shapes. When the
// definition carries blobs (LayerParameter.blobs) their values are used,
// after checking the shapes, as Caffe's layers do; otherwise fill(i, b)
// initialises blob i.
func (l *layerBase) initParams(shapes [][]int, fill func(i int, b *Blob) error) error {
	l.blobs = make([]*Blob, len(shapes))
	for i, s := range shapes {
		l.blobs[i] = NewBlob(s...)
	}
	if protos := l.def.GetBlobs(); len(protos) > 0 {
		if len(protos) != len(shapes) {
			return l.errorf("the definition holds %d parameter blobs, the layer has %d", len(protos), len(shapes))
		}
		for i, bp := range protos {
			if err := copyParamProto(l.blobs[i], bp); err != nil {
				return l.errorf("parameter blob %d: %w", i, err)
			}
		}
		return nil
	}
	for i, b := range l.blobs {
		if err := fill(i, b); err != nil {
			return l.errorf("parameter blob %d: %w", i, err)
		}
	}
	return nil
}

// fillRNG returns the random stream for the layer's fillers.
func (l *layerBase) fillRNG() *ndarray.RNG { return ndarray.NewRNG(l.env.Seed) }

// initWeightsBias creates a layer's weights and, when shapes has a second
// entry, its bias (as initParams), filled by the two fillers.
func (l *layerBase) initWeightsBias(shapes [][]int, weights, bias *caffepb.FillerParameter) error {
	rng := l.fillRNG()
	return l.initParams(shapes, func(i int, b *Blob) error {
		if i == 0 {
			return FillBlob(b, weights, rng)
		}
		return FillBlob(b, bias, rng)
	})
}

// copyParamProto copies a BlobProto's values into b, whose shape must
// match (a legacy num/channels/height/width proto matches a blob with the
// same 4-D legacy shape).
func copyParamProto(b *Blob, bp *caffepb.BlobProto) error {
	if bp.Shape != nil {
		shape := make([]int, len(bp.Shape.Dim))
		for i, d := range bp.Shape.Dim {
			shape[i] = int(d)
		}
		if !slices.Equal(shape, b.shape) {
			return fmt.Errorf("shape %v in the definition, want %v", shape, b.shape)
		}
	} else {
		legacy := []int{int(bp.GetNum()), int(bp.GetChannels()), int(bp.GetHeight()), int(bp.GetWidth())}
		want := []int{b.LegacyDim(0), b.LegacyDim(1), b.LegacyDim(2), b.LegacyDim(3)}
		if b.NumAxes() > 4 || !slices.Equal(legacy, want) {
			return fmt.Errorf("legacy shape %v in the definition, want %v", legacy, b.shape)
		}
	}
	data := b.DataSlice()
	switch {
	case len(bp.DoubleData) > 0:
		if len(bp.DoubleData) != len(data) {
			return fmt.Errorf("%d values in the definition, want %d", len(bp.DoubleData), len(data))
		}
		for i, v := range bp.DoubleData {
			data[i] = float32(v)
		}
	default:
		if len(bp.Data) != len(data) {
			return fmt.Errorf("%d values in the definition, want %d", len(bp.Data), len(data))
		}
		copy(data, bp.Data)
	}
	return nil
}

// defaultFiller returns p, or a constant filler with value v when p is
// nil (Caffe's defaults where a layer overrides the constant-0 default).
func defaultFiller(p *caffepb.FillerParameter, v float32) *caffepb.FillerParameter {
	if p != nil {
		return p
	}
	t := "constant"
	return &caffepb.FillerParameter{Type: &t, Value: &v}
}

// canonicalAxis maps a possibly negative axis of an n-axis blob to
// 0..n-1, or returns an error naming the parameter.
func canonicalAxis(name string, axis, n int) (int, error) {
	a := axis
	if a < 0 {
		a += n
	}
	if a < 0 || a >= n {
		return 0, fmt.Errorf("%s %d out of range for a %d-axis blob (valid: %d..%d)", name, axis, n, -n, n-1)
	}
	return a, nil
}

// reshapeHead shapes t as b's axes [0, axis) followed by tail, without
// allocating for shapes of up to 16 axes.
func reshapeHead(t, b *Blob, axis int, tail ...int) {
	var buf [16]int
	shape := buf[:0]
	if axis+len(tail) > len(buf) {
		shape = make([]int, 0, axis+len(tail))
	}
	shape = append(shape, b.shape[:axis]...)
	shape = append(shape, tail...)
	t.Reshape(shape...)
}

// orDefaults returns p, or an empty message (all defaults) when p is nil, so
// that presence checks on its fields are safe.
func orDefaults[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

// blobShapes returns the blobs' shapes (sharing their storage).
func blobShapes(blobs []*Blob) []Shape {
	out := make([]Shape, len(blobs))
	for i, b := range blobs {
		out[i] = b.shape
	}
	return out
}
