package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	registerComputed("MVN", newMVN)
	registerComputed("Embed", newEmbed)
	registerComputed("Parameter", newParameter)
}

// MVN normalizes each channel of each sample (or each sample, with
// mvn_param.across_channels) to mean 0 and, with normalize_variance (the
// default), to unit variance: y = (x − mean) / (std + eps), eps 1e−9.
type MVN struct {
	neuronNotInPlace
	variance bool
	across   bool
	eps      float32
	groups   int       // normalized groups
	size     int       // values per group
	std      []float32 // per group, plus eps
}

func newMVN(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetMvnParam()
	return &MVN{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("MVN", def, env)}},
		variance: p.GetNormalizeVariance(), across: p.GetAcrossChannels(), eps: p.GetEps()}, nil
}

// Setup checks the blobs and sizes the groups.
func (l *MVN) Setup(bottom, top []*Blob) error {
	if err := l.neuronNotInPlace.Setup(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape sizes the groups.
func (l *MVN) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if b.NumAxes() < 2 {
		return l.errorf("needs a bottom of at least 2 axes, got %v", b.Shape())
	}
	l.groups = b.Dim(0)
	if !l.across {
		l.groups *= b.Dim(1)
	}
	l.size = b.Count() / max(1, l.groups)
	l.std = growFloats(l.std, l.groups)
	return l.neuron.Reshape(bottom, top)
}

// Forward normalizes.
func (l *MVN) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	for g := 0; g < l.groups; g++ {
		xs, ys := x[g*l.size:(g+1)*l.size], y[g*l.size:(g+1)*l.size]
		var mean float64
		for _, v := range xs {
			mean += float64(v)
		}
		mean /= float64(max(1, l.size))
		var ss float64
		for i, v := range xs {
			d := float64(v) - mean
			ys[i] = float32(d)
			ss += d * d
		}
		if !l.variance {
			continue
		}
		std := float32(math.Sqrt(ss/float64(max(1, l.size)))) + l.eps
		l.std[g] = std
		for i := range ys {
			ys[i] /= std
		}
	}
	return nil
}

// Backward: dx = dy − mean(dy), and with the variance normalized
// dx = (dy − mean(dy) − y·mean(dy·y)) / (std + eps).
func (l *MVN) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	n := float64(max(1, l.size))
	for g := 0; g < l.groups; g++ {
		lo, hi := g*l.size, (g+1)*l.size
		var mdy, mdyy float64
		for i := lo; i < hi; i++ {
			mdy += float64(dy[i])
			mdyy += float64(dy[i]) * float64(y[i])
		}
		mdy /= n
		mdyy /= n
		for i := lo; i < hi; i++ {
			if l.variance {
				dx[i] = float32((float64(dy[i]) - mdy - float64(y[i])*mdyy) / float64(l.std[g]))
			} else {
				dx[i] = dy[i] - float32(mdy)
			}
		}
	}
}

// Embed looks up rows of a learned input_dim × num_output table: each
// bottom value is an index in [0, input_dim), and the top has the
// bottom's shape with num_output appended (embed_param; bias_term adds a
// learned bias). The indices get no gradient, as in Caffe.
type Embed struct {
	layerBase
	numOutput, inputDim int
	bias                bool
}

var _ Layer = (*Embed)(nil)

func newEmbed(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetEmbedParam()
	if p.GetNumOutput() == 0 || p.GetInputDim() == 0 {
		return nil, fmt.Errorf("embed_param needs num_output and input_dim > 0")
	}
	for _, f := range []*caffepb.FillerParameter{p.GetWeightFiller(), p.GetBiasFiller()} {
		if err := CheckFiller(f); err != nil {
			return nil, fmt.Errorf("embed_param: %w", err)
		}
	}
	return &Embed{layerBase: newLayerBase("Embed", def, env), numOutput: int(p.GetNumOutput()), inputDim: int(p.GetInputDim()), bias: p.GetBiasTerm()}, nil
}

// Setup creates the table (and bias).
func (l *Embed) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	p := l.def.GetEmbedParam()
	shapes := [][]int{{l.inputDim, l.numOutput}}
	fillers := []*caffepb.FillerParameter{p.GetWeightFiller()}
	if l.bias {
		shapes = append(shapes, []int{l.numOutput})
		fillers = append(fillers, p.GetBiasFiller())
	}
	rng := l.fillRNG()
	if err := l.initParams(shapes, func(i int, b *Blob) error { return FillBlob(b, fillers[i], rng) }); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape appends num_output to the bottom's shape.
func (l *Embed) Reshape(bottom, top []*Blob) error {
	top[0].Reshape(append(bottom[0].Shape(), l.numOutput)...)
	return nil
}

// index returns bottom value i as a row of the table.
func (l *Embed) index(v float32, i int) (int, error) {
	k := int(v)
	if float32(k) != v || k < 0 || k >= l.inputDim {
		return 0, l.errorf("value %g at %d is not an index in [0, %d)", v, i, l.inputDim)
	}
	return k, nil
}

// Forward copies the rows.
func (l *Embed) Forward(bottom, top []*Blob) error {
	w, y := l.blobs[0].DataSlice(), top[0].DataSlice()
	for i, v := range bottom[0].DataSlice() {
		k, err := l.index(v, i)
		if err != nil {
			return err
		}
		row := y[i*l.numOutput : (i+1)*l.numOutput]
		copy(row, w[k*l.numOutput:(k+1)*l.numOutput])
		if l.bias {
			for j, b := range l.blobs[1].DataSlice() {
				row[j] += b
			}
		}
	}
	return nil
}

// Backward adds each output row's gradient to its table row (and bias).
func (l *Embed) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	dy := top[0].DiffSlice()
	for i, v := range bottom[0].DataSlice() {
		k, err := l.index(v, i)
		if err != nil {
			continue // Forward has reported it
		}
		g := dy[i*l.numOutput : (i+1)*l.numOutput]
		if l.paramGrad(0) {
			dw := l.blobs[0].DiffSlice()[k*l.numOutput : (k+1)*l.numOutput]
			for j, d := range g {
				dw[j] += d
			}
		}
		if l.bias && l.paramGrad(1) {
			db := l.blobs[1].DiffSlice()
			for j, d := range g {
				db[j] += d
			}
		}
	}
}

// Parameter outputs a learned blob of parameter_param.shape, for nets that
// use a parameter as a bottom elsewhere. Its gradient is the top's.
type Parameter struct{ layerBase }

var _ Layer = (*Parameter)(nil)

func newParameter(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Parameter{newLayerBase("Parameter", def, env)}, nil
}

// Setup creates the blob (zero-filled, as Caffe leaves it to be loaded).
func (l *Parameter) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 0, 0, 1, 1); err != nil {
		return err
	}
	var shape []int
	for _, d := range l.def.GetParameterParam().GetShape().GetDim() {
		shape = append(shape, int(d))
	}
	if err := l.initParams([][]int{shape}, func(int, *Blob) error { return nil }); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape gives the top the blob's shape.
func (l *Parameter) Reshape(bottom, top []*Blob) error {
	top[0].ReshapeLike(l.blobs[0])
	return nil
}

// Forward copies the blob.
func (l *Parameter) Forward(bottom, top []*Blob) error {
	copy(top[0].DataSlice(), l.blobs[0].DataSlice())
	return nil
}

// Backward adds the top's gradient to the blob's.
func (l *Parameter) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !l.paramGrad(0) {
		return
	}
	d := l.blobs[0].DiffSlice()
	for i, v := range top[0].DiffSlice() {
		d[i] += v
	}
}
