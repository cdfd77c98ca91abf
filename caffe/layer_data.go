package caffe

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/data"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Data", Bottoms: Exactly(0), Tops: Between(1, 2), Data: true, New: newDataLayer, Shape: ruleOf((*DataLayer).inferShapes)})
}

// DataLayer is Caffe's Data layer: it reads minibatches of a data set
// (see DataSource) in file order, wrapping around at the end, transformed
// as its transform_param says (scale, mean_file, mean_value, crop_size,
// mirror). Tops: data [batch, C, H, W] and optionally label [batch].
type DataLayer struct {
	layerBase
	batch       int
	sampleShape Shape                         // C, H, W when known without the data
	open        func() (*data.Batcher, error) // reads the data set; Setup calls it
	batcher     *data.Batcher
	scratch     []float32 // SkipBatches writes here
	labels      []float32
}

var _ Layer = (*DataLayer)(nil)

func newDataLayer(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	dp := def.GetDataParam()
	if dp.GetBatchSize() == 0 {
		return nil, fmt.Errorf("data_param.batch_size must be positive")
	}
	l := &DataLayer{layerBase: newLayerBase("Data", def, env), batch: int(dp.GetBatchSize())}
	l.open = func() (*data.Batcher, error) {
		env := l.env
		s, err := loadSource(dp.GetSource(), env.Dir, dp.GetBackend(), env.Phase == caffepb.Phase_TRAIN)
		if err != nil {
			return nil, err
		}
		if s, err = randSkip(s, dp.GetRandSkip(), env.Seed); err != nil {
			return nil, err
		}
		tr, err := DataTransform(def.GetTransformParam(), env.Dir, Phase(env.Phase), int64(env.Seed))
		if err != nil {
			return nil, err
		}
		return data.NewBatcher(s, data.BatchOptions{Size: l.batch, Order: data.Sequential, Transform: tr})
	}
	return l, nil
}

// randSkip skips a random number of samples in [0, skip) once, as Caffe's
// rand_skip does, moving them to the end.
func randSkip(s *data.Samples, skip uint32, seed uint64) (*data.Samples, error) {
	if skip == 0 {
		return s, nil
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	if k := r.IntN(int(skip)) % s.N; k > 0 {
		return data.Concat(s.Slice(k, s.N), s.Slice(0, k))
	}
	return s, nil
}

// inferShapes is the data layers' shape rule: the label is [batch]; the
// samples' shape comes from the data set, unless the layer resizes or
// crops them.
func (l *DataLayer) inferShapes(c *ShapeContext) error {
	if l.sampleShape != nil {
		c.Tops[0] = append(Shape{l.batch}, l.sampleShape...)
	}
	if len(c.Tops) > 1 {
		c.Tops[1] = Shape{l.batch}
	}
	return nil
}

// DataTransform turns a TransformationParameter into the data package's
// Transform for a layer in the given phase (random crops in Train, centred
// in Test), reading mean_file (relative to dir) if it is set; seed drives
// the crops and mirrors. A nil parameter gives the identity. Code feeding
// MemoryData layers that replaced Data layers (ReplaceDataLayers) applies
// it with a data.Batcher or data.Transformer.
func DataTransform(tp *caffepb.TransformationParameter, dir string, phase Phase, seed int64) (data.Transform, error) {
	t := data.Transform{
		Scale:      tp.GetScale(),
		Mirror:     tp.GetMirror(),
		CropSize:   int(tp.GetCropSize()),
		MeanValues: tp.GetMeanValue(),
		Train:      phase == Train,
		Seed:       seed,
	}
	if f := tp.GetMeanFile(); f != "" {
		if len(t.MeanValues) > 0 {
			return t, fmt.Errorf("transform_param: give mean_file or mean_value, not both")
		}
		if !filepath.IsAbs(f) && dir != "" {
			f = filepath.Join(dir, f)
		}
		bp, err := ReadBlobProto(f)
		if err != nil {
			return t, fmt.Errorf("transform_param.mean_file: %w", err)
		}
		if len(bp.GetDoubleData()) > 0 {
			t.Mean = make([]float32, len(bp.GetDoubleData()))
			for i, v := range bp.GetDoubleData() {
				t.Mean[i] = float32(v)
			}
		} else {
			t.Mean = bp.GetData()
		}
		if len(t.Mean) == 0 {
			return t, fmt.Errorf("transform_param.mean_file %s holds no values", f)
		}
	}
	return t, nil
}

// Setup reads the data set and shapes the tops.
func (l *DataLayer) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if l.batcher == nil {
		b, err := l.open()
		if err != nil {
			return l.errorf("%w", err)
		}
		l.batcher = b
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes data as [batch, C, H, W] and label as [batch].
func (l *DataLayer) Reshape(_, top []*Blob) error {
	n, c, h, w := l.batcher.Shape()
	top[0].Reshape(n, c, h, w)
	if len(top) > 1 {
		top[1].Reshape(n)
	}
	return nil
}

// Forward fills the tops with the next batch.
func (l *DataLayer) Forward(_, top []*Blob) error {
	var labels []float32
	if len(top) > 1 {
		labels = top[1].DataSlice()
	}
	return l.batcher.Next(top[0].DataSlice(), labels)
}

// Backward does nothing: data has no gradient.
func (l *DataLayer) Backward([]*Blob, []bool, []*Blob) {}

// SkipBatches moves the layer n batches on, with the same random crops and
// mirrors as if they had been read, so that a restored solver continues
// with the batches an uninterrupted run would have used.
func (l *DataLayer) SkipBatches(n int) error {
	if l.scratch == nil {
		l.scratch = make([]float32, l.batcher.DataLen())
		l.labels = make([]float32, l.batcher.Size())
	}
	for i := 0; i < n; i++ {
		if err := l.batcher.Next(l.scratch, l.labels); err != nil {
			return err
		}
	}
	return nil
}

// Epoch returns the number of completed passes over the data set.
func (l *DataLayer) Epoch() int { return l.batcher.Epoch() }

// SetDataSources makes every Data layer of np read source ("KIND:PATH",
// such as "mnist:/data/mnist"): TRAIN-phase layers then read the training
// split and TEST-phase ones the test split. It is what sparknet's
// --data=KIND=DIR flag does.
func SetDataSources(np *caffepb.NetParameter, source string) {
	for _, l := range np.GetLayer() {
		if l.GetType() != "Data" {
			continue
		}
		if l.DataParam == nil {
			l.DataParam = &caffepb.DataParameter{}
		}
		l.DataParam.Source = &source
	}
}

// DataInput describes a Data layer that ReplaceDataLayers turned into a
// MemoryData layer, for the code that feeds it.
type DataInput struct {
	// Layer is the layer's name, for Net.MemoryDataLayer.
	Layer string
	// Tops are the layer's tops: data and, usually, label.
	Tops []string
	// BatchSize is the layer's batch size.
	BatchSize int
	// Source is the data_param.source the layer had.
	Source string
	// Include are the layer's include rules (which nets it is part of).
	Include []*caffepb.NetStateRule
	// Transform is the layer's transform_param, which the feeder must
	// apply: MemoryData gets the transformed batches. Build it into a
	// data.Transform with DataTransform.
	Transform *caffepb.TransformationParameter
}

// ReplaceDataLayers turns every Data (and ImageData) layer of np into a
// MemoryData layer with the same name, tops, include rules and batch
// size, whose data top has shape [batch, channels, height, width] (the
// shape of the samples after the layer's transform: with crop_size, the
// crop). The transform itself is removed from the definition and
// returned, so that the Go code feeding the layers (Net.MemoryDataLayer,
// MemoryData.SetFeeder) applies it. Legacy definitions are upgraded
// first.
func ReplaceDataLayers(np *caffepb.NetParameter, channels, height, width int) ([]DataInput, error) {
	if channels <= 0 || height <= 0 || width <= 0 {
		return nil, fmt.Errorf("caffe: ReplaceDataLayers: sample shape %d×%d×%d must be positive", channels, height, width)
	}
	if format.NetNeedsUpgrade(np) {
		if err := format.UpgradeNetParameter(np); err != nil {
			return nil, err
		}
	}
	var out []DataInput
	for _, l := range np.GetLayer() {
		var batch uint32
		var source string
		switch l.GetType() {
		case "Data":
			batch, source = l.GetDataParam().GetBatchSize(), l.GetDataParam().GetSource()
		case "ImageData":
			batch, source = l.GetImageDataParam().GetBatchSize(), l.GetImageDataParam().GetSource()
		default:
			continue
		}
		if batch == 0 {
			return nil, fmt.Errorf("caffe: layer %q (%s): the batch_size must be positive", l.GetName(), l.GetType())
		}
		h, w := height, width
		if c := int(l.GetTransformParam().GetCropSize()); c > 0 {
			h, w = c, c
		}
		out = append(out, DataInput{
			Layer:     l.GetName(),
			Tops:      append([]string(nil), l.Top...),
			BatchSize: int(batch),
			Source:    source,
			Include:   l.Include,
			Transform: l.TransformParam,
		})
		b, c, hh, ww := batch, uint32(channels), uint32(h), uint32(w)
		l.Type = proto.String("MemoryData")
		l.DataParam, l.ImageDataParam = nil, nil
		l.TransformParam = nil
		l.MemoryDataParam = &caffepb.MemoryDataParameter{BatchSize: &b, Channels: &c, Height: &hh, Width: &ww}
	}
	return out, nil
}
