package caffe

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "SPP", Bottoms: Exactly(1), Tops: Exactly(1), New: newSPP, Shape: ruleOf((*SPP).inferShapes)})
}

// SPP is spatial pyramid pooling (spp_param: pyramid_height, pool MAX or
// AVE): level l pools each channel into 2^l × 2^l bins whatever the input
// size, and the levels are flattened and concatenated, giving N ×
// C·Σ4^l. As in Caffe, the kernel of level l is ceil(H / 2^l) (likewise
// for W), its stride the same, and the padding half the excess, rounded
// up; a pyramid of height 1 is a global pooling to N × C × 1 × 1.
type SPP struct {
	layerBase
	height       int
	method       caffepb.PoolingParameter_PoolMethod
	inH, inW     int
	levels       []Layer // one Pooling layer per level
	pooled       []*Blob // their outputs
	scratch      *Blob   // a level's gradient to the bottom
	perSample    []int   // values per sample of each level
	sampleValues int
}

var _ Layer = (*SPP)(nil)

func newSPP(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetSppParam()
	if p.GetPyramidHeight() < 1 {
		return nil, fmt.Errorf("spp_param.pyramid_height must be at least 1")
	}
	method := caffepb.PoolingParameter_MAX
	switch p.GetPool() {
	case caffepb.SPPParameter_MAX:
	case caffepb.SPPParameter_AVE:
		method = caffepb.PoolingParameter_AVE
	default:
		return nil, fmt.Errorf("spp_param.pool %v: sparknet pools MAX or AVE", p.GetPool())
	}
	return &SPP{layerBase: newLayerBase("SPP", def, env), height: int(p.GetPyramidHeight()), method: method, scratch: NewBlob()}, nil
}

// Setup checks the blobs and builds the levels.
func (l *SPP) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// levelParam returns the pooling of level lv for an h×w input.
func (l *SPP) levelParam(lv, h, w int) *caffepb.LayerParameter {
	bins := 1 << lv
	kh, kw := (h+bins-1)/bins, (w+bins-1)/bins
	ph, pw := (kh*bins-h+1)/2, (kw*bins-w+1)/2
	return &caffepb.LayerParameter{
		Name: proto.String(fmt.Sprintf("%s/level%d", l.def.GetName(), lv)),
		Type: proto.String("Pooling"),
		PoolingParam: &caffepb.PoolingParameter{
			Pool:    l.method.Enum(),
			KernelH: proto.Uint32(uint32(kh)), KernelW: proto.Uint32(uint32(kw)),
			StrideH: proto.Uint32(uint32(kh)), StrideW: proto.Uint32(uint32(kw)),
			PadH: proto.Uint32(uint32(ph)), PadW: proto.Uint32(uint32(pw)),
		},
	}
}

// topShape returns the top's shape for an input of shape b: the pooled
// levels, each flattened per sample and concatenated (a global pooling
// when the pyramid has one level).
func (l *SPP) topShape(b Shape) (Shape, error) {
	if len(b) != 4 {
		return nil, fmt.Errorf("input of shape %v: want N×C×H×W", []int(b))
	}
	values := 0
	for lv := 0; lv < l.height; lv++ {
		level, err := newPooling(l.levelParam(lv, b[2], b[3]), &l.env)
		if err != nil {
			return nil, fmt.Errorf("level %d: %w", lv, err)
		}
		oh, ow, _, _, err := level.(*Pooling).pooledSize(b)
		if err != nil {
			return nil, fmt.Errorf("level %d: %w", lv, err)
		}
		if l.height == 1 {
			return Shape{b[0], b[1], oh, ow}, nil
		}
		values += b[1] * oh * ow
	}
	return Shape{b[0], values}, nil
}

// inferShapes is SPP's shape rule.
func (l *SPP) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	top, err := l.topShape(c.Bottoms[0])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Reshape rebuilds the levels when the input size changes, and shapes
// the top.
func (l *SPP) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	shape, err := l.topShape(b.shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	h, w := b.Dim(2), b.Dim(3)
	if h != l.inH || w != l.inW || l.levels == nil {
		l.levels, l.pooled = nil, nil
		for lv := 0; lv < l.height; lv++ {
			env := l.env
			layer, err := NewLayer(l.levelParam(lv, h, w), &env)
			if err != nil {
				return l.errorf("level %d: %w", lv, err)
			}
			out := NewBlob()
			if err := layer.Setup(bottom, []*Blob{out}); err != nil {
				return l.errorf("level %d: %w", lv, err)
			}
			l.levels, l.pooled = append(l.levels, layer), append(l.pooled, out)
		}
		l.inH, l.inW = h, w
	}
	l.perSample, l.sampleValues = l.perSample[:0], 0
	for lv, layer := range l.levels {
		if err := layer.Reshape(bottom, []*Blob{l.pooled[lv]}); err != nil {
			return l.errorf("level %d: %w", lv, err)
		}
		n := l.pooled[lv].Count() / max(1, b.Dim(0))
		l.perSample = append(l.perSample, n)
		l.sampleValues += n
	}
	top[0].Reshape(shape...)
	l.scratch.ReshapeLike(b)
	return nil
}

// Forward pools every level and concatenates them per sample.
func (l *SPP) Forward(bottom, top []*Blob) error {
	y := top[0].DataSlice()
	off := 0
	for lv, layer := range l.levels {
		if err := layer.Forward(bottom, []*Blob{l.pooled[lv]}); err != nil {
			return err
		}
		per, p := l.perSample[lv], l.pooled[lv].DataSlice()
		for n := 0; n < bottom[0].Dim(0); n++ {
			copy(y[n*l.sampleValues+off:], p[n*per:(n+1)*per])
		}
		off += per
	}
	return nil
}

// Backward passes each level's part of the gradient back through its
// pooling and sums the levels' gradients.
func (l *SPP) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dy, dx := top[0].DiffSlice(), bottom[0].DiffSlice()
	clear(dx)
	l.scratch.ShareData(bottom[0])
	off := 0
	for lv, layer := range l.levels {
		per, dp := l.perSample[lv], l.pooled[lv].DiffSlice()
		for n := 0; n < bottom[0].Dim(0); n++ {
			copy(dp[n*per:(n+1)*per], dy[n*l.sampleValues+off:])
		}
		off += per
		layer.Backward([]*Blob{l.pooled[lv]}, []bool{true}, []*Blob{l.scratch})
		for i, v := range l.scratch.DiffSlice() {
			dx[i] += v
		}
	}
}
