package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "MemoryData", Bottoms: Exactly(0), Tops: Exactly(2), Data: true, New: newMemoryData, Shape: ruleOf((*MemoryData).inferShapes)})
}

// MemoryData feeds a net from Go: its tops are a data blob [batch, C, H,
// W] and a label blob [batch], and every Forward fills them with the next
// minibatch, either from a feeder function (SetFeeder) or by walking
// through arrays given to Reset.
//
// When the definition has a transform_param, its scale and mean_value are
// applied to the data after it is fetched: value = (x - mean[c]) * scale.
// Cropping, mirroring and mean files are not applied here; a definition
// that asks for them is rejected (use the Data layer, or transform the
// batches in Go).
type MemoryData struct {
	layerBase
	batch, channels, height, width int

	feed   func(data, label []float32) error
	pieces bool // feed takes a batch in pieces (SetFeederInPieces)
	data   []float32
	labels []float32
	pos    int

	transform bool
	scale     float32
	mean      []float32 // empty, one value, or one per channel
}

var _ Layer = (*MemoryData)(nil)

func newMemoryData(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetMemoryDataParam())
	l := &MemoryData{
		layerBase: newLayerBase("MemoryData", def, env),
		batch:     int(p.GetBatchSize()), channels: int(p.GetChannels()),
		height: int(p.GetHeight()), width: int(p.GetWidth()),
		scale: 1,
	}
	if l.batch <= 0 || l.channels <= 0 || l.height <= 0 || l.width <= 0 {
		return nil, fmt.Errorf("memory_data_param needs batch_size, channels, height and width > 0, got %d, %d, %d, %d",
			l.batch, l.channels, l.height, l.width)
	}
	if tp := def.GetTransformParam(); tp != nil {
		if tp.GetCropSize() != 0 || tp.GetMirror() || tp.MeanFile != nil {
			return nil, fmt.Errorf("transform_param: MemoryData applies only scale and mean_value, not crop_size, mirror or mean_file; use the Data layer or transform the batches in Go")
		}
		l.scale = tp.GetScale()
		l.mean = append([]float32(nil), tp.GetMeanValue()...)
		if n := len(l.mean); n > 1 && n != l.channels {
			return nil, fmt.Errorf("transform_param: %d mean_value entries for %d channels; give one, or one per channel", n, l.channels)
		}
		l.transform = l.scale != 1 || len(l.mean) > 0
	}
	return l, nil
}

// SetFeeder makes every Forward call feed with the storage of the data top
// (batch*C*H*W values, image after image, each C×H×W) and of the label top
// (batch values) to be filled with the next minibatch. The slices are the
// blobs' own storage, so feeding allocates nothing. An error (or a panic)
// in feed is returned by Forward. SetFeeder replaces arrays given to Reset.
func (l *MemoryData) SetFeeder(feed func(data, label []float32) error) {
	l.feed, l.pieces = feed, false
	l.data, l.labels, l.pos = nil, nil, 0
}

// SetFeederInPieces is SetFeeder for a feeder that fills a batch in
// consecutive pieces as one call fills it whole: called once per piece,
// in order, with the storage of the batch's next k images (k×C×H×W
// values) and of their k labels (the data package's Batcher does so in
// its Sequential and Shuffle orders). A net on several threads then
// feeds each piece on the goroutine that convolves its images first
// (Net.forwardFedChain), which writes them into its own core's cache
// instead of reading them from another's; feed may thus run on other
// goroutines than Forward's, one call at a time.
func (l *MemoryData) SetFeederInPieces(feed func(data, label []float32) error) {
	l.SetFeeder(feed)
	l.pieces = feed != nil
}

// Reset makes Forward walk through the samples in data (len(labels)
// images of C×H×W values each) and labels, one batch per call, starting
// again at the first after the last. The number of samples must be a
// positive multiple of the batch size. The arrays are read, not copied,
// at every Forward, so they must not change while the layer uses them.
// Reset replaces a feeder given to SetFeeder.
func (l *MemoryData) Reset(data, labels []float32) error {
	n := len(labels)
	if n == 0 || n%l.batch != 0 {
		return l.errorf("Reset: %d samples is not a positive multiple of the batch size %d", n, l.batch)
	}
	if size := l.channels * l.height * l.width; len(data) != n*size {
		return l.errorf("Reset: %d data values for %d samples of %d×%d×%d, want %d", len(data), n, l.channels, l.height, l.width, n*size)
	}
	l.data, l.labels, l.pos, l.feed, l.pieces = data, labels, 0, nil, false
	return nil
}

// SetBatchSize changes the batch size; the next Forward reshapes the tops
// (a net then reshapes the layers below). Arrays given to Reset must hold
// a multiple of it.
func (l *MemoryData) SetBatchSize(n int) error {
	if n <= 0 {
		return l.errorf("SetBatchSize(%d): want > 0", n)
	}
	if l.labels != nil && len(l.labels)%n != 0 {
		return l.errorf("SetBatchSize(%d): the %d samples given to Reset are not a multiple of it", n, len(l.labels))
	}
	l.batch = n
	l.pos = 0
	return nil
}

// BatchShape returns the shape of the data top.
func (l *MemoryData) BatchShape() (batch, channels, height, width int) {
	return l.batch, l.channels, l.height, l.width
}

// Setup shapes the tops.
func (l *MemoryData) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// inferShapes is MemoryData's shape rule: the data and the labels of a
// batch.
func (l *MemoryData) inferShapes(c *ShapeContext) error {
	c.Tops[0] = Shape{l.batch, l.channels, l.height, l.width}
	c.Tops[1] = Shape{l.batch}
	return nil
}

// Reshape shapes the tops for the current batch size.
func (l *MemoryData) Reshape(bottom, top []*Blob) error {
	top[0].Reshape(l.batch, l.channels, l.height, l.width)
	top[1].Reshape(l.batch)
	return nil
}

// Forward fills the tops with the next batch.
func (l *MemoryData) Forward(bottom, top []*Blob) error {
	l.reshapeBatch(bottom, top)
	data, label := top[0].DataSlice(), top[1].DataSlice()
	switch {
	case l.feed != nil:
		return l.feedImages(data, label)
	case l.labels != nil:
		size := l.channels * l.height * l.width
		copy(data, l.data[l.pos*size:(l.pos+l.batch)*size])
		copy(label, l.labels[l.pos:l.pos+l.batch])
		l.pos = (l.pos + l.batch) % len(l.labels)
	default:
		return l.errorf("no data: call SetFeeder or Reset before Forward")
	}
	if l.transform {
		l.applyTransform(data)
	}
	return nil
}

// reshapeBatch reshapes the tops when the batch size changed
// (SetBatchSize): the layers below see the new shape of their bottoms.
func (l *MemoryData) reshapeBatch(bottom, top []*Blob) {
	if top[1].NumAxes() != 1 || top[1].Dim(0) != l.batch || top[0].Count() != l.batch*l.channels*l.height*l.width {
		l.Reshape(bottom, top)
	}
}

// feedImages feeds the images (a batch, or a piece of one) whose storage
// data and label are, and transforms them.
func (l *MemoryData) feedImages(data, label []float32) error {
	if err := l.callFeed(data, label); err != nil {
		return err
	}
	if l.transform {
		l.applyTransform(data)
	}
	return nil
}

// callFeed runs the user's feeder, turning a panic into an error.
func (l *MemoryData) callFeed(data, label []float32) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = l.errorf("feeder panicked: %v", r)
		}
	}()
	if err := l.feed(data, label); err != nil {
		return l.errorf("feeder: %w", err)
	}
	return nil
}

func (l *MemoryData) applyTransform(data []float32) {
	hw := l.height * l.width
	for i := 0; i < len(data); i += hw {
		c := (i / hw) % l.channels
		var m float32
		switch len(l.mean) {
		case 0:
		case 1:
			m = l.mean[0]
		default:
			m = l.mean[c]
		}
		for j, v := range data[i : i+hw] {
			data[i+j] = (v - m) * l.scale
		}
	}
}

// Backward does nothing.
func (l *MemoryData) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}
