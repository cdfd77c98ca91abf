package data

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/sparknet-go/sparknet/ndarray"
)

// Transform mirrors Caffe's TransformationParameter: what a data layer does
// to each sample on its way into a batch. The zero value copies samples
// unchanged.
//
// Each output value is (pixel - mean) * Scale, where the mean is the
// per-pixel Mean array when given, else the per-channel MeanValues, else
// zero. With CropSize set, a CropSize×CropSize window is cut out: at a
// random place when Train is set, in the centre otherwise. With Mirror
// set, each sample is flipped left to right with probability 1/2 (in both
// phases, as Caffe does).
type Transform struct {
	// Scale multiplies each value after mean subtraction; 0 means 1
	// (Caffe's default). MNIST's LeNet uses 0.00390625 (1/256).
	Scale float32
	// Mirror flips samples horizontally at random.
	Mirror bool
	// CropSize is the side of the square crop; 0 keeps whole samples.
	CropSize int
	// MeanValues holds one mean per channel, or a single mean for all
	// channels (Caffe's repeated mean_value).
	MeanValues []float32
	// Mean is a per-pixel mean of the full, uncropped C×H×W sample, as
	// read from Caffe's mean_file; it cannot be combined with MeanValues.
	Mean []float32
	// Train selects random crops (TRAIN phase); otherwise crops are
	// centred (TEST phase).
	Train bool
	// Seed seeds the random crops and mirrors; equal seeds give equal
	// sequences.
	Seed int64
}

// IsIdentity reports whether t leaves samples unchanged.
func (t Transform) IsIdentity() bool {
	return (t.Scale == 0 || t.Scale == 1) && !t.Mirror && t.CropSize == 0 && len(t.MeanValues) == 0 && len(t.Mean) == 0
}

// Transformer applies a Transform to samples of one shape. It holds the
// random state for crops and mirrors, so it is not safe for concurrent
// use: give each worker its own.
type Transformer struct {
	c, h, w int // input shape
	crop    int
	mirror  bool
	train   bool
	scale   float32
	mean    []float32 // per-pixel mean over the input shape, or nil
	rng     *rand.Rand
	scaled  [256]float32 // float32(b) * scale for every byte b
}

// errTransformSize is returned when a buffer does not fit; it is made once
// so that the per-sample path does not allocate.
var errTransformSize = errors.New("data: transform: source or destination size does not match the transformer's shapes")

// NewTransformer checks t against samples of shape c×h×w and prepares it.
func NewTransformer(t Transform, c, h, w int) (*Transformer, error) {
	if c < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("data: transform: sample shape %d×%d×%d must be positive", c, h, w)
	}
	tr := &Transformer{c: c, h: h, w: w, crop: t.CropSize, mirror: t.Mirror, train: t.Train, scale: t.Scale}
	if tr.scale == 0 {
		tr.scale = 1
	}
	if t.CropSize < 0 || t.CropSize > h || t.CropSize > w {
		return nil, fmt.Errorf("data: transform: crop_size %d must be between 0 and the sample's height %d and width %d", t.CropSize, h, w)
	}
	if len(t.Mean) > 0 && len(t.MeanValues) > 0 {
		return nil, fmt.Errorf("data: transform: give a mean array or mean values, not both (Caffe: cannot specify mean_file and mean_value at the same time)")
	}
	switch {
	case len(t.Mean) > 0:
		if len(t.Mean) != c*h*w {
			return nil, fmt.Errorf("data: transform: mean array has %d values, samples of %d×%d×%d need %d", len(t.Mean), c, h, w, c*h*w)
		}
		tr.mean = t.Mean
	case len(t.MeanValues) > 0:
		if len(t.MeanValues) != 1 && len(t.MeanValues) != c {
			return nil, fmt.Errorf("data: transform: %d mean values for %d channels: give one value, or one per channel", len(t.MeanValues), c)
		}
		tr.mean = make([]float32, c*h*w)
		for ch := 0; ch < c; ch++ {
			m := t.MeanValues[0]
			if len(t.MeanValues) == c {
				m = t.MeanValues[ch]
			}
			plane := tr.mean[ch*h*w : (ch+1)*h*w]
			for i := range plane {
				plane[i] = m
			}
		}
	}
	for b := range tr.scaled {
		tr.scaled[b] = float32(b) * tr.scale
	}
	seed := uint64(t.Seed)
	tr.rng = rand.New(rand.NewPCG(ndarray.PCGSeeds(seed)))
	return tr, nil
}

// OutShape is the shape of a transformed sample.
func (t *Transformer) OutShape() (c, h, w int) {
	if t.crop > 0 {
		return t.c, t.crop, t.crop
	}
	return t.c, t.h, t.w
}

// OutDim is the number of values in a transformed sample.
func (t *Transformer) OutDim() int {
	c, h, w := t.OutShape()
	return c * h * w
}

// ApplyBytes transforms one byte sample src (C*H*W values) into dst
// (OutDim values).
func (t *Transformer) ApplyBytes(dst []float32, src []uint8) error {
	if len(src) != t.c*t.h*t.w || len(dst) != t.OutDim() {
		return errTransformSize
	}
	if t.crop == 0 && !t.mirror && t.mean == nil {
		// The common case (MNIST's scale only): a table lookup per byte,
		// with the same rounding as the arithmetic.
		dst = dst[:len(src)]
		for i, v := range src {
			dst[i] = t.scaled[v]
		}
		return nil
	}
	apply(t, dst, src)
	return nil
}

// ApplyFloats transforms one float32 sample src into dst.
func (t *Transformer) ApplyFloats(dst, src []float32) error {
	if len(src) != t.c*t.h*t.w || len(dst) != t.OutDim() {
		return errTransformSize
	}
	apply(t, dst, src)
	return nil
}

// apply follows Caffe's DataTransformer: decide the mirror first, then the
// crop offsets, then write (src - mean) * scale.
func apply[T uint8 | float32](t *Transformer, dst []float32, src []T) {
	mirror := t.mirror && t.rng.IntN(2) == 1
	if t.crop == 0 && !mirror {
		if t.mean == nil {
			for i, v := range src {
				dst[i] = float32(v) * t.scale
			}
			return
		}
		mean := t.mean[:len(src)]
		for i, v := range src {
			dst[i] = (float32(v) - mean[i]) * t.scale
		}
		return
	}
	oh, ow, hoff, woff := t.h, t.w, 0, 0
	if t.crop > 0 {
		oh, ow = t.crop, t.crop
		if t.train {
			hoff = t.rng.IntN(t.h - t.crop + 1)
			woff = t.rng.IntN(t.w - t.crop + 1)
		} else {
			hoff = (t.h - t.crop) / 2
			woff = (t.w - t.crop) / 2
		}
	}
	for c := 0; c < t.c; c++ {
		for y := 0; y < oh; y++ {
			in := (c*t.h+hoff+y)*t.w + woff
			row := src[in : in+ow]
			out := dst[(c*oh+y)*ow : (c*oh+y+1)*ow]
			var mrow []float32
			if t.mean != nil {
				mrow = t.mean[in : in+ow]
			}
			for x, v := range row {
				f := float32(v)
				if mrow != nil {
					f -= mrow[x]
				}
				if mirror {
					out[ow-1-x] = f * t.scale
				} else {
					out[x] = f * t.scale
				}
			}
		}
	}
}
