package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Embed", Bottoms: Exactly(1), Tops: Exactly(1), New: newEmbed, Shape: ruleOf((*Embed).inferShapes)})
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

// inferShapes is Embed's shape rule: the top is the bottom's shape with
// num_output appended; the table is input_dim × num_output.
func (l *Embed) inferShapes(c *ShapeContext) error {
	c.Params = []Shape{{l.inputDim, l.numOutput}}
	if l.bias {
		c.Params = append(c.Params, Shape{l.numOutput})
	}
	if c.Known() {
		c.Tops[0] = append(c.Bottoms[0].clone(), l.numOutput)
	}
	return nil
}

// Setup creates the table (and bias).
func (l *Embed) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
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
