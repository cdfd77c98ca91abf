package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Deconvolution", Bottoms: AtLeast(1), Tops: AtLeast(1), New: newDeconvolution,
		Shape: ruleOf(func(l *Deconvolution, c *ShapeContext) error { return l.convSpec.inferShapes(c, convTransposed) })})
}

// Deconvolution is Caffe's transposed convolution (convolution_param, as
// Convolution; 2-D, channel axis 1): its forward pass is a convolution's
// backward pass to the data, so an H×W input becomes
// stride·(H−1) + dilation·(kernel−1) + 1 − 2·pad rows (and columns). The
// weights are C_in × num_output/group × kh × kw, as Caffe stores them
// (FCNs fill them with the bilinear filler to upsample). Each bottom has
// its top; all share the weights.
type Deconvolution struct {
	layerBase
	convSpec
	channels             int
	inH, inW, outH, outW int
	col                  []float32
}

var _ Layer = (*Deconvolution)(nil)

func newDeconvolution(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	spec, err := newConvSpec(def, true)
	if err != nil {
		return nil, err
	}
	if spec.axisParam != 1 {
		return nil, fmt.Errorf("convolution_param.axis = %d: Deconvolution supports the channel axis 1 only", spec.axisParam)
	}
	return &Deconvolution{layerBase: newLayerBase("Deconvolution", def, env), convSpec: spec}, nil
}

// Setup checks the bottoms and creates and fills the weights and bias.
func (l *Deconvolution) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if len(bottom) != len(top) {
		return l.errorf("takes one top per bottom, got %d bottoms and %d tops", len(bottom), len(top))
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	if err := l.setup2D(bottom[0].NumAxes(), 1); err != nil {
		return l.errorf("input of shape %v: %w", bottom[0].shape, err)
	}
	l.channels = bottom[0].Dim(1)
	if l.channels%l.group != 0 {
		return l.errorf("%d input channels is not a multiple of group %d", l.channels, l.group)
	}
	shapes := [][]int{{l.channels, l.numOutput / l.group, l.kh, l.kw}}
	if l.bias {
		shapes = append(shapes, []int{l.numOutput})
	}
	p := orDefaults(l.def.GetConvolutionParam())
	if err := l.initWeightsBias(shapes, p.GetWeightFiller(), p.GetBiasFiller()); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape computes the output size and shapes the tops.
func (l *Deconvolution) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if b.NumAxes() != 4 || b.Dim(1) != l.channels {
		return l.errorf("input of shape %v: want N×%d×H×W", b.Shape(), l.channels)
	}
	for i, o := range bottom[1:] {
		if !sameShape(o, b) {
			return l.errorf("bottom %d has shape %v, bottom 0 %v; all must match", i+1, o.Shape(), b.Shape())
		}
	}
	l.inH, l.inW = b.Dim(2), b.Dim(3)
	l.outH = deconvOutSize(l.inH, l.kh, l.padH, l.strideH, l.dilH)
	l.outW = deconvOutSize(l.inW, l.kw, l.padW, l.strideW, l.dilW)
	if l.outH <= 0 || l.outW <= 0 {
		return l.errorf("input %d×%d gives an empty %d×%d output", l.inH, l.inW, l.outH, l.outW)
	}
	for _, t := range top {
		t.Reshape(b.Dim(0), l.numOutput, l.outH, l.outW)
	}
	l.col = growFloats(l.col, l.numOutput*l.kh*l.kw*l.inH*l.inW)
	return nil
}

// sizes returns the per-group sizes: bottom channels, column rows, and
// the values of one input and one output plane.
func (l *Deconvolution) sizes() (cg, k, inHW, outHW int) {
	return l.channels / l.group, l.numOutput / l.group * l.kh * l.kw, l.inH * l.inW, l.outH * l.outW
}

// Forward scatters every input value through the kernel into the output
// (col = Wᵀ·x per group, then col2im), then adds the bias.
func (l *Deconvolution) Forward(bottom, top []*Blob) error {
	cg, k, inHW, outHW := l.sizes()
	w := l.blobs[0].DataSlice()
	for i, b := range bottom {
		x, y := b.DataSlice(), top[i].DataSlice()
		for n := 0; n < b.Dim(0); n++ {
			xn := x[n*l.channels*inHW : (n+1)*l.channels*inHW]
			yn := y[n*l.numOutput*outHW : (n+1)*l.numOutput*outHW]
			for g := 0; g < l.group; g++ {
				kernel.Sgemm(true, false, k, inHW, cg, 1, w[g*cg*k:], k, xn[g*cg*inHW:], inHW, 0, l.col[g*k*inHW:], inHW)
			}
			kernel.Col2im(l.col, l.numOutput, l.outH, l.outW, l.kh, l.kw, l.padH, l.padW, l.strideH, l.strideW, l.dilH, l.dilW, yn)
			if l.bias {
				bias := l.blobs[1].DataSlice()
				for o := 0; o < l.numOutput; o++ {
					plane := yn[o*outHW : (o+1)*outHW]
					for j := range plane {
						plane[j] += bias[o]
					}
				}
			}
		}
	}
	return nil
}

// Backward computes the gradients: the bias sums the output gradient per
// channel; with col = im2col(dy), the weights accumulate x·colᵀ and the
// input gets W·col per group (a convolution of dy).
func (l *Deconvolution) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	cg, k, inHW, outHW := l.sizes()
	w := l.blobs[0].DataSlice()
	for i, b := range bottom {
		dy := top[i].DiffSlice()
		down := i < len(propagateDown) && propagateDown[i]
		for n := 0; n < b.Dim(0); n++ {
			dyn := dy[n*l.numOutput*outHW : (n+1)*l.numOutput*outHW]
			if l.bias && l.paramGrad(1) {
				db := l.blobs[1].DiffSlice()
				for o := 0; o < l.numOutput; o++ {
					var s float32
					for _, v := range dyn[o*outHW : (o+1)*outHW] {
						s += v
					}
					db[o] += s
				}
			}
			if !down && !l.paramGrad(0) {
				continue
			}
			kernel.Im2col(dyn, l.numOutput, l.outH, l.outW, l.kh, l.kw, l.padH, l.padW, l.strideH, l.strideW, l.dilH, l.dilW, l.col)
			xn := b.DataSlice()[n*l.channels*inHW:]
			for g := 0; g < l.group; g++ {
				colg := l.col[g*k*inHW:]
				if l.paramGrad(0) {
					kernel.Sgemm(false, true, cg, k, inHW, 1, xn[g*cg*inHW:], inHW, colg, inHW, 1, l.blobs[0].DiffSlice()[g*cg*k:], k)
				}
				if down {
					dx := b.DiffSlice()[n*l.channels*inHW:]
					kernel.Sgemm(false, false, cg, inHW, k, 1, w[g*cg*k:], k, colg, inHW, 0, dx[g*cg*inHW:], inHW)
				}
			}
		}
	}
}
