package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// convSpec is a layer's convolution_param, read and checked: the settings
// Convolution, Deconvolution and Im2col share. Kernel, stride, padding
// and dilation are kept as given, for any number of spatial axes, and
// expanded for an input's by geometry (the shape rules use it for any
// number of axes); the layers run 2-D convolutions, whose settings setup2D
// takes from it.
type convSpec struct {
	numOutput, group int
	bias             bool
	axisParam        int
	kernel, stride   convSetting
	pad, dilation    convSetting

	// The 2-D settings, set by setup2D.
	kh, kw           int
	padH, padW       int
	strideH, strideW int
	dilH, dilW       int
}

// convSetting is one of kernel, stride, pad and dilation as given: the
// repeated field (once for all spatial axes or once per axis), or the
// _h/_w pair of 2-D convolutions.
type convSetting struct {
	name     string // "kernel", "stride", ...
	listName string // the repeated field: "kernel_size", "stride", ...
	list     []uint32
	h, w     *uint32
	def      int  // when absent
	nonZero  bool // zero is refused
}

// newConvSpec reads and checks convolution_param as Caffe does; a layer
// that ignores num_output (Im2col) passes needOutput false.
func newConvSpec(def *caffepb.LayerParameter, needOutput bool) (convSpec, error) {
	p := orDefaults(def.GetConvolutionParam())
	c := convSpec{
		numOutput: int(p.GetNumOutput()),
		group:     int(p.GetGroup()),
		bias:      p.GetBiasTerm(),
		axisParam: int(p.GetAxis()),
		kernel:    convSetting{name: "kernel", listName: "kernel_size", list: p.GetKernelSize(), h: p.KernelH, w: p.KernelW, nonZero: true},
		stride:    convSetting{name: "stride", listName: "stride", list: p.GetStride(), h: p.StrideH, w: p.StrideW, def: 1, nonZero: true},
		pad:       convSetting{name: "pad", listName: "pad", list: p.GetPad(), h: p.PadH, w: p.PadW},
		dilation:  convSetting{name: "dilation", listName: "dilation", list: p.GetDilation(), def: 1, nonZero: true},
	}
	if needOutput {
		if c.numOutput <= 0 {
			return c, fmt.Errorf("convolution_param.num_output must be > 0")
		}
		if c.group <= 0 {
			return c, fmt.Errorf("convolution_param.group must be > 0, got %d", c.group)
		}
		if c.numOutput%c.group != 0 {
			return c, fmt.Errorf("num_output %d is not a multiple of group %d", c.numOutput, c.group)
		}
	}
	for _, s := range []convSetting{c.kernel, c.stride, c.pad, c.dilation} {
		if err := s.check(); err != nil {
			return c, err
		}
	}
	if err := CheckFiller(p.GetWeightFiller()); err != nil {
		return c, fmt.Errorf("weight_filler: %w", err)
	}
	if err := CheckFiller(p.GetBiasFiller()); err != nil {
		return c, fmt.Errorf("bias_filler: %w", err)
	}
	return c, nil
}

// check checks what does not depend on the number of spatial axes.
func (s convSetting) check() error {
	if s.h != nil || s.w != nil {
		if len(s.list) != 0 {
			return fmt.Errorf("give %s or %s_h/%s_w, not both", s.listName, s.name, s.name)
		}
		if s.h == nil || s.w == nil {
			return fmt.Errorf("%s_h and %s_w must be given together", s.name, s.name)
		}
		if s.nonZero && (*s.h == 0 || *s.w == 0) {
			return fmt.Errorf("%s_h and %s_w must be non-zero, got %d and %d", s.name, s.name, *s.h, *s.w)
		}
		return nil
	}
	if s.name == "kernel" && len(s.list) == 0 {
		return fmt.Errorf("convolution_param needs kernel_size (or kernel_h and kernel_w)")
	}
	for _, v := range s.list {
		if s.nonZero && v == 0 {
			return fmt.Errorf("%s must be non-zero, got %v", s.listName, s.list)
		}
	}
	return nil
}

// expand returns the setting for each of n spatial axes.
func (s convSetting) expand(n int) ([]int, error) {
	out := make([]int, n)
	if s.h != nil {
		if n != 2 {
			return nil, fmt.Errorf("%s_h and %s_w work for 2-D convolution only; this one has %d spatial axes", s.name, s.name, n)
		}
		out[0], out[1] = int(*s.h), int(*s.w)
		return out, nil
	}
	switch len(s.list) {
	case 0:
		for i := range out {
			out[i] = s.def
		}
	case 1:
		for i := range out {
			out[i] = int(s.list[0])
		}
	case n:
		for i, v := range s.list {
			out[i] = int(v)
		}
	default:
		return nil, fmt.Errorf("%s must be given once or once per spatial axis (%d), not %d times", s.listName, n, len(s.list))
	}
	return out, nil
}

// convGeometry is kernel, stride, pad and dilation per spatial axis.
type convGeometry struct{ kernel, stride, pad, dilation []int }

// geometry expands the settings for n spatial axes.
func (c *convSpec) geometry(n int) (g convGeometry, err error) {
	if g.kernel, err = c.kernel.expand(n); err != nil {
		return g, err
	}
	if g.stride, err = c.stride.expand(n); err != nil {
		return g, err
	}
	if g.pad, err = c.pad.expand(n); err != nil {
		return g, err
	}
	g.dilation, err = c.dilation.expand(n)
	return g, err
}

// setup2D takes the 2-D settings for an input of the given number of axes
// whose channels are on the given axis, refusing other than 2 spatial
// axes.
func (c *convSpec) setup2D(axes, axis int) error {
	if n := axes - axis - 1; n != 2 {
		return fmt.Errorf("input has %d spatial axes after channel axis %d; only 2-D convolution is supported", n, axis)
	}
	g, err := c.geometry(2)
	if err != nil {
		return err
	}
	c.kh, c.kw = g.kernel[0], g.kernel[1]
	c.strideH, c.strideW = g.stride[0], g.stride[1]
	c.padH, c.padW = g.pad[0], g.pad[1]
	c.dilH, c.dilW = g.dilation[0], g.dilation[1]
	return nil
}

// deconvOutSize is the extent of a transposed convolution's output along
// one axis.
func deconvOutSize(in, kernel, pad, stride, dilation int) int {
	return stride*(in-1) + dilation*(kernel-1) + 1 - 2*pad
}

// convKind tells the layers sharing convSpec apart in the shape rule.
type convKind int

const (
	convForward    convKind = iota // Convolution
	convTransposed                 // Deconvolution
	convColumns                    // Im2col
)

// inferShapes is the shape rule of Convolution, Deconvolution and Im2col,
// for any number of spatial axes: every top has the output shape (and all
// bottoms must have one shape); the weights and the bias follow
// num_output, group and the kernel.
func (c *convSpec) inferShapes(sc *ShapeContext, kind convKind) error {
	if kind != convColumns && len(sc.Tops) != len(sc.Bottoms) {
		return sc.Errorf("needs one top per bottom, has %d bottoms and %d tops", len(sc.Bottoms), len(sc.Tops))
	}
	if kind != convColumns {
		sc.Params = []Shape{nil}
		if c.bias {
			sc.Params = append(sc.Params, Shape{c.numOutput})
		}
	}
	if !sc.Known() {
		return nil
	}
	b := sc.Bottoms[0]
	for j, other := range sc.Bottoms[1:] {
		if !other.equal(b) {
			return sc.Errorf("all bottoms must have the same shape; bottom 0 is %v, bottom %d is %v", b, j+1, other)
		}
	}
	axis, err := sc.Axis(c.axisParam, len(b), "convolution_param.axis")
	if err != nil {
		return err
	}
	n := len(b) - axis - 1
	g, err := c.geometry(n)
	if err != nil {
		return sc.Errorf("%w", err)
	}
	channels := b[axis]
	top := append(Shape{}, b[:axis]...)
	switch kind {
	case convColumns:
		cols := channels
		for _, k := range g.kernel {
			cols *= k
		}
		top = append(top, cols)
	default:
		if channels%c.group != 0 {
			return sc.Errorf("input channels %d are not a multiple of group %d", channels, c.group)
		}
		w := Shape{c.numOutput, channels / c.group}
		if kind == convTransposed {
			w = Shape{channels, c.numOutput / c.group}
		}
		sc.Params[0] = append(w, g.kernel...)
		top = append(top, c.numOutput)
	}
	for i := range n {
		in := b[axis+1+i]
		var out int
		if kind == convTransposed {
			out = deconvOutSize(in, g.kernel[i], g.pad[i], g.stride[i], g.dilation[i])
		} else {
			out = kernel.ConvOutSize(in, g.kernel[i], g.pad[i], g.stride[i], g.dilation[i])
		}
		if out < 1 {
			return sc.Errorf("spatial axis %d: input %d with kernel %d, stride %d, pad %d, dilation %d gives output size %d",
				i, in, g.kernel[i], g.stride[i], g.pad[i], g.dilation[i], out)
		}
		top = append(top, out)
	}
	for j := range sc.Tops {
		sc.Tops[j] = top.clone()
	}
	return nil
}
