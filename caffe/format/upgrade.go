package format

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// NetNeedsUpgrade reports whether np uses a legacy form that
// UpgradeNetParameter rewrites: V0 or V1 layers, data-layer transform
// fields, net-level inputs, or BatchNorm layers with three param entries.
func NetNeedsUpgrade(np *caffepb.NetParameter) bool {
	return netNeedsV0ToV1(np) || netNeedsDataUpgrade(np) || len(np.GetLayers()) > 0 ||
		len(np.GetInput()) > 0 || netNeedsBatchNormUpgrade(np)
}

// UpgradeNetParameter rewrites a legacy net definition in place into the
// current format, in Caffe's order: V0 layers to V1 (folding "padding"
// layers into the next convolution or pooling), deprecated data-layer
// transform fields into transform_param, V1 layers to current layers
// (blobs_lr/weight_decay/param/blob_share_mode into ParamSpecs), net-level
// input/input_shape/input_dim into an Input layer placed first, and
// BatchNorm layers with three param entries get lr_mult and decay_mult 0.
// A current-format net is left untouched (apart from the last two rules),
// so binary files stay byte-identical when read and written back.
//
// Settings Caffe drops with a warning while upgrading (a V0 field that the
// layer's type does not use) are dropped here too; definitions Caffe
// refuses (both layer and layers, inputs without enough dimensions) are
// errors.
func UpgradeNetParameter(np *caffepb.NetParameter) error {
	if netNeedsV0ToV1(np) {
		if err := upgradeV0Net(np); err != nil {
			return err
		}
	}
	if netNeedsDataUpgrade(np) {
		upgradeDataTransform(np)
	}
	if len(np.GetLayers()) > 0 {
		if err := upgradeV1Net(np); err != nil {
			return err
		}
	}
	if len(np.GetInput()) > 0 {
		if err := upgradeNetInput(np); err != nil {
			return err
		}
	}
	if netNeedsBatchNormUpgrade(np) {
		upgradeBatchNorm(np)
	}
	return nil
}

func netNeedsV0ToV1(np *caffepb.NetParameter) bool {
	for _, l := range np.GetLayers() {
		if l.Layer != nil {
			return true
		}
	}
	return false
}

// V0 type strings and the V1 enum they map to; others map to NONE.
var v0LayerTypes = map[string]caffepb.V1LayerParameter_LayerType{
	"accuracy":                  caffepb.V1LayerParameter_ACCURACY,
	"bnll":                      caffepb.V1LayerParameter_BNLL,
	"concat":                    caffepb.V1LayerParameter_CONCAT,
	"conv":                      caffepb.V1LayerParameter_CONVOLUTION,
	"data":                      caffepb.V1LayerParameter_DATA,
	"dropout":                   caffepb.V1LayerParameter_DROPOUT,
	"euclidean_loss":            caffepb.V1LayerParameter_EUCLIDEAN_LOSS,
	"flatten":                   caffepb.V1LayerParameter_FLATTEN,
	"hdf5_data":                 caffepb.V1LayerParameter_HDF5_DATA,
	"hdf5_output":               caffepb.V1LayerParameter_HDF5_OUTPUT,
	"im2col":                    caffepb.V1LayerParameter_IM2COL,
	"images":                    caffepb.V1LayerParameter_IMAGE_DATA,
	"infogain_loss":             caffepb.V1LayerParameter_INFOGAIN_LOSS,
	"innerproduct":              caffepb.V1LayerParameter_INNER_PRODUCT,
	"lrn":                       caffepb.V1LayerParameter_LRN,
	"multinomial_logistic_loss": caffepb.V1LayerParameter_MULTINOMIAL_LOGISTIC_LOSS,
	"pool":                      caffepb.V1LayerParameter_POOLING,
	"relu":                      caffepb.V1LayerParameter_RELU,
	"sigmoid":                   caffepb.V1LayerParameter_SIGMOID,
	"softmax":                   caffepb.V1LayerParameter_SOFTMAX,
	"softmax_loss":              caffepb.V1LayerParameter_SOFTMAX_LOSS,
	"split":                     caffepb.V1LayerParameter_SPLIT,
	"tanh":                      caffepb.V1LayerParameter_TANH,
	"window_data":               caffepb.V1LayerParameter_WINDOW_DATA,
}

func upgradeV0Net(np *caffepb.NetParameter) error {
	padded, err := foldV0Padding(np)
	if err != nil {
		return err
	}
	out := &caffepb.NetParameter{Name: np.Name}
	for _, l := range padded {
		out.Layers = append(out.Layers, upgradeV0Layer(l))
	}
	// Moved, not merged: a merge would copy the layers and lose where
	// each was defined.
	out.Input = np.Input
	out.InputDim = np.InputDim
	out.ForceBackward = np.ForceBackward
	*np = caffepb.NetParameter{Name: out.Name, Layers: out.Layers, Input: out.Input, InputDim: out.InputDim, ForceBackward: out.ForceBackward}
	return nil
}

// legacyLayerError builds an error about a legacy layer met while
// upgrading, naming the file and line where it was defined when known, else
// its index in the net.
func legacyLayerError(l *caffepb.V1LayerParameter, index int, name, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if src, ok := lookupSource(l); ok && src.layer.IsValid() {
		return &ParseError{Pos: src.layer, Msg: fmt.Sprintf("layer %q: %s", name, msg)}
	}
	return fmt.Errorf("caffe: layer %d (%q): %s", index, name, msg)
}

// foldV0Padding drops V0 "padding" layers, moving their pad into the
// convolution or pooling layer that reads their output.
func foldV0Padding(np *caffepb.NetParameter) ([]*caffepb.V1LayerParameter, error) {
	lastTop := map[string]int{}
	for _, in := range np.Input {
		lastTop[in] = -1
	}
	var kept []*caffepb.V1LayerParameter
	for i, l := range np.Layers {
		v0 := l.GetLayer()
		if v0.GetType() != "padding" {
			c := proto.Clone(l).(*caffepb.V1LayerParameter)
			if src, ok := lookupSource(l); ok {
				rememberSource(c, src)
			}
			kept = append(kept, c)
		}
		for j, blob := range l.Bottom {
			src, ok := lastTop[blob]
			if !ok {
				return nil, legacyLayerError(l, i, v0.GetName(), "upgrading a V0 net: unknown bottom blob %q", blob)
			}
			if src < 0 {
				continue
			}
			pad := np.Layers[src]
			if pad.GetLayer().GetType() != "padding" {
				continue
			}
			switch {
			case v0.GetType() != "conv" && v0.GetType() != "pool":
				return nil, legacyLayerError(l, i, v0.GetName(), "upgrading a V0 net: it reads padding layer %q but has type %q; only conv and pool layers can absorb padding",
					pad.GetLayer().GetName(), v0.GetType())
			case len(l.Bottom) != 1:
				return nil, legacyLayerError(l, i, v0.GetName(), "upgrading a V0 net: it reads a padding layer but has %d bottoms, not 1", len(l.Bottom))
			case len(pad.Bottom) != 1 || len(pad.Top) != 1:
				return nil, legacyLayerError(pad, src, pad.GetLayer().GetName(), "upgrading a V0 net: a padding layer must have one bottom and one top")
			}
			last := kept[len(kept)-1]
			last.Layer.Pad = proto.Uint32(pad.GetLayer().GetPad())
			last.Bottom[j] = pad.Bottom[0]
		}
		for _, blob := range l.Top {
			lastTop[blob] = i
		}
	}
	return kept, nil
}

// upgradeV0Layer converts one V0 layer (wrapped in a V1 layer) to V1.
// Fields the layer's type does not use are dropped, as in Caffe.
func upgradeV0Layer(in *caffepb.V1LayerParameter) *caffepb.V1LayerParameter {
	out := &caffepb.V1LayerParameter{Bottom: in.Bottom, Top: in.Top}
	v0 := in.Layer
	if v0 == nil {
		return out
	}
	out.Name = v0.Name
	typ := v0.GetType()
	if v0.Type != nil {
		out.Type = v0LayerTypes[typ].Enum()
	}
	out.Blobs = v0.Blobs
	out.BlobsLr = v0.BlobsLr
	out.WeightDecay = v0.WeightDecay

	conv := func() *caffepb.ConvolutionParameter {
		if out.ConvolutionParam == nil {
			out.ConvolutionParam = &caffepb.ConvolutionParameter{}
		}
		return out.ConvolutionParam
	}
	ip := func() *caffepb.InnerProductParameter {
		if out.InnerProductParam == nil {
			out.InnerProductParam = &caffepb.InnerProductParameter{}
		}
		return out.InnerProductParam
	}
	pool := func() *caffepb.PoolingParameter {
		if out.PoolingParam == nil {
			out.PoolingParam = &caffepb.PoolingParameter{}
		}
		return out.PoolingParam
	}
	lrn := func() *caffepb.LRNParameter {
		if out.LrnParam == nil {
			out.LrnParam = &caffepb.LRNParameter{}
		}
		return out.LrnParam
	}
	data := func() *caffepb.DataParameter {
		if out.DataParam == nil {
			out.DataParam = &caffepb.DataParameter{}
		}
		return out.DataParam
	}
	hdf5 := func() *caffepb.HDF5DataParameter {
		if out.Hdf5DataParam == nil {
			out.Hdf5DataParam = &caffepb.HDF5DataParameter{}
		}
		return out.Hdf5DataParam
	}
	images := func() *caffepb.ImageDataParameter {
		if out.ImageDataParam == nil {
			out.ImageDataParam = &caffepb.ImageDataParameter{}
		}
		return out.ImageDataParam
	}
	window := func() *caffepb.WindowDataParameter {
		if out.WindowDataParam == nil {
			out.WindowDataParam = &caffepb.WindowDataParameter{}
		}
		return out.WindowDataParam
	}
	transform := func() *caffepb.TransformationParameter {
		if out.TransformParam == nil {
			out.TransformParam = &caffepb.TransformationParameter{}
		}
		return out.TransformParam
	}

	if v0.NumOutput != nil {
		switch typ {
		case "conv":
			conv().NumOutput = v0.NumOutput
		case "innerproduct":
			ip().NumOutput = v0.NumOutput
		}
	}
	if v0.Biasterm != nil {
		switch typ {
		case "conv":
			conv().BiasTerm = v0.Biasterm
		case "innerproduct":
			ip().BiasTerm = v0.Biasterm
		}
	}
	if v0.WeightFiller != nil {
		switch typ {
		case "conv":
			conv().WeightFiller = v0.WeightFiller
		case "innerproduct":
			ip().WeightFiller = v0.WeightFiller
		}
	}
	if v0.BiasFiller != nil {
		switch typ {
		case "conv":
			conv().BiasFiller = v0.BiasFiller
		case "innerproduct":
			ip().BiasFiller = v0.BiasFiller
		}
	}
	if v0.Pad != nil {
		switch typ {
		case "conv":
			conv().Pad = append(conv().Pad, v0.GetPad())
		case "pool":
			pool().Pad = v0.Pad
		}
	}
	if v0.Kernelsize != nil {
		switch typ {
		case "conv":
			conv().KernelSize = append(conv().KernelSize, v0.GetKernelsize())
		case "pool":
			pool().KernelSize = v0.Kernelsize
		}
	}
	if v0.Group != nil && typ == "conv" {
		conv().Group = v0.Group
	}
	if v0.Stride != nil {
		switch typ {
		case "conv":
			conv().Stride = append(conv().Stride, v0.GetStride())
		case "pool":
			pool().Stride = v0.Stride
		}
	}
	if v0.Pool != nil && typ == "pool" {
		pool().Pool = caffepb.PoolingParameter_PoolMethod(v0.GetPool()).Enum()
	}
	if v0.DropoutRatio != nil && typ == "dropout" {
		out.DropoutParam = &caffepb.DropoutParameter{DropoutRatio: v0.DropoutRatio}
	}
	if typ == "lrn" {
		if v0.LocalSize != nil {
			lrn().LocalSize = v0.LocalSize
		}
		if v0.Alpha != nil {
			lrn().Alpha = v0.Alpha
		}
		if v0.Beta != nil {
			lrn().Beta = v0.Beta
		}
		if v0.K != nil {
			lrn().K = v0.K
		}
	}
	if v0.Source != nil {
		switch typ {
		case "data":
			data().Source = v0.Source
		case "hdf5_data":
			hdf5().Source = v0.Source
		case "images":
			images().Source = v0.Source
		case "window_data":
			window().Source = v0.Source
		case "infogain_loss":
			out.InfogainLossParam = &caffepb.InfogainLossParameter{Source: v0.Source}
		}
	}
	if v0.Scale != nil {
		transform().Scale = v0.Scale
	}
	if v0.Meanfile != nil {
		transform().MeanFile = v0.Meanfile
	}
	if v0.Batchsize != nil {
		switch typ {
		case "data":
			data().BatchSize = v0.Batchsize
		case "hdf5_data":
			hdf5().BatchSize = v0.Batchsize
		case "images":
			images().BatchSize = v0.Batchsize
		case "window_data":
			window().BatchSize = v0.Batchsize
		}
	}
	if v0.Cropsize != nil {
		transform().CropSize = v0.Cropsize
	}
	if v0.Mirror != nil {
		transform().Mirror = v0.Mirror
	}
	if v0.RandSkip != nil {
		switch typ {
		case "data":
			data().RandSkip = v0.RandSkip
		case "images":
			images().RandSkip = v0.RandSkip
		}
	}
	if typ == "images" {
		if v0.ShuffleImages != nil {
			images().Shuffle = v0.ShuffleImages
		}
		if v0.NewHeight != nil {
			images().NewHeight = proto.Uint32(uint32(v0.GetNewHeight()))
		}
		if v0.NewWidth != nil {
			images().NewWidth = proto.Uint32(uint32(v0.GetNewWidth()))
		}
	}
	if v0.ConcatDim != nil && typ == "concat" {
		out.ConcatParam = &caffepb.ConcatParameter{ConcatDim: v0.ConcatDim}
	}
	if typ == "window_data" {
		if v0.DetFgThreshold != nil {
			window().FgThreshold = v0.DetFgThreshold
		}
		if v0.DetBgThreshold != nil {
			window().BgThreshold = v0.DetBgThreshold
		}
		if v0.DetFgFraction != nil {
			window().FgFraction = v0.DetFgFraction
		}
		if v0.DetContextPad != nil {
			window().ContextPad = v0.DetContextPad
		}
		if v0.DetCropMode != nil {
			window().CropMode = v0.DetCropMode
		}
	}
	if v0.Hdf5OutputParam != nil && typ == "hdf5_output" {
		out.Hdf5OutputParam = v0.Hdf5OutputParam
	}
	if src, ok := lookupSource(in); ok {
		rememberSource(out, src)
	}
	return out
}

func netNeedsDataUpgrade(np *caffepb.NetParameter) bool {
	for _, l := range np.GetLayers() {
		switch l.GetType() {
		case caffepb.V1LayerParameter_DATA:
			d := l.GetDataParam()
			if d != nil && (d.Scale != nil || d.MeanFile != nil || d.CropSize != nil || d.Mirror != nil) {
				return true
			}
		case caffepb.V1LayerParameter_IMAGE_DATA:
			d := l.GetImageDataParam()
			if d != nil && (d.Scale != nil || d.MeanFile != nil || d.CropSize != nil || d.Mirror != nil) {
				return true
			}
		case caffepb.V1LayerParameter_WINDOW_DATA:
			d := l.GetWindowDataParam()
			if d != nil && (d.Scale != nil || d.MeanFile != nil || d.CropSize != nil || d.Mirror != nil) {
				return true
			}
		}
	}
	return false
}

// upgradeDataTransform moves the deprecated scale/mean_file/crop_size/
// mirror of V1 data layers into transform_param. Like Caffe, it leaves an
// (possibly empty) parameter message and transform_param on every such
// layer.
func upgradeDataTransform(np *caffepb.NetParameter) {
	for _, l := range np.Layers {
		var scale *float32
		var meanFile *string
		var cropSize *uint32
		var mirror *bool
		switch l.GetType() {
		case caffepb.V1LayerParameter_DATA:
			if l.DataParam == nil {
				l.DataParam = &caffepb.DataParameter{}
			}
			d := l.DataParam
			scale, meanFile, cropSize, mirror = d.Scale, d.MeanFile, d.CropSize, d.Mirror
			d.Scale, d.MeanFile, d.CropSize, d.Mirror = nil, nil, nil, nil
		case caffepb.V1LayerParameter_IMAGE_DATA:
			if l.ImageDataParam == nil {
				l.ImageDataParam = &caffepb.ImageDataParameter{}
			}
			d := l.ImageDataParam
			scale, meanFile, cropSize, mirror = d.Scale, d.MeanFile, d.CropSize, d.Mirror
			d.Scale, d.MeanFile, d.CropSize, d.Mirror = nil, nil, nil, nil
		case caffepb.V1LayerParameter_WINDOW_DATA:
			if l.WindowDataParam == nil {
				l.WindowDataParam = &caffepb.WindowDataParameter{}
			}
			d := l.WindowDataParam
			scale, meanFile, cropSize, mirror = d.Scale, d.MeanFile, d.CropSize, d.Mirror
			d.Scale, d.MeanFile, d.CropSize, d.Mirror = nil, nil, nil, nil
		default:
			continue
		}
		if l.TransformParam == nil {
			l.TransformParam = &caffepb.TransformationParameter{}
		}
		t := l.TransformParam
		if scale != nil {
			t.Scale = scale
		}
		if meanFile != nil {
			t.MeanFile = meanFile
		}
		if cropSize != nil {
			t.CropSize = cropSize
		}
		if mirror != nil {
			t.Mirror = mirror
		}
	}
}

// v1LayerTypes maps the V1 enum to current type names.
var v1LayerTypes = map[caffepb.V1LayerParameter_LayerType]string{
	caffepb.V1LayerParameter_NONE:                       "",
	caffepb.V1LayerParameter_ABSVAL:                     "AbsVal",
	caffepb.V1LayerParameter_ACCURACY:                   "Accuracy",
	caffepb.V1LayerParameter_ARGMAX:                     "ArgMax",
	caffepb.V1LayerParameter_BNLL:                       "BNLL",
	caffepb.V1LayerParameter_CONCAT:                     "Concat",
	caffepb.V1LayerParameter_CONTRASTIVE_LOSS:           "ContrastiveLoss",
	caffepb.V1LayerParameter_CONVOLUTION:                "Convolution",
	caffepb.V1LayerParameter_DECONVOLUTION:              "Deconvolution",
	caffepb.V1LayerParameter_DATA:                       "Data",
	caffepb.V1LayerParameter_DROPOUT:                    "Dropout",
	caffepb.V1LayerParameter_DUMMY_DATA:                 "DummyData",
	caffepb.V1LayerParameter_EUCLIDEAN_LOSS:             "EuclideanLoss",
	caffepb.V1LayerParameter_ELTWISE:                    "Eltwise",
	caffepb.V1LayerParameter_EXP:                        "Exp",
	caffepb.V1LayerParameter_FLATTEN:                    "Flatten",
	caffepb.V1LayerParameter_HDF5_DATA:                  "HDF5Data",
	caffepb.V1LayerParameter_HDF5_OUTPUT:                "HDF5Output",
	caffepb.V1LayerParameter_HINGE_LOSS:                 "HingeLoss",
	caffepb.V1LayerParameter_IM2COL:                     "Im2col",
	caffepb.V1LayerParameter_IMAGE_DATA:                 "ImageData",
	caffepb.V1LayerParameter_INFOGAIN_LOSS:              "InfogainLoss",
	caffepb.V1LayerParameter_INNER_PRODUCT:              "InnerProduct",
	caffepb.V1LayerParameter_LRN:                        "LRN",
	caffepb.V1LayerParameter_MEMORY_DATA:                "MemoryData",
	caffepb.V1LayerParameter_MULTINOMIAL_LOGISTIC_LOSS:  "MultinomialLogisticLoss",
	caffepb.V1LayerParameter_MVN:                        "MVN",
	caffepb.V1LayerParameter_POOLING:                    "Pooling",
	caffepb.V1LayerParameter_POWER:                      "Power",
	caffepb.V1LayerParameter_RELU:                       "ReLU",
	caffepb.V1LayerParameter_SIGMOID:                    "Sigmoid",
	caffepb.V1LayerParameter_SIGMOID_CROSS_ENTROPY_LOSS: "SigmoidCrossEntropyLoss",
	caffepb.V1LayerParameter_SILENCE:                    "Silence",
	caffepb.V1LayerParameter_SOFTMAX:                    "Softmax",
	caffepb.V1LayerParameter_SOFTMAX_LOSS:               "SoftmaxWithLoss",
	caffepb.V1LayerParameter_SPLIT:                      "Split",
	caffepb.V1LayerParameter_SLICE:                      "Slice",
	caffepb.V1LayerParameter_TANH:                       "TanH",
	caffepb.V1LayerParameter_WINDOW_DATA:                "WindowData",
	caffepb.V1LayerParameter_THRESHOLD:                  "Threshold",
}

func upgradeV1Net(np *caffepb.NetParameter) error {
	if len(np.Layer) > 0 {
		return fmt.Errorf("caffe: net %q has both current \"layer\" and legacy \"layers\" entries; use one format", np.GetName())
	}
	layers := np.Layers
	np.Layers = nil
	for i, l := range layers {
		nl, err := upgradeV1Layer(l)
		if err != nil {
			return legacyLayerError(l, i, l.GetName(), "upgrading a V1 net: %v", err)
		}
		np.Layer = append(np.Layer, nl)
	}
	return nil
}

func upgradeV1Layer(v1 *caffepb.V1LayerParameter) (*caffepb.LayerParameter, error) {
	l := &caffepb.LayerParameter{
		Bottom:  v1.Bottom,
		Top:     v1.Top,
		Name:    v1.Name,
		Include: v1.Include,
		Exclude: v1.Exclude,
		Blobs:   v1.Blobs,
	}
	if v1.Type != nil {
		name, ok := v1LayerTypes[v1.GetType()]
		if !ok {
			return nil, fmt.Errorf("unknown V1 layer type %d", v1.GetType())
		}
		l.Type = proto.String(name)
	}
	spec := func(i int) *caffepb.ParamSpec {
		for len(l.Param) <= i {
			l.Param = append(l.Param, &caffepb.ParamSpec{})
		}
		return l.Param[i]
	}
	for i, name := range v1.Param {
		spec(i).Name = proto.String(name)
	}
	for i, mode := range v1.BlobShareMode {
		switch mode {
		case caffepb.V1LayerParameter_STRICT:
			spec(i).ShareMode = caffepb.ParamSpec_STRICT.Enum()
		case caffepb.V1LayerParameter_PERMISSIVE:
			spec(i).ShareMode = caffepb.ParamSpec_PERMISSIVE.Enum()
		default:
			return nil, fmt.Errorf("unknown blob_share_mode %d", mode)
		}
	}
	for i, lr := range v1.BlobsLr {
		spec(i).LrMult = proto.Float32(lr)
	}
	for i, d := range v1.WeightDecay {
		spec(i).DecayMult = proto.Float32(d)
	}
	l.LossWeight = v1.LossWeight
	l.AccuracyParam = v1.AccuracyParam
	l.ArgmaxParam = v1.ArgmaxParam
	l.ConcatParam = v1.ConcatParam
	l.ContrastiveLossParam = v1.ContrastiveLossParam
	l.ConvolutionParam = v1.ConvolutionParam
	l.DataParam = v1.DataParam
	l.DropoutParam = v1.DropoutParam
	l.DummyDataParam = v1.DummyDataParam
	l.EltwiseParam = v1.EltwiseParam
	l.ExpParam = v1.ExpParam
	l.Hdf5DataParam = v1.Hdf5DataParam
	l.Hdf5OutputParam = v1.Hdf5OutputParam
	l.HingeLossParam = v1.HingeLossParam
	l.ImageDataParam = v1.ImageDataParam
	l.InfogainLossParam = v1.InfogainLossParam
	l.InnerProductParam = v1.InnerProductParam
	l.LrnParam = v1.LrnParam
	l.MemoryDataParam = v1.MemoryDataParam
	l.MvnParam = v1.MvnParam
	l.PoolingParam = v1.PoolingParam
	l.PowerParam = v1.PowerParam
	l.ReluParam = v1.ReluParam
	l.SigmoidParam = v1.SigmoidParam
	l.SoftmaxParam = v1.SoftmaxParam
	l.SliceParam = v1.SliceParam
	l.TanhParam = v1.TanhParam
	l.ThresholdParam = v1.ThresholdParam
	l.WindowDataParam = v1.WindowDataParam
	l.TransformParam = v1.TransformParam
	l.LossParam = v1.LossParam
	// A leftover V0 layer is ignored, as in Caffe.
	moveSource(v1, l)
	return l, nil
}

func upgradeNetInput(np *caffepb.NetParameter) error {
	hasShape := len(np.InputShape) > 0
	hasDim := len(np.InputDim) > 0
	if hasShape || hasDim {
		in := &caffepb.LayerParameter{
			Name:       proto.String("input"),
			Type:       proto.String("Input"),
			InputParam: &caffepb.InputParameter{},
		}
		for i, name := range np.Input {
			in.Top = append(in.Top, name)
			if hasShape {
				if i >= len(np.InputShape) {
					return fmt.Errorf("caffe: net %q has %d inputs but %d input_shape entries; give one per input",
						np.GetName(), len(np.Input), len(np.InputShape))
				}
				in.InputParam.Shape = append(in.InputParam.Shape, proto.Clone(np.InputShape[i]).(*caffepb.BlobShape))
				continue
			}
			if 4*i+4 > len(np.InputDim) {
				return fmt.Errorf("caffe: net %q has %d inputs but %d input_dim values; give four per input",
					np.GetName(), len(np.Input), len(np.InputDim))
			}
			shape := &caffepb.BlobShape{}
			for _, d := range np.InputDim[4*i : 4*i+4] {
				shape.Dim = append(shape.Dim, int64(d))
			}
			in.InputParam.Shape = append(in.InputParam.Shape, shape)
		}
		np.Layer = append([]*caffepb.LayerParameter{in}, np.Layer...)
	}
	// Inputs without dimensions come from old binary models: drop them.
	np.Input, np.InputShape, np.InputDim = nil, nil, nil
	return nil
}

// netNeedsBatchNormUpgrade reports whether a BatchNorm layer with three
// param entries (the old definition) has a multiplier not yet set to 0.
func netNeedsBatchNormUpgrade(np *caffepb.NetParameter) bool {
	for _, l := range np.GetLayer() {
		if l.GetType() != "BatchNorm" || len(l.Param) != 3 {
			continue
		}
		for _, p := range l.Param {
			if p != nil && (p.LrMult == nil || p.GetLrMult() != 0 || p.DecayMult == nil || p.GetDecayMult() != 0) {
				return true
			}
		}
	}
	return false
}

func upgradeBatchNorm(np *caffepb.NetParameter) {
	for _, l := range np.Layer {
		if l.GetType() == "BatchNorm" && len(l.Param) == 3 {
			for _, p := range l.Param {
				if p == nil {
					continue
				}
				p.LrMult = proto.Float32(0)
				p.DecayMult = proto.Float32(0)
			}
		}
	}
}

// solverTypeNames maps the deprecated solver_type enum to type names.
var solverTypeNames = map[caffepb.SolverParameter_SolverType]string{
	caffepb.SolverParameter_SGD:      "SGD",
	caffepb.SolverParameter_NESTEROV: "Nesterov",
	caffepb.SolverParameter_ADAGRAD:  "AdaGrad",
	caffepb.SolverParameter_RMSPROP:  "RMSProp",
	caffepb.SolverParameter_ADADELTA: "AdaDelta",
	caffepb.SolverParameter_ADAM:     "Adam",
}

// UpgradeSolverParameter rewrites the deprecated solver_type enum into the
// type string, as Caffe does. Giving both is an error. Nets inside the
// solver are not touched; LoadSolverParameter upgrades those.
func UpgradeSolverParameter(sp *caffepb.SolverParameter) error {
	if sp.SolverType == nil {
		return nil
	}
	if sp.Type != nil {
		return fmt.Errorf("caffe: solver gives both solver_type (%v, deprecated) and type (%q); keep only type", sp.GetSolverType(), sp.GetType())
	}
	name, ok := solverTypeNames[sp.GetSolverType()]
	if !ok {
		return fmt.Errorf("caffe: unknown solver_type %d", sp.GetSolverType())
	}
	sp.Type = proto.String(name)
	sp.SolverType = nil
	return nil
}

// SolverTypeName returns the solver type a parameter asks for: its type,
// or the name of the legacy solver_type enum when only that is set.
func SolverTypeName(sp *caffepb.SolverParameter) string {
	if sp.Type == nil && sp.SolverType != nil {
		if name, ok := solverTypeNames[sp.GetSolverType()]; ok {
			return name
		}
	}
	return sp.GetType()
}
