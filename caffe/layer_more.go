package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

// More of Caffe's layers: the losses of its siamese and classification
// examples (ContrastiveLoss, MultinomialLogisticLoss, HingeLoss), the
// shape layers Crop, Tile and Reduction, and DummyData.

func init() {
	registerComputed("ContrastiveLoss", newContrastiveLoss)
	registerComputed("MultinomialLogisticLoss", newMultinomialLogisticLoss)
	registerComputed("HingeLoss", newHingeLoss)
	registerComputed("Crop", newCrop)
	registerComputed("Tile", newTile)
	registerComputed("Reduction", newReduction)
	registerComputed("DummyData", newDummyData)
}

// ContrastiveLoss is the loss of Caffe's siamese example: for feature
// pairs a, b (bottoms 0 and 1, N×C) and similarity labels y (bottom 2),
// Σ [y·d² + (1−y)·max(margin − d, 0)²] / 2N with d = ‖a − b‖
// (contrastive_loss_param: margin 1; legacy_version uses
// max(margin − d², 0) instead). The features get gradients.
type ContrastiveLoss struct {
	layerBase
	margin float32
	legacy bool
	diff   []float32 // a − b
	distSq []float32 // per pair
}

var (
	_ LossLayer            = (*ContrastiveLoss)(nil)
	_ ForceBackwardLimiter = (*ContrastiveLoss)(nil)
)

func newContrastiveLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetContrastiveLossParam()
	return &ContrastiveLoss{layerBase: newLayerBase("ContrastiveLoss", def, env), margin: p.GetMargin(), legacy: p.GetLegacyVersion()}, nil
}

// IsLoss reports that the top is a loss.
func (l *ContrastiveLoss) IsLoss() bool { return true }

// AllowForceBackward is true for the two feature bottoms.
func (l *ContrastiveLoss) AllowForceBackward(bottom int) bool { return bottom < 2 }

// Setup checks the blobs.
func (l *ContrastiveLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 3, 3, 1, 1); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks that the pairs and labels agree.
func (l *ContrastiveLoss) Reshape(bottom, top []*Blob) error {
	a, b, y := bottom[0], bottom[1], bottom[2]
	if a.NumAxes() < 1 || !sameShape(a, b) || y.Count() != a.Dim(0) {
		return l.errorf("want two feature blobs of one shape N×C and N labels, got %v, %v and %v", a.Shape(), b.Shape(), y.Shape())
	}
	l.diff = growFloats(l.diff, a.Count())
	l.distSq = growFloats(l.distSq, a.Dim(0))
	top[0].Reshape()
	return nil
}

// Forward computes the loss.
func (l *ContrastiveLoss) Forward(bottom, top []*Blob) error {
	a, b, y := bottom[0].DataSlice(), bottom[1].DataSlice(), bottom[2].DataSlice()
	n := bottom[0].Dim(0)
	c := bottom[0].Count() / max(1, n)
	var loss float64
	for i := 0; i < n; i++ {
		var d2 float32
		for j := i * c; j < (i+1)*c; j++ {
			l.diff[j] = a[j] - b[j]
			d2 += l.diff[j] * l.diff[j]
		}
		l.distSq[i] = d2
		if y[i] != 0 {
			loss += float64(d2)
		} else if l.legacy {
			loss += float64(max(l.margin-d2, 0))
		} else {
			m := max(l.margin-float32(math.Sqrt(float64(d2))), 0)
			loss += float64(m * m)
		}
	}
	top[0].DataSlice()[0] = float32(loss / float64(n) / 2)
	return nil
}

// Backward passes ±(a − b)/N for similar pairs and, for dissimilar pairs
// still inside the margin, the gradient of the hinge, as Caffe computes it.
func (l *ContrastiveLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	y := bottom[2].DataSlice()
	n := bottom[0].Dim(0)
	c := bottom[0].Count() / max(1, n)
	for k := range 2 {
		if k >= len(propagateDown) || !propagateDown[k] {
			continue
		}
		sign := float32(1)
		if k == 1 {
			sign = -1
		}
		alpha := sign * top[0].DiffSlice()[0] / float32(n)
		dx := bottom[k].DiffSlice()
		for i := 0; i < n; i++ {
			scale := alpha
			if y[i] == 0 {
				var m float32
				if l.legacy {
					m, scale = l.margin-l.distSq[i], -alpha
				} else {
					d := float32(math.Sqrt(float64(l.distSq[i])))
					m = l.margin - d
					scale = -alpha * m / (d + 1e-4)
				}
				if m <= 0 {
					scale = 0
				}
			}
			for j := i * c; j < (i+1)*c; j++ {
				dx[j] = scale * l.diff[j]
			}
		}
	}
}

// MultinomialLogisticLoss is −Σ log(p[label]) / N over probabilities
// (bottom 0, N×K…) and labels (bottom 1), with p clamped to at least
// 1e−20 as in Caffe. The probabilities get the gradient.
type MultinomialLogisticLoss struct {
	layerBase
	scoreLoss
}

// scoreLoss is the loss-layer behaviour of the layers whose first top is
// the loss and whose first bottom (scores or probabilities) alone takes a
// gradient; the others are labels or fixed inputs.
type scoreLoss struct{}

// IsLoss reports that the first top is a loss.
func (scoreLoss) IsLoss() bool { return true }

// AllowForceBackward is true for the first bottom only.
func (scoreLoss) AllowForceBackward(bottom int) bool { return bottom == 0 }

var (
	_ LossLayer            = (*MultinomialLogisticLoss)(nil)
	_ ForceBackwardLimiter = (*MultinomialLogisticLoss)(nil)
)

func newMultinomialLogisticLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &MultinomialLogisticLoss{layerBase: newLayerBase("MultinomialLogisticLoss", def, env)}, nil
}

// Setup checks the blobs.
func (l *MultinomialLogisticLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 1); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks one label per sample.
func (l *MultinomialLogisticLoss) Reshape(bottom, top []*Blob) error {
	if err := checkSampleLabels(&l.layerBase, bottom); err != nil {
		return err
	}
	top[0].Reshape()
	return nil
}

// checkSampleLabels checks that a loss layer's second bottom holds one
// label per sample of its first.
func checkSampleLabels(l *layerBase, bottom []*Blob) error {
	if err := lossFirstDims(l, bottom); err != nil {
		return err
	}
	if bottom[1].Count() != bottom[0].Dim(0) {
		return l.errorf("want one label per sample: %v labels for %v scores", bottom[1].Shape(), bottom[0].Shape())
	}
	return nil
}

// classOf returns sample i's label as a class index below k.
func classOf(l *layerBase, labels []float32, i, k int) (int, error) {
	c := int(labels[i])
	if float32(c) != labels[i] || c < 0 || c >= k {
		return 0, l.errorf("label %g of sample %d is not a class index in [0, %d)", labels[i], i, k)
	}
	return c, nil
}

// Forward computes the loss.
func (l *MultinomialLogisticLoss) Forward(bottom, top []*Blob) error {
	p, labels := bottom[0].DataSlice(), bottom[1].DataSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	var loss float64
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		if err != nil {
			return err
		}
		loss -= math.Log(float64(max(p[i*k+c], 1e-20)))
	}
	top[0].DataSlice()[0] = float32(loss / float64(n))
	return nil
}

// Backward puts −1/(N·p[label]) at each label and zero elsewhere.
func (l *MultinomialLogisticLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	p, labels, dp := bottom[0].DataSlice(), bottom[1].DataSlice(), bottom[0].DiffSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	scale := -top[0].DiffSlice()[0] / float32(n)
	clear(dp[:n*k])
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		if err != nil {
			continue // Forward has reported it
		}
		dp[i*k+c] = scale / max(p[i*k+c], 1e-20)
	}
}

// HingeLoss is the one-vs-all hinge loss of scores (bottom 0, N×K…)
// against labels (bottom 1): Σ max(0, 1 − t·s) / N with t = +1 for the
// label's score and −1 for the others, or the sum of squares with
// hinge_loss_param.norm L2.
type HingeLoss struct {
	layerBase
	scoreLoss
	l2     bool
	margin []float32 // max(0, 1 − t·s)
}

var (
	_ LossLayer            = (*HingeLoss)(nil)
	_ ForceBackwardLimiter = (*HingeLoss)(nil)
)

func newHingeLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &HingeLoss{layerBase: newLayerBase("HingeLoss", def, env), l2: def.GetHingeLossParam().GetNorm() == caffepb.HingeLossParameter_L2}, nil
}

// Setup checks the blobs.
func (l *HingeLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 1); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks one label per sample.
func (l *HingeLoss) Reshape(bottom, top []*Blob) error {
	if err := checkSampleLabels(&l.layerBase, bottom); err != nil {
		return err
	}
	l.margin = growFloats(l.margin, bottom[0].Count())
	top[0].Reshape()
	return nil
}

// Forward computes the loss.
func (l *HingeLoss) Forward(bottom, top []*Blob) error {
	s, labels := bottom[0].DataSlice(), bottom[1].DataSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	var loss float64
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		if err != nil {
			return err
		}
		for j := 0; j < k; j++ {
			t := float32(-1)
			if j == c {
				t = 1
			}
			m := max(0, 1-t*s[i*k+j])
			l.margin[i*k+j] = m
			if l.l2 {
				loss += float64(m * m)
			} else {
				loss += float64(m)
			}
		}
	}
	top[0].DataSlice()[0] = float32(loss / float64(n))
	return nil
}

// Backward passes −t·sign(margin)/N (L1) or −2t·margin/N (L2).
func (l *HingeLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	labels, ds := bottom[1].DataSlice(), bottom[0].DiffSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	scale := top[0].DiffSlice()[0] / float32(n)
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		for j := 0; j < k; j++ {
			m := l.margin[i*k+j]
			if err != nil {
				m = 0
			}
			t := float32(-1)
			if j == c {
				t = 1
			}
			g := float32(0)
			switch {
			case l.l2:
				g = 2 * m
			case m > 0:
				g = 1
			}
			ds[i*k+j] = -t * g * scale
		}
	}
}

// Crop cuts bottom 0 to the shape of bottom 1 along the axes from
// crop_param.axis (default 2) on, starting at crop_param.offset (one for
// all those axes, or one each; default 0). Bottom 0 gets the gradient,
// zero outside the crop.
type Crop struct {
	layerBase
	offsets []int // per axis of bottom 0
}

var _ Layer = (*Crop)(nil)

func newCrop(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Crop{layerBase: newLayerBase("Crop", def, env)}, nil
}

// Setup checks the blobs.
func (l *Crop) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape computes the offsets and shapes the top.
func (l *Crop) Reshape(bottom, top []*Blob) error {
	a, ref := bottom[0], bottom[1]
	if a.NumAxes() != ref.NumAxes() {
		return l.errorf("bottoms of %d and %d axes: want the same number", a.NumAxes(), ref.NumAxes())
	}
	p := orDefaults(l.def.GetCropParam())
	axis, err := canonicalAxis("crop_param.axis", int(p.GetAxis()), a.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	off := p.GetOffset()
	if len(off) > 1 && len(off) != a.NumAxes()-axis {
		return l.errorf("crop_param.offset has %d values; want 1 or one per cropped axis (%d)", len(off), a.NumAxes()-axis)
	}
	l.offsets = make([]int, a.NumAxes())
	shape := a.Shape()
	for i := axis; i < a.NumAxes(); i++ {
		o := 0
		switch len(off) {
		case 1:
			o = int(off[0])
		case 0:
		default:
			o = int(off[i-axis])
		}
		if o+ref.Dim(i) > a.Dim(i) {
			return l.errorf("axis %d: offset %d + size %d runs past the bottom's %d", i, o, ref.Dim(i), a.Dim(i))
		}
		l.offsets[i] = o
		shape[i] = ref.Dim(i)
	}
	top[0].Reshape(shape...)
	return nil
}

// walk calls fn(src, dst, n) for every contiguous run of the crop: src in
// bottom 0, dst in the top, n values.
func (l *Crop) walk(a *Blob, t *Blob, fn func(src, dst, n int)) {
	nAxes := a.NumAxes()
	if nAxes == 0 {
		fn(0, 0, 1)
		return
	}
	inner := t.Dim(nAxes - 1)
	idx := make([]int, nAxes-1) // over the top's leading axes
	for dst := 0; dst < t.Count(); dst += inner {
		src := 0
		for i := 0; i < nAxes-1; i++ {
			src = src*a.Dim(i) + idx[i] + l.offsets[i]
		}
		src = src*a.Dim(nAxes-1) + l.offsets[nAxes-1]
		fn(src, dst, inner)
		for i := nAxes - 2; i >= 0; i-- {
			if idx[i]++; idx[i] < t.Dim(i) {
				break
			}
			idx[i] = 0
		}
	}
}

// Forward copies the crop.
func (l *Crop) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	l.walk(bottom[0], top[0], func(src, dst, n int) { copy(y[dst:dst+n], x[src:src+n]) })
	return nil
}

// Backward puts the top's gradient back at the crop, zero elsewhere.
func (l *Crop) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dx, dy := bottom[0].DiffSlice(), top[0].DiffSlice()
	clear(dx[:bottom[0].Count()])
	l.walk(bottom[0], top[0], func(src, dst, n int) { copy(dx[src:src+n], dy[dst:dst+n]) })
}

// Tile repeats the bottom tile_param.tiles times along tile_param.axis
// (default 1).
type Tile struct {
	layerBase
	tiles, outer, inner int // inner: the values from axis on
}

var _ Layer = (*Tile)(nil)

func newTile(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetTileParam()
	if p.GetTiles() < 1 {
		return nil, fmt.Errorf("tile_param.tiles must be at least 1, got %d", p.GetTiles())
	}
	return &Tile{layerBase: newLayerBase("Tile", def, env), tiles: int(p.GetTiles())}, nil
}

// Setup checks the blobs.
func (l *Tile) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape multiplies the axis by the tiles.
func (l *Tile) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	axis, err := canonicalAxis("tile_param.axis", int(orDefaults(l.def.GetTileParam()).GetAxis()), b.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	shape := b.Shape()
	shape[axis] *= l.tiles
	top[0].Reshape(shape...)
	l.outer, l.inner = b.CountRange(0, axis), b.CountFrom(axis)
	return nil
}

// Forward repeats every block.
func (l *Tile) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	for o := 0; o < l.outer; o++ {
		block := x[o*l.inner : (o+1)*l.inner]
		for t := 0; t < l.tiles; t++ {
			copy(y[(o*l.tiles+t)*l.inner:], block)
		}
	}
	return nil
}

// Backward sums the gradients of the copies.
func (l *Tile) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dx, dy := bottom[0].DiffSlice(), top[0].DiffSlice()
	for o := 0; o < l.outer; o++ {
		d := dx[o*l.inner : (o+1)*l.inner]
		copy(d, dy[o*l.tiles*l.inner:])
		for t := 1; t < l.tiles; t++ {
			for i, v := range dy[(o*l.tiles+t)*l.inner : (o*l.tiles+t+1)*l.inner] {
				d[i] += v
			}
		}
	}
}

// Reduction reduces the axes from reduction_param.axis (default 0) on to
// one value, times coeff (default 1): SUM, ASUM (of absolute values),
// SUMSQ (of squares) or MEAN. Its top has the bottom's leading axes.
type Reduction struct {
	layerBase
	op           caffepb.ReductionParameter_ReductionOp
	coeff        float32
	outer, inner int
}

var _ Layer = (*Reduction)(nil)

func newReduction(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetReductionParam())
	return &Reduction{layerBase: newLayerBase("Reduction", def, env), op: p.GetOperation(), coeff: p.GetCoeff()}, nil
}

// Setup checks the blobs.
func (l *Reduction) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape keeps the leading axes.
func (l *Reduction) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	axis, err := canonicalAxis("reduction_param.axis", int(orDefaults(l.def.GetReductionParam()).GetAxis()), b.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	top[0].Reshape(b.Shape()[:axis]...)
	l.outer, l.inner = b.CountRange(0, axis), b.CountFrom(axis)
	return nil
}

// Forward reduces.
func (l *Reduction) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	for o := 0; o < l.outer; o++ {
		var s float32
		for _, v := range x[o*l.inner : (o+1)*l.inner] {
			switch l.op {
			case caffepb.ReductionParameter_ASUM:
				s += float32(math.Abs(float64(v)))
			case caffepb.ReductionParameter_SUMSQ:
				s += v * v
			default:
				s += v
			}
		}
		if l.op == caffepb.ReductionParameter_MEAN {
			s /= float32(max(1, l.inner))
		}
		y[o] = l.coeff * s
	}
	return nil
}

// Backward spreads each output's gradient over its inputs.
func (l *Reduction) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dx, dy := bottom[0].DataSlice(), bottom[0].DiffSlice(), top[0].DiffSlice()
	for o := 0; o < l.outer; o++ {
		g := l.coeff * dy[o]
		if l.op == caffepb.ReductionParameter_MEAN {
			g /= float32(max(1, l.inner))
		}
		for i := o * l.inner; i < (o+1)*l.inner; i++ {
			switch l.op {
			case caffepb.ReductionParameter_ASUM:
				switch {
				case x[i] > 0:
					dx[i] = g
				case x[i] < 0:
					dx[i] = -g
				default:
					dx[i] = 0
				}
			case caffepb.ReductionParameter_SUMSQ:
				dx[i] = 2 * g * x[i]
			default:
				dx[i] = g
			}
		}
	}
}

// DummyData produces tops filled by dummy_data_param's fillers (one for
// all tops or one each; default constant 0) with its shapes (shape, or
// the legacy num, channels, height and width). Constant tops are filled
// once; others are refilled at every Forward.
type DummyData struct {
	layerBase
	shapes  [][]int
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
		var dims []int
		for _, d := range s.GetDim() {
			dims = append(dims, int(d))
		}
		l.shapes = append(l.shapes, dims)
	}
	if legacy := len(p.GetNum()) + len(p.GetChannels()) + len(p.GetHeight()) + len(p.GetWidth()); legacy > 0 {
		if len(l.shapes) > 0 {
			return nil, fmt.Errorf("dummy_data_param: give either shape or num/channels/height/width, not both")
		}
		n := len(p.GetNum())
		if len(p.GetChannels()) != n || len(p.GetHeight()) != n || len(p.GetWidth()) != n {
			return nil, fmt.Errorf("dummy_data_param: num, channels, height and width must be given equally often")
		}
		for i := 0; i < n; i++ {
			l.shapes = append(l.shapes, []int{int(p.GetNum()[i]), int(p.GetChannels()[i]), int(p.GetHeight()[i]), int(p.GetWidth()[i])})
		}
	}
	l.fillers = p.GetDataFiller()
	return l, nil
}

// Setup checks the counts and shapes the tops.
func (l *DummyData) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 0, 0, 1, -1); err != nil {
		return err
	}
	if len(l.shapes) != 1 && len(l.shapes) != len(top) {
		return l.errorf("%d shapes for %d tops; give one, or one per top", len(l.shapes), len(top))
	}
	if len(l.fillers) > 1 && len(l.fillers) != len(top) {
		return l.errorf("%d data_fillers for %d tops; give none, one, or one per top", len(l.fillers), len(top))
	}
	for i, t := range top {
		s := l.shapes[min(i, len(l.shapes)-1)]
		for _, d := range s {
			if d < 0 {
				return l.errorf("shape %v has a negative dimension", s)
			}
		}
		t.Reshape(s...)
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
