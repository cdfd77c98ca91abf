package caffe

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
)

// LoadNet reads a net definition and its trained weights for running on
// arrays: the one-line answer to "run my array through a Caffe model".
//
//	net, err := caffe.LoadNet("deploy.prototxt", "bvlc_alexnet.caffemodel")
//	out, err := net.Predict(x) // x: N×3×227×227; out["prob"]: N×1000
//
// model may be a deploy definition (Input layers or net-level inputs) or a
// train_val / train_test one: the net is built in the TEST phase, each
// data layer becomes an Input layer for its first top (the samples), and
// the layers that read its other tops (the labels: losses, accuracies) are
// left out, so the net's outputs are what it predicts (LeNet's ip2). A data
// layer's input shape, which its database would tell, is found from the
// weights: the channels and size for which every layer's weights fit
// (its crop_size fixes the size). The net's input shapes are only its
// starting point: Predict takes any batch size, and any sample size the
// net's layers accept.
//
// weights is a .caffemodel (any Caffe version), several separated by
// commas, or "" to keep the values the fillers give. Weights that miss a
// layer with parameters are an error naming it.
//
// The data layer's transform_param (scale, mean, crop) is kept with the
// net, for PredictWith to apply when asked; LoadNetPhase builds a
// definition as it is, data layers and all.
func LoadNet(model, weights string) (*Net, error) {
	np, err := LoadNetParameter(model)
	if err != nil {
		return nil, err
	}
	var models []*caffepb.NetParameter
	var files []string
	for _, w := range strings.Split(weights, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		m, err := ReadCaffemodel(w)
		if err != nil {
			return nil, err
		}
		models, files = append(models, m), append(files, w)
	}
	out, inputs, err := inferenceNet(np, models)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, model)
	}
	state := NetState{Phase: Test}
	dir := filepath.Dir(model)
	n, err := NewNet(out, NetOptions{State: &state, Dir: dir})
	if err != nil {
		return nil, err
	}
	n.inputs = inputs
	if len(models) == 0 {
		return n, nil
	}
	left := map[string]bool{}
	for i, m := range models {
		rep, err := n.CopyFrom(m)
		if err != nil {
			return nil, fmt.Errorf("%w (loading %s)", err, files[i])
		}
		if err := rep.Err(files[i]); err != nil {
			return nil, err
		}
		now := map[string]bool{}
		for _, k := range rep.Kept {
			if i == 0 || left[k] {
				now[k] = true
			}
		}
		left = now
	}
	if len(left) > 0 {
		names := make([]string, 0, len(left))
		for k := range left {
			names = append(names, k)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("caffe: %s has no weights for %s of %s; they would predict with the values their fillers give", weights, shortList(names), model)
	}
	return n, nil
}

// LoadNetPhase reads a net definition (.prototxt, any Caffe version) and
// builds it as it is for phase, with the level and stages the file's state
// gives, using all cores. Relative paths in the definition resolve against
// the file's folder, or against the working directory when that holds
// them.
func LoadNetPhase(path string, phase Phase) (*Net, error) {
	np, err := LoadNetParameter(path)
	if err != nil {
		return nil, err
	}
	state := NetStateOf(np)
	state.Phase = phase
	return NewNet(np, NetOptions{State: &state, Dir: filepath.Dir(path)})
}

// netInput is an input of a net LoadNet built: an Input layer's top and,
// when it replaced a data layer, that layer's transform.
type netInput struct {
	top       string
	layer     string
	transform *caffepb.TransformationParameter // nil for an Input layer of the definition
}

// inferenceNet turns a definition into the TEST-phase net that runs on
// arrays (see LoadNet), finding the shapes of the data layers it replaced
// from the weights in models.
func inferenceNet(np *caffepb.NetParameter, models []*caffepb.NetParameter) (*caffepb.NetParameter, []netInput, error) {
	state := NetStateOf(np)
	state.Phase = Test
	out := &caffepb.NetParameter{Name: np.Name, ForceBackward: np.ForceBackward, State: &caffepb.NetState{Phase: caffepb.Phase_TEST.Enum()}}
	var inputs []netInput
	var guessed []*caffepb.LayerParameter // Input layers whose shape is to be found
	labels := map[string]bool{}           // blobs that come from labels
	for _, src := range np.GetLayer() {
		if !state.Includes(src) {
			continue
		}
		l := proto.Clone(src).(*caffepb.LayerParameter)
		format.CopyLayerPos(src, l)
		l.Include, l.Exclude = nil, nil
		lt, err := layerTypeOf(l)
		if err != nil {
			return nil, nil, err
		}
		if lt.Data && len(l.Bottom) == 0 && len(l.Top) > 0 {
			for _, t := range l.Top[1:] {
				labels[t] = true
			}
			in := &caffepb.LayerParameter{Name: l.Name, Type: proto.String("Input"), Top: l.Top[:1], Phase: l.Phase}
			format.CopyLayerPos(src, in)
			batch, shape := dataLayerShape(l)
			if shape != nil {
				in.InputParam = &caffepb.InputParameter{Shape: []*caffepb.BlobShape{blobShape(shape)}}
			} else {
				crop := int64(l.GetTransformParam().GetCropSize())
				in.InputParam = &caffepb.InputParameter{Shape: []*caffepb.BlobShape{{Dim: []int64{int64(batch), 0, crop, crop}}}}
				guessed = append(guessed, in)
			}
			inputs = append(inputs, netInput{top: l.Top[0], layer: l.GetName(), transform: l.TransformParam})
			out.Layer = append(out.Layer, in)
			continue
		}
		fromLabels := false
		for _, b := range l.Bottom {
			fromLabels = fromLabels || labels[b]
		}
		if fromLabels {
			for _, t := range l.Top {
				labels[t] = true
			}
			continue
		}
		if l.GetType() == "Input" {
			for _, t := range l.Top {
				inputs = append(inputs, netInput{top: t, layer: l.GetName()})
			}
		}
		out.Layer = append(out.Layer, l)
	}
	if len(guessed) > 0 {
		if err := fitInputShapes(out, guessed, models); err != nil {
			return nil, nil, err
		}
	}
	return out, inputs, nil
}

// DataShapesFromWeights returns the shapes of the samples of the
// definition's TEST-phase data layers whose data source would tell them
// (N×C×H×W by the top they fill, N the layer's batch size), as LoadNet
// finds them: the channels and size for which every layer's weights in
// models fit. Data layers whose definition gives the shape (MemoryData)
// are included too.
func DataShapesFromWeights(np *caffepb.NetParameter, models ...*caffepb.NetParameter) (map[string][]int, error) {
	out, inputs, err := inferenceNet(np, models)
	if err != nil {
		return nil, err
	}
	shapes := map[string][]int{}
	for _, in := range inputs {
		if in.transform == nil && !isReplacedDataLayer(np, in.layer) {
			continue // an Input layer of the definition
		}
		for _, l := range out.Layer {
			if l.GetName() == in.layer && len(l.Top) > 0 && l.Top[0] == in.top && len(l.GetInputParam().GetShape()) > 0 {
				var shape []int
				for _, d := range l.GetInputParam().GetShape()[0].GetDim() {
					shape = append(shape, int(d))
				}
				shapes[in.top] = shape
			}
		}
	}
	return shapes, nil
}

// isReplacedDataLayer reports whether the layer named name in np is a
// data layer (one LoadNet turns into an Input layer).
func isReplacedDataLayer(np *caffepb.NetParameter, name string) bool {
	for _, l := range np.GetLayer() {
		if l.GetName() == name && l.GetType() != "Input" {
			return true
		}
	}
	return false
}

// dataLayerShape returns a data layer's batch size and, when its
// definition gives it (MemoryData), the shape of its first top.
func dataLayerShape(l *caffepb.LayerParameter) (batch int, shape []int) {
	switch {
	case l.DataParam != nil:
		batch = int(l.GetDataParam().GetBatchSize())
	case l.ImageDataParam != nil:
		batch = int(l.GetImageDataParam().GetBatchSize())
	case l.WindowDataParam != nil:
		batch = int(l.GetWindowDataParam().GetBatchSize())
	case l.Hdf5DataParam != nil:
		batch = int(l.GetHdf5DataParam().GetBatchSize())
	case l.MemoryDataParam != nil:
		p := l.GetMemoryDataParam()
		batch = int(p.GetBatchSize())
		if p.GetChannels() > 0 && p.GetHeight() > 0 && p.GetWidth() > 0 {
			shape = []int{max(batch, 1), int(p.GetChannels()), int(p.GetHeight()), int(p.GetWidth())}
		}
	}
	return max(batch, 1), shape
}

func blobShape(shape []int) *caffepb.BlobShape {
	dims := make([]int64, len(shape))
	for i, d := range shape {
		dims[i] = int64(d)
	}
	return &caffepb.BlobShape{Dim: dims}
}

// commonSizes are tried first when looking for a data layer's sample size:
// MNIST, CIFAR and the ImageNet crops.
var commonSizes = []int{28, 32, 224, 227, 299, 256, 64, 96, 112, 128}

// fitInputShapes sets the channels and size of the Input layers that
// replaced data layers (their shapes are batch×0×crop×crop, crop 0 when
// unknown) to the first C×S×S, for C and S from small to large (common
// sizes first), for which the net's shapes work out and every layer's
// weights in models fit. Without weights the first that works is taken.
func fitInputShapes(np *caffepb.NetParameter, guessed []*caffepb.LayerParameter, models []*caffepb.NetParameter) error {
	def, err := ProcessNet(np, NetState{Phase: Test})
	if err != nil {
		return err
	}
	blobs := map[string][]*caffepb.BlobProto{}
	for _, m := range models {
		for _, l := range m.GetLayer() {
			if _, dup := blobs[l.GetName()]; !dup && len(l.Blobs) > 0 {
				blobs[l.GetName()] = l.Blobs
			}
		}
	}
	fits := func(shapes *Shapes) bool {
		for i, l := range def.Layers {
			want, ok := blobs[l.Name]
			if !ok {
				continue
			}
			got := shapes.Layers[i].Params
			if len(got) != len(want) {
				return false
			}
			for k, p := range got {
				if !p.Known() || !format.ShapeEquals(want[k], p) {
					return false
				}
			}
		}
		return true
	}
	sizes := slices.Clone(commonSizes)
	for s := 1; s <= 512; s++ {
		if !slices.Contains(commonSizes, s) {
			sizes = append(sizes, s)
		}
	}
	for _, c := range []int{1, 3, 2, 4, 5, 6, 7, 8} {
		for _, s := range sizes {
			in := map[string][]int{}
			for _, l := range guessed {
				d := l.InputParam.Shape[0].Dim
				size := s
				if d[2] > 0 {
					size = int(d[2])
				}
				in[l.Top[0]] = []int{int(d[0]), c, size, size}
			}
			shapes, err := InferShapes(def, in)
			if err != nil || !fits(shapes) {
				continue
			}
			for _, l := range guessed {
				l.InputParam.Shape[0] = blobShape(in[l.Top[0]])
			}
			return nil
		}
	}
	var names []string
	for _, l := range guessed {
		names = append(names, l.GetName())
	}
	if len(models) > 0 {
		return fmt.Errorf("caffe: no input shape of up to 8 channels and 512×512 fits the weights for data layer %s; use a deploy definition that gives the input shape", strings.Join(names, ", "))
	}
	return fmt.Errorf("caffe: no input shape of up to 8 channels and 512×512 works for data layer %s; use a deploy definition that gives the input shape", strings.Join(names, ", "))
}

// PredictOptions configures PredictWith. The zero value feeds the array as
// it is and returns the net's outputs.
type PredictOptions struct {
	// Transform applies, to each sample first, the transform_param of the
	// data layer the net's input replaced (LoadNet keeps it): the mean
	// (mean_file or mean_value) subtracted, the values scaled, a centre
	// crop of crop_size. Mirroring is never applied. The samples are then
	// the raw ones the data layer read (pixel values 0 to 255, full size).
	Transform bool
	// Batch is how many samples go through the net at a time; 0 means the
	// batch size of the net's input.
	Batch int
	// Outputs names the blobs to return, such as a feature layer's
	// ("fc7"); nil returns the net's outputs (the blobs no layer reads).
	Outputs []string
}

// Predict runs x through the net, as PredictWith with the zero options:
// x is fed as it is, and the net's outputs come back.
func (n *Net) Predict(x *ndarray.Array) (map[string]*ndarray.Array, error) {
	return n.PredictWith(x, PredictOptions{})
}

// PredictWith runs the samples of x (N×C×H×W for an image net: the first
// axis counts samples, and a single sample without it is taken as N = 1)
// through the net's one input, o.Batch samples at a time, and returns the
// blobs o.Outputs names (the net's outputs by default), each with its
// first axis N: out["prob"] is N×1000 for AlexNet. The net's parameters
// are not changed; its input and the blobs after it take the shapes of the
// last batch.
func (n *Net) PredictWith(x *ndarray.Array, o PredictOptions) (map[string]*ndarray.Array, error) {
	if x == nil {
		return nil, fmt.Errorf("caffe: Predict: the input array is nil")
	}
	inputs := n.def.Inputs
	if len(inputs) != 1 {
		if len(inputs) == 0 {
			return nil, fmt.Errorf("caffe: Predict: net %q has no Input layer to feed; build it with LoadNet, which turns data layers into inputs", n.Name())
		}
		return nil, fmt.Errorf("caffe: Predict: net %q has %d inputs (%s); Predict feeds one", n.Name(), len(inputs), strings.Join(inputs, ", "))
	}
	name := inputs[0]
	blob := n.Blob(name)
	var transform *caffepb.TransformationParameter
	for _, in := range n.inputs {
		if in.top == name {
			transform = in.transform
		}
	}
	outputs := o.Outputs
	if outputs == nil {
		outputs = n.Outputs()
	}
	if len(outputs) == 0 {
		return nil, fmt.Errorf("caffe: Predict: net %q has no outputs (every blob is read by a layer); name the blobs to return in PredictOptions.Outputs", n.Name())
	}
	for _, out := range outputs {
		if n.Blob(out) == nil {
			return nil, fmt.Errorf("caffe: Predict: net %q has no blob %q%s; blobs: %s", n.Name(), out, format.DidYouMean(out, n.BlobNames()), strings.Join(n.BlobNames(), ", "))
		}
	}

	shape := x.Shape()
	rank := len(blob.Shape())
	switch {
	case rank == 0:
		return nil, fmt.Errorf("caffe: Predict: input %q of net %q has no shape", name, n.Name())
	case len(shape) == rank-1:
		shape = append([]int{1}, shape...)
	case len(shape) != rank:
		return nil, fmt.Errorf("caffe: Predict: the array is %v but input %q of net %q has %d axes (%s): give N samples as an array of %d axes",
			shape, name, n.Name(), rank, Shape(blob.Shape()), rank)
	}
	total, sample := shape[0], shape[1:]
	if total == 0 {
		return nil, fmt.Errorf("caffe: Predict: the array %v holds no samples", shape)
	}
	values := x.Contiguous().Data()

	// With the transform, each sample goes through the data layer's
	// transformer into the shape it produces.
	var tr *data.Transformer
	inSample := sample
	if o.Transform {
		if transform == nil {
			return nil, fmt.Errorf("caffe: Predict: input %q of net %q has no transform_param (it is not a data layer of the definition LoadNet read); feed preprocessed samples without Transform", name, n.Name())
		}
		if len(sample) != 3 {
			return nil, fmt.Errorf("caffe: Predict: the transform takes samples of C×H×W, not %v", sample)
		}
		t, err := DataTransform(transform, n.opts.Dir, Test, 0)
		if err != nil {
			return nil, fmt.Errorf("caffe: Predict: input %q: %w", name, err)
		}
		t.Mirror = false
		if tr, err = data.NewTransformer(t, sample[0], sample[1], sample[2]); err != nil {
			return nil, fmt.Errorf("caffe: Predict: input %q: %w", name, err)
		}
		c, h, w := tr.OutShape()
		sample = []int{c, h, w}
	}
	inSize, outSize := Shape(inSample).Count(), Shape(sample).Count()

	built := slices.Clone(blob.Shape())
	batch := o.Batch
	if batch <= 0 {
		batch = max(blob.Shape()[0], 1)
	}
	result := map[string]*ndarray.Array{}
	rows := map[string][]int{}
	for start := 0; start < total; start += batch {
		k := min(batch, total-start)
		if err := reshapeInput(blob, append([]int{k}, sample...)); err != nil {
			return nil, fmt.Errorf("caffe: Predict: input %q of net %q: %w", name, n.Name(), err)
		}
		dst := blob.DataSlice()
		for i := 0; i < k; i++ {
			src := values[(start+i)*inSize : (start+i+1)*inSize]
			if tr != nil {
				if err := tr.ApplyFloats(dst[i*outSize:(i+1)*outSize], src); err != nil {
					return nil, fmt.Errorf("caffe: Predict: %w", err)
				}
			} else {
				copy(dst[i*outSize:(i+1)*outSize], src)
			}
		}
		if _, err := n.Forward(); err != nil {
			if !slices.Equal(sample, built[1:]) {
				return nil, fmt.Errorf("%w (input %q of net %q took samples of %s; these are %s)", err, name, n.Name(), Shape(built[1:]), Shape(sample))
			}
			return nil, err
		}
		for _, out := range outputs {
			ob := n.Blob(out)
			s := ob.Shape()
			if len(s) == 0 || s[0] != k {
				return nil, fmt.Errorf("caffe: Predict: blob %q of net %q has shape %s for a batch of %d: it does not hold one row per sample", out, n.Name(), Shape(s), k)
			}
			if result[out] == nil {
				rows[out] = s[1:]
				result[out] = ndarray.New(append([]int{total}, s[1:]...)...)
			} else if !slices.Equal(rows[out], s[1:]) {
				return nil, fmt.Errorf("caffe: Predict: blob %q of net %q changed shape between batches (%v, then %v)", out, n.Name(), rows[out], s[1:])
			}
			row := Shape(s[1:]).Count()
			copy(result[out].Data()[start*row:(start+k)*row], ob.DataSlice())
		}
	}
	return result, nil
}

// reshapeInput gives an input blob a new shape, as an error rather than a
// panic when no blob may have it.
func reshapeInput(b *Blob, shape []int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if se, ok := r.(*shapeError); ok {
				err = fmt.Errorf("%s", se.msg)
				return
			}
			panic(r)
		}
	}()
	b.Reshape(shape...)
	return nil
}
