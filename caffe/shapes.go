package caffe

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

// Shape is the shape of a blob, outermost axis first. A nil Shape is
// unknown; a scalar (a loss) is a non-nil Shape with no axes.
type Shape []int

// Known reports whether the shape is known.
func (s Shape) Known() bool { return s != nil }

// Count returns the number of elements (1 for a scalar), or -1 when the
// shape is unknown.
func (s Shape) Count() int {
	if s == nil {
		return -1
	}
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// String renders the shape as 64x1x28x28, "scalar", or "?" when unknown.
func (s Shape) String() string {
	switch {
	case s == nil:
		return "?"
	case len(s) == 0:
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

func (s Shape) clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape{}, s...)
}

func (s Shape) equal(t Shape) bool {
	return s != nil && t != nil && intsEqual(s, t)
}

// count returns the product of dims [start, end).
func (s Shape) count(start, end int) int {
	n := 1
	for _, d := range s[start:end] {
		n *= d
	}
	return n
}

// LayerShapes holds the shapes of one layer's blobs.
type LayerShapes struct {
	Bottoms []Shape
	Tops    []Shape
	// Params has the shape of each parameter blob, in order.
	Params []Shape
}

// ParamCount returns the number of parameter values of the layer, and
// whether it is known.
func (ls LayerShapes) ParamCount() (int64, bool) {
	var n int64
	for _, p := range ls.Params {
		if !p.Known() {
			return 0, false
		}
		n += int64(p.Count())
	}
	return n, true
}

// Shapes holds the blob and parameter shapes of a processed net.
type Shapes struct {
	// Layers is index-aligned with NetDef.Layers.
	Layers []LayerShapes
	// Blobs maps every blob name to its shape (after the last layer that
	// writes it).
	Blobs map[string]Shape
}

// InferShapes computes the shape of every blob and every parameter blob of
// a processed net with Caffe's rules (convolution output sizes rounded
// down, pooling rounded up with Caffe's correction for padding, ...), and
// checks what Caffe checks when it sets layers up (channels divisible by
// group, matching Concat inputs, label counts, shared parameter shapes, ...).
//
// inputShapes gives shapes for tops of layers without bottoms (data and
// input layers), by blob name, overriding what their definition says; a
// data layer whose samples come from a database or file has top shapes
// that are unknown without them (only the label's [batch] is known). Layers
// reading an unknown blob have unknown tops; parameter shapes that do not
// depend on the input (a bias) are still given. Unknown shapes are nil.
func InferShapes(def *NetDef, inputShapes map[string][]int) (*Shapes, error) {
	sources := map[string]bool{}
	for _, l := range def.Layers {
		if len(l.Bottoms) == 0 {
			for _, t := range l.Tops {
				sources[t] = true
			}
		}
	}
	var names []string
	for name := range inputShapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !sources[name] {
			var ok []string
			for s := range sources {
				ok = append(ok, s)
			}
			return nil, fmt.Errorf("caffe: a shape is given for blob %q, which is not a top of a data or input layer of net %q; give shapes for: %s",
				name, def.Name, orNone(sortedStrings(ok)))
		}
		if _, err := format.ShapeCount(inputShapes[name]); err != nil {
			return nil, fmt.Errorf("caffe: shape given for blob %q: %w", name, err)
		}
	}

	out := &Shapes{Layers: make([]LayerShapes, len(def.Layers)), Blobs: map[string]Shape{}}
	for i, l := range def.Layers {
		c := &shapeCtx{l: l, lp: l.Param}
		for _, b := range l.Bottoms {
			c.bottoms = append(c.bottoms, out.Blobs[b])
		}
		c.tops = make([]Shape, len(l.Tops))
		c.params = make([]Shape, len(l.Params))
		if rule := shapeRules[l.Type]; rule != nil {
			if err := rule(c); err != nil {
				return nil, err
			}
		}
		if len(l.Bottoms) == 0 {
			c.applyInputShapes(inputShapes)
		}
		for j, t := range c.tops {
			if t.Known() {
				if _, err := format.ShapeCount(t); err != nil {
					return nil, c.errorf("top %q: %v", l.Tops[j], err)
				}
			}
		}
		for k, p := range c.params {
			if p.Known() {
				if _, err := format.ShapeCount(p); err != nil {
					return nil, c.errorf("parameter %d: %v", k, err)
				}
			}
		}
		if err := checkSharedShapes(def, out, l, c.params); err != nil {
			return nil, err
		}
		for j, name := range l.Tops {
			out.Blobs[name] = c.tops[j]
		}
		out.Layers[i] = LayerShapes{Bottoms: c.bottoms, Tops: c.tops, Params: c.params}
	}
	return out, nil
}

func sortedStrings(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// checkSharedShapes checks a layer's shared parameters against their owners, as
// Caffe does: equal shapes, or equal counts for PERMISSIVE sharing.
func checkSharedShapes(def *NetDef, out *Shapes, l *LayerDef, params []Shape) error {
	for k, id := range l.Params {
		p := def.Params[id]
		if p.Owner < 0 {
			continue
		}
		o := def.Params[p.Owner]
		owner := out.Layers[o.Layer].Params[o.Index]
		mine := params[k]
		if !owner.Known() || !mine.Known() {
			continue
		}
		if p.ShareMode == caffepb.ParamSpec_PERMISSIVE {
			if owner.Count() != mine.Count() {
				return l.errorf("cannot share param %q of layer %q: counts differ (owner shape %v, here %v)",
					p.Name, def.Layers[o.Layer].Name, owner, mine)
			}
		} else if !owner.equal(mine) {
			return l.errorf("cannot share param %q of layer %q: shapes differ (owner %v, here %v); use share_mode: PERMISSIVE to require equal counts only",
				p.Name, def.Layers[o.Layer].Name, owner, mine)
		}
	}
	return nil
}

type shapeCtx struct {
	l       *LayerDef
	lp      *caffepb.LayerParameter
	bottoms []Shape
	tops    []Shape
	params  []Shape
}

func (c *shapeCtx) errorf(format string, args ...any) error {
	return c.l.errorf(format, args...)
}

// known reports whether every bottom shape is known.
func (c *shapeCtx) known() bool {
	for _, b := range c.bottoms {
		if !b.Known() {
			return false
		}
	}
	return true
}

// setParam sets parameter blob i, if the layer has it.
func (c *shapeCtx) setParam(i int, s Shape) {
	if i < len(c.params) {
		c.params[i] = s
	}
}

func (c *shapeCtx) applyInputShapes(inputShapes map[string][]int) {
	var batch = -1
	for j, name := range c.l.Tops {
		if s, ok := inputShapes[name]; ok {
			c.tops[j] = append(Shape{}, s...)
			if j == 0 && len(s) > 0 {
				batch = s[0]
			}
		}
	}
	// A data layer's label follows the batch size of an overridden data
	// top.
	lt := layerTypes[c.l.Type]
	if lt != nil && lt.Data && batch >= 0 && len(c.l.Tops) == 2 {
		if _, ok := inputShapes[c.l.Tops[1]]; !ok {
			c.tops[1] = Shape{batch}
		}
	}
}

// axis returns Caffe's canonical index of axis for a blob with n axes.
func (c *shapeCtx) axis(axis, n int, what string) (int, error) {
	if axis < -n || axis >= n {
		return 0, c.errorf("%s %d is out of range for a %d-axis blob", what, axis, n)
	}
	if axis < 0 {
		axis += n
	}
	return axis, nil
}

func ruleSameShape(c *shapeCtx) error {
	for j := range c.tops {
		if j < len(c.bottoms) {
			c.tops[j] = c.bottoms[j].clone()
		} else {
			c.tops[j] = c.bottoms[0].clone()
		}
	}
	return nil
}

var shapeRules map[string]func(*shapeCtx) error

func init() {
	shapeRules = map[string]func(*shapeCtx) error{
		"AbsVal": ruleSameShape, "BNLL": ruleSameShape, "Clip": ruleSameShape, "Dropout": ruleSameShape,
		"ELU": ruleSameShape, "Exp": ruleSameShape, "Log": ruleSameShape, "Power": ruleSameShape,
		"ReLU": ruleSameShape, "Sigmoid": ruleSameShape, "Swish": ruleSameShape, "TanH": ruleSameShape,
		"Threshold": ruleSameShape, "Split": ruleSameShape, "MVN": ruleSameShape,

		"Accuracy":                ruleAccuracy,
		"ArgMax":                  ruleArgMax,
		"BatchNorm":               ruleBatchNorm,
		"BatchReindex":            ruleBatchReindex,
		"Bias":                    ruleBias,
		"Concat":                  ruleConcat,
		"ContrastiveLoss":         ruleLoss,
		"Convolution":             ruleConv,
		"Crop":                    ruleCrop,
		"Data":                    ruleData,
		"Deconvolution":           ruleConv,
		"DummyData":               ruleDummyData,
		"Eltwise":                 ruleEltwise,
		"Embed":                   ruleEmbed,
		"EuclideanLoss":           ruleEuclideanLoss,
		"Filter":                  func(*shapeCtx) error { return nil }, // data-dependent
		"Flatten":                 ruleFlatten,
		"HDF5Data":                func(*shapeCtx) error { return nil }, // from files
		"HDF5Output":              func(*shapeCtx) error { return nil },
		"HingeLoss":               ruleLoss,
		"Im2col":                  ruleIm2col,
		"ImageData":               ruleImageData,
		"InfogainLoss":            ruleLoss,
		"InnerProduct":            ruleInnerProduct,
		"Input":                   ruleInput,
		"LRN":                     ruleLrn,
		"LSTM":                    ruleRecurrent,
		"LSTMUnit":                ruleLstmUnit,
		"MemoryData":              ruleMemoryData,
		"MultinomialLogisticLoss": ruleLoss,
		"PReLU":                   rulePrelu,
		"Parameter":               ruleParameter,
		"Pooling":                 rulePooling,
		"Python":                  func(*shapeCtx) error { return nil }, // user code
		"RNN":                     ruleRecurrent,
		"Reduction":               ruleReduction,
		"Reshape":                 ruleReshape,
		"SPP":                     ruleSpp,
		"Scale":                   ruleScale,
		"SigmoidCrossEntropyLoss": ruleSigmoidCrossEntropy,
		"Silence":                 func(*shapeCtx) error { return nil },
		"Slice":                   ruleSlice,
		"Softmax":                 ruleSoftmax,
		"SoftmaxWithLoss":         ruleSoftmaxWithLoss,
		"Tile":                    ruleTile,
		"WindowData":              ruleWindowData,
	}
}

// --- data and input layers ---

func ruleInput(c *shapeCtx) error {
	shapes := c.lp.GetInputParam().GetShape()
	if n := len(shapes); n != 0 && n != 1 && n != len(c.tops) {
		return c.errorf("input_param gives %d shapes for %d tops; give one shape, one per top, or none", n, len(c.tops))
	}
	if len(shapes) == 0 {
		return nil
	}
	for j := range c.tops {
		s := shapes[0]
		if len(shapes) > 1 {
			s = shapes[j]
		}
		shape, err := shapeOfBlobShape(s)
		if err != nil {
			return c.errorf("input shape of top %q: %v", c.l.Tops[j], err)
		}
		c.tops[j] = shape
	}
	return nil
}

// shapeOfBlobShape converts a BlobShape, refusing negative or oversized dims.
func shapeOfBlobShape(s *caffepb.BlobShape) (Shape, error) {
	if len(s.GetDim()) > 32 {
		return nil, fmt.Errorf("%d axes, more than Caffe's 32", len(s.GetDim()))
	}
	shape := Shape{}
	for _, d := range s.GetDim() {
		shape = append(shape, format.ClampDim(d))
	}
	if _, err := format.ShapeCount(shape); err != nil {
		return nil, err
	}
	return shape, nil
}

// setLabel sets a data layer's second top to [batch].
func (c *shapeCtx) setLabel(batch int) {
	if len(c.tops) > 1 {
		c.tops[1] = Shape{batch}
	}
}

func ruleData(c *shapeCtx) error {
	// The sample shape comes from the database; only the label is known.
	c.setLabel(int(c.lp.GetDataParam().GetBatchSize()))
	return nil
}

func ruleImageData(c *shapeCtx) error {
	p := orEmpty(c.lp.GetImageDataParam())
	if (p.GetNewHeight() == 0) != (p.GetNewWidth() == 0) {
		return c.errorf("image_data_param needs new_height and new_width together")
	}
	batch := int(p.GetBatchSize())
	channels := 1
	if p.GetIsColor() {
		channels = 3
	}
	crop := int(c.lp.GetTransformParam().GetCropSize())
	switch {
	case crop > 0:
		c.tops[0] = Shape{batch, channels, crop, crop}
	case p.GetNewHeight() > 0:
		c.tops[0] = Shape{batch, channels, int(p.GetNewHeight()), int(p.GetNewWidth())}
	}
	c.setLabel(batch)
	return nil
}

func ruleWindowData(c *shapeCtx) error {
	p := orEmpty(c.lp.GetWindowDataParam())
	crop := int(c.lp.GetTransformParam().GetCropSize())
	if crop <= 0 {
		return c.errorf("WindowData needs transform_param.crop_size > 0")
	}
	batch := int(p.GetBatchSize())
	c.tops[0] = Shape{batch, 3, crop, crop}
	c.setLabel(batch)
	return nil
}

func ruleMemoryData(c *shapeCtx) error {
	p := orEmpty(c.lp.GetMemoryDataParam())
	b, ch, h, w := int(p.GetBatchSize()), int(p.GetChannels()), int(p.GetHeight()), int(p.GetWidth())
	if b <= 0 || ch <= 0 || h <= 0 || w <= 0 {
		return c.errorf("memory_data_param needs batch_size, channels, height and width, all positive")
	}
	c.tops[0] = Shape{b, ch, h, w}
	c.setLabel(b)
	return nil
}

func ruleDummyData(c *shapeCtx) error {
	p := orEmpty(c.lp.GetDummyDataParam())
	n := len(c.tops)
	oneOrN := func(k int) bool { return k == 1 || k == n }
	if f := len(p.DataFiller); f != 0 && !oneOrN(f) {
		return c.errorf("dummy_data_param gives %d data_fillers for %d tops; give 0, 1 or one per top", f, n)
	}
	legacy := len(p.Num) > 0 || len(p.Channels) > 0 || len(p.Height) > 0 || len(p.Width) > 0
	if legacy {
		if len(p.Shape) > 0 {
			return c.errorf("dummy_data_param gives both shape and the legacy num/channels/height/width")
		}
		if !oneOrN(len(p.Num)) || !oneOrN(len(p.Channels)) || !oneOrN(len(p.Height)) || !oneOrN(len(p.Width)) {
			return c.errorf("dummy_data_param's num, channels, height and width must each be given once or once per top (%d)", n)
		}
		pick := func(v []uint32, j int) int {
			if len(v) == 1 {
				return int(v[0])
			}
			return int(v[j])
		}
		for j := range c.tops {
			c.tops[j] = Shape{pick(p.Num, j), pick(p.Channels, j), pick(p.Height, j), pick(p.Width, j)}
		}
		return nil
	}
	if !oneOrN(len(p.Shape)) {
		return c.errorf("dummy_data_param gives %d shapes for %d tops; give one or one per top", len(p.Shape), n)
	}
	for j := range c.tops {
		s := p.Shape[0]
		if len(p.Shape) > 1 {
			s = p.Shape[j]
		}
		shape, err := shapeOfBlobShape(s)
		if err != nil {
			return c.errorf("shape of top %q: %v", c.l.Tops[j], err)
		}
		c.tops[j] = shape
	}
	return nil
}

func ruleParameter(c *shapeCtx) error {
	shape, err := shapeOfBlobShape(c.lp.GetParameterParam().GetShape())
	if err != nil {
		return c.errorf("parameter_param.shape: %v", err)
	}
	c.tops[0] = shape
	c.setParam(0, shape.clone())
	return nil
}

// --- vision layers ---

// ruleConvGeometry reads kernel, stride, pad and dilation for n spatial axes.
func ruleConvGeometry(c *shapeCtx, p *caffepb.ConvolutionParameter, n int) (kernel, stride, pad, dilation []int, err error) {
	perAxis := func(name string, vals []uint32, def int) ([]int, error) {
		if len(vals) != 0 && len(vals) != 1 && len(vals) != n {
			return nil, c.errorf("%s must be given once or once per spatial axis (%d), not %d times", name, n, len(vals))
		}
		out := make([]int, n)
		for i := range out {
			switch len(vals) {
			case 0:
				out[i] = def
			case 1:
				out[i] = int(vals[0])
			default:
				out[i] = int(vals[i])
			}
		}
		return out, nil
	}
	twoD := func(name string, h, w *uint32, list []uint32, listName string) ([]int, bool, error) {
		if h == nil && w == nil {
			return nil, false, nil
		}
		if n != 2 {
			return nil, true, c.errorf("%s_h and %s_w work for 2-D convolution only; this one has %d spatial axes", name, name, n)
		}
		if len(list) > 0 {
			return nil, true, c.errorf("give %s or %s_h/%s_w, not both", listName, name, name)
		}
		var hv, wv uint32
		if h != nil {
			hv = *h
		}
		if w != nil {
			wv = *w
		}
		return []int{int(hv), int(wv)}, true, nil
	}
	var ok bool
	if kernel, ok, err = twoD("kernel", p.KernelH, p.KernelW, p.KernelSize, "kernel_size"); err != nil {
		return
	}
	if !ok {
		if len(p.KernelSize) == 0 {
			return nil, nil, nil, nil, c.errorf("convolution_param needs kernel_size (or kernel_h and kernel_w)")
		}
		if kernel, err = perAxis("kernel_size", p.KernelSize, 0); err != nil {
			return
		}
	}
	for _, k := range kernel {
		if k <= 0 {
			return nil, nil, nil, nil, c.errorf("kernel dimensions must be non-zero, got %v", kernel)
		}
	}
	if stride, ok, err = twoD("stride", p.StrideH, p.StrideW, p.Stride, "stride"); err != nil {
		return
	}
	if !ok {
		if stride, err = perAxis("stride", p.Stride, 1); err != nil {
			return
		}
	}
	for _, s := range stride {
		if s <= 0 {
			return nil, nil, nil, nil, c.errorf("stride dimensions must be non-zero, got %v", stride)
		}
	}
	if pad, ok, err = twoD("pad", p.PadH, p.PadW, p.Pad, "pad"); err != nil {
		return
	}
	if !ok {
		if pad, err = perAxis("pad", p.Pad, 0); err != nil {
			return
		}
	}
	dilation, err = perAxis("dilation", p.Dilation, 1)
	return
}

func ruleConv(c *shapeCtx) error {
	p := orEmpty(c.lp.GetConvolutionParam())
	deconv := c.l.Type == "Deconvolution"
	numOut := int(p.GetNumOutput())
	if numOut <= 0 {
		return c.errorf("convolution_param.num_output must be positive")
	}
	group := int(p.GetGroup())
	if group <= 0 {
		return c.errorf("convolution_param.group must be positive")
	}
	if numOut%group != 0 {
		return c.errorf("num_output %d is not a multiple of group %d", numOut, group)
	}
	if p.GetBiasTerm() {
		c.setParam(1, Shape{numOut})
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	for j, other := range c.bottoms[1:] {
		if !other.equal(b) {
			return c.errorf("all bottoms must have the same shape; bottom 0 is %v, bottom %d is %v", b, j+1, other)
		}
	}
	chAxis, err := c.axis(int(p.GetAxis()), len(b), "axis")
	if err != nil {
		return err
	}
	n := len(b) - chAxis - 1
	kernel, stride, pad, dilation, err := ruleConvGeometry(c, p, n)
	if err != nil {
		return err
	}
	channels := b[chAxis]
	if channels%group != 0 {
		return c.errorf("input channels %d are not a multiple of group %d", channels, group)
	}
	w := Shape{numOut, channels / group}
	if deconv {
		w = Shape{channels, numOut / group}
	}
	for _, k := range kernel {
		w = append(w, k)
	}
	c.setParam(0, w)
	top := append(Shape{}, b[:chAxis]...)
	top = append(top, numOut)
	for i := 0; i < n; i++ {
		in := b[chAxis+1+i]
		extent := dilation[i]*(kernel[i]-1) + 1
		var out int
		if deconv {
			out = stride[i]*(in-1) + extent - 2*pad[i]
		} else {
			out = (in+2*pad[i]-extent)/stride[i] + 1
		}
		if out < 1 {
			return c.errorf("spatial axis %d: input %d with kernel %d, stride %d, pad %d, dilation %d gives output size %d",
				i, in, kernel[i], stride[i], pad[i], dilation[i], out)
		}
		top = append(top, out)
	}
	for j := range c.tops {
		c.tops[j] = top.clone()
	}
	return nil
}

func ruleIm2col(c *shapeCtx) error {
	if !c.known() {
		return nil
	}
	p := orEmpty(c.lp.GetConvolutionParam())
	b := c.bottoms[0]
	chAxis, err := c.axis(int(p.GetAxis()), len(b), "axis")
	if err != nil {
		return err
	}
	n := len(b) - chAxis - 1
	kernel, stride, pad, dilation, err := ruleConvGeometry(c, p, n)
	if err != nil {
		return err
	}
	top := append(Shape{}, b[:chAxis]...)
	ch := b[chAxis]
	for _, k := range kernel {
		ch *= k
	}
	top = append(top, ch)
	for i := 0; i < n; i++ {
		extent := dilation[i]*(kernel[i]-1) + 1
		out := (b[chAxis+1+i]+2*pad[i]-extent)/stride[i] + 1
		if out < 1 {
			return c.errorf("spatial axis %d gives output size %d", i, out)
		}
		top = append(top, out)
	}
	c.tops[0] = top
	return nil
}

func rulePooling(c *shapeCtx) error {
	p := orEmpty(c.lp.GetPoolingParam())
	global := p.GetGlobalPooling()
	if global {
		if p.KernelSize != nil || p.KernelH != nil || p.KernelW != nil {
			return c.errorf("global_pooling: true takes no kernel size")
		}
	} else {
		hasHW := p.KernelH != nil && p.KernelW != nil
		if (p.KernelSize != nil) == hasHW {
			if p.KernelSize != nil {
				return c.errorf("give kernel_size or kernel_h and kernel_w, not both")
			}
			return c.errorf("pooling_param needs kernel_size, or both kernel_h and kernel_w")
		}
	}
	if !(p.Pad == nil && p.PadH != nil && p.PadW != nil) && !(p.PadH == nil && p.PadW == nil) {
		return c.errorf("give pad, or both pad_h and pad_w")
	}
	if !(p.Stride == nil && p.StrideH != nil && p.StrideW != nil) && !(p.StrideH == nil && p.StrideW == nil) {
		return c.errorf("give stride, or both stride_h and stride_w")
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	if len(b) != 4 {
		return c.errorf("pooling needs a 4-axis input (num, channels, height, width), got %v", b)
	}
	var kh, kw int
	switch {
	case global:
		kh, kw = b[2], b[3]
	case p.KernelSize != nil:
		kh, kw = int(p.GetKernelSize()), int(p.GetKernelSize())
	default:
		kh, kw = int(p.GetKernelH()), int(p.GetKernelW())
	}
	if kh <= 0 || kw <= 0 {
		return c.errorf("kernel dimensions must be non-zero")
	}
	ph, pw := int(p.GetPad()), int(p.GetPad())
	if p.PadH != nil {
		ph, pw = int(p.GetPadH()), int(p.GetPadW())
	}
	sh, sw := int(p.GetStride()), int(p.GetStride())
	if p.StrideH != nil {
		sh, sw = int(p.GetStrideH()), int(p.GetStrideW())
	}
	if sh <= 0 || sw <= 0 {
		return c.errorf("stride must be non-zero")
	}
	if global && (ph != 0 || pw != 0 || sh != 1 || sw != 1) {
		return c.errorf("global_pooling: true needs pad 0 and stride 1")
	}
	if ph != 0 || pw != 0 {
		if p.GetPool() != caffepb.PoolingParameter_MAX && p.GetPool() != caffepb.PoolingParameter_AVE {
			return c.errorf("padding works with MAX and AVE pooling only")
		}
		if ph >= kh || pw >= kw {
			return c.errorf("pad (%d, %d) must be smaller than the kernel (%d, %d)", ph, pw, kh, kw)
		}
	}
	pooled := func(in, k, pad, stride int) int {
		v := float64(float32(in+2*pad-k) / float32(stride))
		if p.GetRoundMode() == caffepb.PoolingParameter_FLOOR {
			return int(math.Floor(v)) + 1
		}
		return int(math.Ceil(v)) + 1
	}
	oh, ow := pooled(b[2], kh, ph, sh), pooled(b[3], kw, pw, sw)
	if ph != 0 || pw != 0 {
		// The last window must start inside the image or its left padding.
		if (oh-1)*sh >= b[2]+ph {
			oh--
		}
		if (ow-1)*sw >= b[3]+pw {
			ow--
		}
	}
	if oh < 1 || ow < 1 {
		return c.errorf("input %v with kernel %dx%d gives output size %dx%d", b, kh, kw, oh, ow)
	}
	top := Shape{b[0], b[1], oh, ow}
	for j := range c.tops {
		c.tops[j] = top.clone()
	}
	return nil
}

func ruleSpp(c *shapeCtx) error {
	p := orEmpty(c.lp.GetSppParam())
	h := int(p.GetPyramidHeight())
	if h < 1 {
		return c.errorf("spp_param.pyramid_height must be at least 1")
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	if len(b) != 4 {
		return c.errorf("SPP needs a 4-axis input, got %v", b)
	}
	if h == 1 {
		c.tops[0] = Shape{b[0], b[1], 1, 1}
		return nil
	}
	bins := 0
	for l := 0; l < h; l++ {
		bins += (1 << l) * (1 << l)
	}
	c.tops[0] = Shape{b[0], b[1] * bins}
	return nil
}

func ruleLrn(c *shapeCtx) error {
	p := orEmpty(c.lp.GetLrnParam())
	if p.GetLocalSize()%2 == 0 {
		return c.errorf("lrn_param.local_size must be odd, got %d", p.GetLocalSize())
	}
	if !c.known() {
		return nil
	}
	if len(c.bottoms[0]) != 4 {
		return c.errorf("LRN needs a 4-axis input (num, channels, height, width), got %v", c.bottoms[0])
	}
	return ruleSameShape(c)
}

// --- common layers ---

func ruleInnerProduct(c *shapeCtx) error {
	p := orEmpty(c.lp.GetInnerProductParam())
	n := int(p.GetNumOutput())
	if p.GetBiasTerm() {
		c.setParam(1, Shape{n})
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	axis, err := c.axis(int(p.GetAxis()), len(b), "axis")
	if err != nil {
		return err
	}
	k := b.count(axis, len(b))
	if p.GetTranspose() {
		c.setParam(0, Shape{k, n})
	} else {
		c.setParam(0, Shape{n, k})
	}
	c.tops[0] = append(append(Shape{}, b[:axis]...), n)
	return nil
}

func ruleEmbed(c *shapeCtx) error {
	p := orEmpty(c.lp.GetEmbedParam())
	n, k := int(p.GetNumOutput()), int(p.GetInputDim())
	if n <= 0 || k <= 0 {
		return c.errorf("embed_param needs num_output and input_dim, both positive")
	}
	c.setParam(0, Shape{k, n})
	if p.GetBiasTerm() {
		c.setParam(1, Shape{n})
	}
	if c.known() {
		c.tops[0] = append(c.bottoms[0].clone(), n)
	}
	return nil
}

func ruleSoftmax(c *shapeCtx) error {
	if !c.known() {
		return nil
	}
	if _, err := c.axis(int(c.lp.GetSoftmaxParam().GetAxis()), len(c.bottoms[0]), "softmax_param.axis"); err != nil {
		return err
	}
	return ruleSameShape(c)
}

func ruleBatchNorm(c *shapeCtx) error {
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	ch := 1
	if len(b) > 1 {
		ch = b[1]
	}
	c.setParam(0, Shape{ch})
	c.setParam(1, Shape{ch})
	c.setParam(2, Shape{1})
	return ruleSameShape(c)
}

// ruleOperandShape returns the shape of a Scale or Bias operand that spans
// num axes of b from axis (num -1 meaning to the end).
func ruleOperandShape(c *shapeCtx, b Shape, axis, num int) (Shape, error) {
	if num < -1 {
		return nil, c.errorf("num_axes must be -1 or more, got %d", num)
	}
	a, err := c.axis(axis, len(b), "axis")
	if err != nil {
		return nil, err
	}
	end := len(b)
	if num >= 0 {
		end = a + num
		if end > len(b) {
			return nil, c.errorf("axis %d with num_axes %d runs past the input's %d axes", a, num, len(b))
		}
	}
	return append(Shape{}, b[a:end]...), nil
}

// ruleCheckOperand checks a second bottom used as Scale or Bias operand.
func ruleCheckOperand(c *shapeCtx, b, operand Shape, axisParam int) error {
	a := 0
	if len(operand) > 0 {
		var err error
		if a, err = c.axis(axisParam, len(b), "axis"); err != nil {
			return err
		}
	}
	if a+len(operand) > len(b) {
		return c.errorf("operand %v does not fit input %v from axis %d", operand, b, a)
	}
	for i, d := range operand {
		if b[a+i] != d {
			return c.errorf("operand %v does not match input %v from axis %d", operand, b, a)
		}
	}
	return nil
}

func ruleScale(c *shapeCtx) error {
	p := orEmpty(c.lp.GetScaleParam())
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	var scale Shape
	if len(c.bottoms) == 1 {
		s, err := ruleOperandShape(c, b, int(p.GetAxis()), int(p.GetNumAxes()))
		if err != nil {
			return err
		}
		scale = s
		c.setParam(0, s)
		if p.GetBiasTerm() {
			c.setParam(1, s.clone())
		}
	} else {
		scale = c.bottoms[1]
		if err := ruleCheckOperand(c, b, scale, int(p.GetAxis())); err != nil {
			return err
		}
		if p.GetBiasTerm() {
			c.setParam(0, scale.clone())
		}
	}
	c.tops[0] = b.clone()
	return nil
}

func ruleBias(c *shapeCtx) error {
	p := orEmpty(c.lp.GetBiasParam())
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	if len(c.bottoms) == 1 {
		s, err := ruleOperandShape(c, b, int(p.GetAxis()), int(p.GetNumAxes()))
		if err != nil {
			return err
		}
		c.setParam(0, s)
	} else if err := ruleCheckOperand(c, b, c.bottoms[1], int(p.GetAxis())); err != nil {
		return err
	}
	c.tops[0] = b.clone()
	return nil
}

func rulePrelu(c *shapeCtx) error {
	p := orEmpty(c.lp.GetPreluParam())
	if p.GetChannelShared() {
		c.setParam(0, Shape{})
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	if len(b) < 2 {
		return c.errorf("PReLU needs an input with at least 2 axes, got %v", b)
	}
	if !p.GetChannelShared() {
		c.setParam(0, Shape{b[1]})
	}
	return ruleSameShape(c)
}

func ruleConcat(c *shapeCtx) error {
	p := orEmpty(c.lp.GetConcatParam())
	if p.Axis != nil && p.ConcatDim != nil {
		return c.errorf("give concat_param.axis or concat_dim, not both")
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	var axis int
	if p.ConcatDim != nil {
		axis = int(p.GetConcatDim())
		if axis >= len(b) {
			return c.errorf("concat_dim %d is out of range for a %d-axis input", axis, len(b))
		}
	} else {
		var err error
		if axis, err = c.axis(int(p.GetAxis()), len(b), "axis"); err != nil {
			return err
		}
	}
	top := b.clone()
	for i, o := range c.bottoms[1:] {
		if len(o) != len(b) {
			return c.errorf("all inputs must have the same number of axes; bottom 0 is %v, bottom %d is %v", b, i+1, o)
		}
		for j := range o {
			if j != axis && o[j] != b[j] {
				return c.errorf("inputs must match except on the concat axis %d; bottom 0 is %v, bottom %d is %v", axis, b, i+1, o)
			}
		}
		top[axis] += o[axis]
	}
	c.tops[0] = top
	return nil
}

func ruleSlice(c *shapeCtx) error {
	p := orEmpty(c.lp.GetSliceParam())
	if p.Axis != nil && p.SliceDim != nil {
		return c.errorf("give slice_param.axis or slice_dim, not both")
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	var axis int
	if p.SliceDim != nil {
		axis = int(p.GetSliceDim())
		if axis >= len(b) {
			return c.errorf("slice_dim %d is out of range for a %d-axis input", axis, len(b))
		}
	} else {
		var err error
		if axis, err = c.axis(int(p.GetAxis()), len(b), "axis"); err != nil {
			return err
		}
	}
	dim := b[axis]
	n := len(c.tops)
	sizes := make([]int, 0, n)
	if len(p.SlicePoint) > 0 {
		if len(p.SlicePoint) != n-1 {
			return c.errorf("%d slice_points for %d tops; give one fewer than the tops", len(p.SlicePoint), n)
		}
		prev := 0
		for _, sp := range p.SlicePoint {
			if int(sp) <= prev {
				return c.errorf("slice_points must increase and be positive, got %v", p.SlicePoint)
			}
			sizes = append(sizes, int(sp)-prev)
			prev = int(sp)
		}
		if dim-prev <= 0 {
			return c.errorf("slice_point %d is past the end of axis %d (size %d)", prev, axis, dim)
		}
		sizes = append(sizes, dim-prev)
	} else {
		if dim%n != 0 {
			return c.errorf("%d tops do not evenly divide axis %d of size %d", n, axis, dim)
		}
		for j := 0; j < n; j++ {
			sizes = append(sizes, dim/n)
		}
	}
	for j := range c.tops {
		t := b.clone()
		t[axis] = sizes[j]
		c.tops[j] = t
	}
	return nil
}

func ruleEltwise(c *shapeCtx) error {
	p := orEmpty(c.lp.GetEltwiseParam())
	if len(p.Coeff) > 0 && p.GetOperation() != caffepb.EltwiseParameter_SUM {
		return c.errorf("eltwise_param.coeff works with operation SUM only")
	}
	if len(p.Coeff) > 0 && len(p.Coeff) != len(c.bottoms) {
		return c.errorf("%d coeffs for %d bottoms; give one per bottom", len(p.Coeff), len(c.bottoms))
	}
	if !c.known() {
		return nil
	}
	for i, o := range c.bottoms[1:] {
		if !o.equal(c.bottoms[0]) {
			return c.errorf("all bottoms must have the same shape; bottom 0 is %v, bottom %d is %v", c.bottoms[0], i+1, o)
		}
	}
	c.tops[0] = c.bottoms[0].clone()
	return nil
}

func ruleFlatten(c *shapeCtx) error {
	if len(c.l.Bottoms) == 1 && c.l.Tops[0] == c.l.Bottoms[0] {
		return c.errorf("Flatten cannot work in place")
	}
	if !c.known() {
		return nil
	}
	p := orEmpty(c.lp.GetFlattenParam())
	b := c.bottoms[0]
	start, err := c.axis(int(p.GetAxis()), len(b), "axis")
	if err != nil {
		return err
	}
	end, err := c.axis(int(p.GetEndAxis()), len(b), "end_axis")
	if err != nil {
		return err
	}
	if end < start {
		return c.errorf("end_axis %d comes before axis %d", end, start)
	}
	top := append(Shape{}, b[:start]...)
	top = append(top, b.count(start, end+1))
	top = append(top, b[end+1:]...)
	c.tops[0] = top
	return nil
}

func ruleReshape(c *shapeCtx) error {
	p := orEmpty(c.lp.GetReshapeParam())
	dims := p.GetShape().GetDim()
	inferred := -1
	var copyAxes []int
	constant := 1
	for i, d := range dims {
		switch {
		case d == 0:
			copyAxes = append(copyAxes, i)
		case d == -1:
			if inferred >= 0 {
				return c.errorf("reshape_param.shape has more than one -1 dimension")
			}
			inferred = i
		case d < -1:
			return c.errorf("reshape_param.shape has dimension %d; use positive sizes, 0 (copy) or -1 (infer)", d)
		default:
			constant *= format.ClampDim(d)
		}
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	start := int(p.GetAxis())
	if start < 0 {
		start += len(b) + 1
	}
	if start < 0 || start > len(b) {
		return c.errorf("reshape_param.axis %d is out of range for a %d-axis input", p.GetAxis(), len(b))
	}
	num := int(p.GetNumAxes())
	if num < -1 {
		return c.errorf("reshape_param.num_axes must be -1 or more")
	}
	end := len(b)
	if num >= 0 {
		end = start + num
	}
	if end > len(b) {
		return c.errorf("axis + num_axes = %d is past the input's %d axes", end, len(b))
	}
	top := append(Shape{}, b[:start]...)
	for _, d := range dims {
		top = append(top, format.ClampDim(d))
	}
	top = append(top, b[end:]...)
	for _, a := range copyAxes {
		if start+a >= len(b) {
			return c.errorf("reshape_param.shape has a 0 at %d, but the input has no axis %d to copy", a, start+a)
		}
		top[start+a] = b[start+a]
	}
	if inferred >= 0 {
		explicit := constant * b.count(0, start) * b.count(end, len(b))
		for _, a := range copyAxes {
			explicit *= top[start+a]
		}
		if explicit == 0 || b.Count()%explicit != 0 {
			return c.errorf("input count %d is not divisible by the product of the given dimensions (%d)", b.Count(), explicit)
		}
		top[start+inferred] = b.Count() / explicit
	}
	if top.Count() != b.Count() {
		return c.errorf("output %v has %d elements, input %v has %d", top, top.Count(), b, b.Count())
	}
	c.tops[0] = top
	return nil
}

func ruleCrop(c *shapeCtx) error {
	if !c.known() {
		return nil
	}
	p := orEmpty(c.lp.GetCropParam())
	b, ref := c.bottoms[0], c.bottoms[1]
	if len(b) != len(ref) {
		return c.errorf("input %v and reference %v must have the same number of axes", b, ref)
	}
	start, err := c.axis(int(p.GetAxis()), len(b), "axis")
	if err != nil {
		return err
	}
	if len(p.Offset) > 1 && start+len(p.Offset) != len(b) {
		return c.errorf("give one offset, or one per axis from axis %d (%d), not %d", start, len(b)-start, len(p.Offset))
	}
	top := b.clone()
	for i := start; i < len(b); i++ {
		off := 0
		switch {
		case len(p.Offset) == 1:
			off = int(p.Offset[0])
		case len(p.Offset) > 1:
			off = int(p.Offset[i-start])
		}
		if b[i]-off < ref[i] {
			return c.errorf("crop of axis %d (size %d at offset %d) runs past the input's %d", i, ref[i], off, b[i])
		}
		top[i] = ref[i]
	}
	c.tops[0] = top
	return nil
}

func ruleTile(c *shapeCtx) error {
	p := orEmpty(c.lp.GetTileParam())
	if p.Tiles == nil || p.GetTiles() <= 0 {
		return c.errorf("tile_param.tiles must be given and positive")
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	axis, err := c.axis(int(p.GetAxis()), len(b), "axis")
	if err != nil {
		return err
	}
	top := b.clone()
	top[axis] *= int(p.GetTiles())
	c.tops[0] = top
	return nil
}

func ruleReduction(c *shapeCtx) error {
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	axis, err := c.axis(int(c.lp.GetReductionParam().GetAxis()), len(b), "axis")
	if err != nil {
		return err
	}
	c.tops[0] = append(Shape{}, b[:axis]...)
	return nil
}

func ruleArgMax(c *shapeCtx) error {
	p := orEmpty(c.lp.GetArgmaxParam())
	k := int(p.GetTopK())
	if k < 1 {
		return c.errorf("argmax_param.top_k must be at least 1")
	}
	if !c.known() {
		return nil
	}
	b := c.bottoms[0]
	if p.Axis != nil {
		axis, err := c.axis(int(p.GetAxis()), len(b), "axis")
		if err != nil {
			return err
		}
		if k > b[axis] {
			return c.errorf("top_k %d is larger than axis %d (%d)", k, axis, b[axis])
		}
		top := b.clone()
		top[axis] = k
		c.tops[0] = top
		return nil
	}
	if len(b) < 1 || k > b.count(1, len(b)) {
		return c.errorf("top_k %d is larger than the %d values per item", k, b.count(min(1, len(b)), len(b)))
	}
	n := max(len(b), 3)
	top := make(Shape, n)
	for i := range top {
		top[i] = 1
	}
	top[0] = b[0]
	top[2] = k
	if p.GetOutMaxVal() {
		top[1] = 2
	}
	c.tops[0] = top
	return nil
}

func ruleBatchReindex(c *shapeCtx) error {
	if !c.known() {
		return nil
	}
	b, idx := c.bottoms[0], c.bottoms[1]
	if len(idx) != 1 {
		return c.errorf("the index bottom must have one axis, got %v", idx)
	}
	if len(b) < 1 {
		return c.errorf("the data bottom must have at least one axis")
	}
	top := b.clone()
	top[0] = idx[0]
	c.tops[0] = top
	return nil
}

// --- recurrent layers ---

func ruleRecurrent(c *shapeCtx) error {
	p := orEmpty(c.lp.GetRecurrentParam())
	h := int(p.GetNumOutput())
	if h <= 0 {
		return c.errorf("recurrent_param.num_output must be positive")
	}
	lstm := c.l.Type == "LSTM"
	hidden := 0
	if p.GetExposeHidden() {
		hidden = 1
		if lstm {
			hidden = 2
		}
	}
	if len(c.bottoms) < 2+hidden || len(c.bottoms) > 3+hidden {
		return c.errorf("takes %d or %d bottoms (x, cont, [static input]%s), has %d",
			2+hidden, 3+hidden, map[bool]string{true: ", hidden states", false: ""}[hidden > 0], len(c.bottoms))
	}
	if len(c.tops) != 1+hidden {
		return c.errorf("takes %d tops, has %d", 1+hidden, len(c.tops))
	}
	static := len(c.bottoms) > 2+hidden
	gates := h
	if lstm {
		gates = 4 * h
	}
	// Parameter order follows the unrolled net: input transform (weights,
	// bias), static input transform, hidden transform, then RNN's output.
	next := 0
	add := func(s Shape) { c.setParam(next, s); next++ }
	x := c.bottoms[0]
	var xDim Shape
	if x.Known() {
		if len(x) < 2 {
			return c.errorf("bottom 0 must have at least 2 axes (time steps, streams, ...), got %v", x)
		}
		xDim = Shape{gates, x.count(2, len(x))}
	}
	add(xDim)
	add(Shape{gates})
	if static {
		var s Shape
		if st := c.bottoms[2]; st.Known() {
			if len(st) < 1 {
				return c.errorf("the static input must have at least 1 axis")
			}
			s = Shape{gates, st.count(1, len(st))}
		}
		add(s)
	}
	add(Shape{gates, h})
	if !lstm {
		add(Shape{h, h})
		add(Shape{h})
	}
	if !c.known() {
		return nil
	}
	cont := c.bottoms[1]
	if len(cont) != 2 || cont[0] != x[0] || cont[1] != x[1] {
		return c.errorf("bottom 1 (sequence continuation) must be %dx%d, got %v", x[0], x[1], cont)
	}
	if static && (len(c.bottoms[2]) < 1 || c.bottoms[2][0] != x[1]) {
		return c.errorf("the static input's first axis must be the %d streams, got %v", x[1], c.bottoms[2])
	}
	c.tops[0] = Shape{x[0], x[1], h}
	for j := 1; j < len(c.tops); j++ {
		c.tops[j] = Shape{1, x[1], h}
	}
	return nil
}

func ruleLstmUnit(c *shapeCtx) error {
	if !c.known() {
		return nil
	}
	prev, x := c.bottoms[0], c.bottoms[1]
	if len(prev) != 3 || prev[0] != 1 {
		return c.errorf("bottom 0 (previous cell) must be 1xNxD, got %v", prev)
	}
	if len(x) != 3 || x[2] != 4*prev[2] {
		return c.errorf("bottom 1 (gate input) must be 1xNx%d, got %v", 4*prev[2], x)
	}
	c.tops[0] = prev.clone()
	c.tops[1] = prev.clone()
	return nil
}

// --- loss and accuracy layers ---

// ruleLoss gives a loss layer's scalar top and checks the batch sizes.
func ruleLoss(c *shapeCtx) error {
	c.tops[0] = Shape{}
	if !c.known() || len(c.bottoms) < 2 {
		return nil
	}
	a, b := c.bottoms[0], c.bottoms[1]
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		return c.errorf("inputs must have the same first (batch) dimension; got %v and %v", a, b)
	}
	return nil
}

func ruleEuclideanLoss(c *shapeCtx) error {
	if err := ruleLoss(c); err != nil || !c.known() {
		return err
	}
	a, b := c.bottoms[0], c.bottoms[1]
	if a.count(min(1, len(a)), len(a)) != b.count(min(1, len(b)), len(b)) {
		return c.errorf("inputs must have the same size per item; got %v and %v", a, b)
	}
	return nil
}

func ruleSigmoidCrossEntropy(c *shapeCtx) error {
	if err := ruleLoss(c); err != nil || !c.known() {
		return err
	}
	if c.bottoms[0].Count() != c.bottoms[1].Count() {
		return c.errorf("inputs must have the same count; got %v and %v", c.bottoms[0], c.bottoms[1])
	}
	return nil
}

// ruleCheckLabels checks that a label blob has one value per prediction along
// the class axis.
func ruleCheckLabels(c *shapeCtx, pred, labels Shape, axisParam int32) (int, error) {
	axis, err := c.axis(int(axisParam), len(pred), "axis")
	if err != nil {
		return 0, err
	}
	outer, inner := pred.count(0, axis), pred.count(axis+1, len(pred))
	if outer*inner != labels.Count() {
		return 0, c.errorf("the labels (%v, %d values) must number one per prediction: %d for predictions %v with classes on axis %d",
			labels, labels.Count(), outer*inner, pred, axis)
	}
	return axis, nil
}

func ruleSoftmaxWithLoss(c *shapeCtx) error {
	if err := ruleLoss(c); err != nil {
		return err
	}
	if !c.known() {
		return nil
	}
	if _, err := ruleCheckLabels(c, c.bottoms[0], c.bottoms[1], c.lp.GetSoftmaxParam().GetAxis()); err != nil {
		return err
	}
	if len(c.tops) > 1 {
		c.tops[1] = c.bottoms[0].clone()
	}
	return nil
}

func ruleAccuracy(c *shapeCtx) error {
	c.tops[0] = Shape{}
	if !c.known() {
		return nil
	}
	p := orEmpty(c.lp.GetAccuracyParam())
	pred := c.bottoms[0]
	axis, err := ruleCheckLabels(c, pred, c.bottoms[1], p.GetAxis())
	if err != nil {
		return err
	}
	if int(p.GetTopK()) > pred[axis] {
		return c.errorf("top_k %d is larger than the %d classes", p.GetTopK(), pred[axis])
	}
	if len(c.tops) > 1 {
		c.tops[1] = Shape{pred[axis]}
	}
	return nil
}

// orEmpty returns m, or an empty message when m is nil, so that rules can
// read a layer's parameter message's fields directly.
func orEmpty[T any](m *T) *T {
	if m == nil {
		return new(T)
	}
	return m
}
