package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "DummyData", Bottoms: Exactly(0), Tops: AtLeast(1), New: newDummyData, Shape: ruleOf((*DummyData).inferShapes)})
}

// DummyData produces tops filled by dummy_data_param's fillers (one for
// all tops or one each; default constant 0) with its shapes (shape, or
// the legacy num, channels, height and width). Constant tops are filled
// once; others are refilled at every Forward.
type DummyData struct {
	layerBase
	shapes  []Shape  // shape, when given
	legacy  [4][]int // num, channels, height, width, when given instead
	fillers []*caffepb.FillerParameter
	rng     *ndarray.RNG // the fillers' stream, kept across passes
	filled  bool
}

var _ Layer = (*DummyData)(nil)

func newDummyData(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetDummyDataParam()
	l := &DummyData{layerBase: newLayerBase("DummyData", def, env)}
	for _, f := range p.GetDataFiller() {
		if err := CheckFiller(f); err != nil {
			return nil, fmt.Errorf("dummy_data_param.data_filler: %w", err)
		}
	}
	for _, s := range p.GetShape() {
		shape, err := shapeOfBlobShape(s)
		if err != nil {
			return nil, fmt.Errorf("dummy_data_param.shape: %w", err)
		}
		l.shapes = append(l.shapes, shape)
	}
	for i, v := range [4][]uint32{p.GetNum(), p.GetChannels(), p.GetHeight(), p.GetWidth()} {
		for _, d := range v {
			l.legacy[i] = append(l.legacy[i], int(d))
		}
	}
	if l.hasLegacy() && len(l.shapes) > 0 {
		return nil, fmt.Errorf("dummy_data_param: give either shape or num/channels/height/width, not both")
	}
	l.fillers = p.GetDataFiller()
	return l, nil
}

func (l *DummyData) hasLegacy() bool {
	return len(l.legacy[0])+len(l.legacy[1])+len(l.legacy[2])+len(l.legacy[3]) > 0
}

// topShapes returns the shapes of n tops, as Caffe reads them: each of
// shape, num, channels, height and width given once for all tops or once
// per top.
func (l *DummyData) topShapes(n int) ([]Shape, error) {
	oneOrN := func(k int) bool { return k == 1 || k == n }
	if f := len(l.fillers); f > 1 && f != n {
		return nil, fmt.Errorf("%d data_fillers for %d tops; give none, one, or one per top", f, n)
	}
	tops := make([]Shape, n)
	if l.hasLegacy() {
		names := [4]string{"num", "channels", "height", "width"}
		for i, v := range l.legacy {
			if !oneOrN(len(v)) {
				return nil, fmt.Errorf("dummy_data_param.%s is given %d times for %d tops; give it once, or once per top", names[i], len(v), n)
			}
		}
		for j := range tops {
			tops[j] = make(Shape, 4)
			for i, v := range l.legacy {
				tops[j][i] = v[min(j, len(v)-1)]
			}
		}
		return tops, nil
	}
	if !oneOrN(len(l.shapes)) {
		return nil, fmt.Errorf("%d shapes for %d tops; give one, or one per top", len(l.shapes), n)
	}
	for j := range tops {
		tops[j] = l.shapes[min(j, len(l.shapes)-1)].clone()
	}
	return tops, nil
}

// inferShapes is DummyData's shape rule.
func (l *DummyData) inferShapes(c *ShapeContext) error {
	tops, err := l.topShapes(len(c.Tops))
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops = tops
	return nil
}

// Setup checks the counts and shapes the tops.
func (l *DummyData) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	shapes, err := l.topShapes(len(top))
	if err != nil {
		return l.errorf("%w", err)
	}
	for i, t := range top {
		if _, err := format.ShapeCount(shapes[i]); err != nil {
			return l.errorf("top %d: %w", i, err)
		}
		t.Reshape(shapes[i]...)
	}
	l.rng = l.fillRNG()
	return nil
}

// Reshape keeps the configured shapes.
func (l *DummyData) Reshape(bottom, top []*Blob) error { return nil }

func (l *DummyData) filler(i int) *caffepb.FillerParameter {
	if len(l.fillers) == 0 {
		return defaultFiller(nil, 0)
	}
	return l.fillers[min(i, len(l.fillers)-1)]
}

// Forward fills the tops (the constant ones only the first time).
func (l *DummyData) Forward(bottom, top []*Blob) error {
	for i, t := range top {
		f := l.filler(i)
		if l.filled && f.GetType() == "constant" {
			continue
		}
		if err := FillBlob(t, f, l.rng); err != nil {
			return l.errorf("%w", err)
		}
	}
	l.filled = true
	return nil
}

// Backward does nothing: the layer has no bottoms.
func (l *DummyData) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}
