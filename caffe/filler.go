package caffe

import (
	"fmt"
	"math"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
)

// fillerTypes are the filler types FillBlob knows, in the order Caffe's
// filler.hpp declares them.
var fillerTypes = []string{"constant", "gaussian", "positive_unitball", "uniform", "xavier", "msra", "bilinear"}

// FillerTypes returns the names of the known filler types.
func FillerTypes() []string { return append([]string(nil), fillerTypes...) }

// CheckFiller reports whether p names a known filler with valid settings,
// without filling anything.
func CheckFiller(p *caffepb.FillerParameter) error {
	typ := p.GetType()
	known := false
	for _, t := range fillerTypes {
		known = known || t == typ
	}
	if !known {
		return fmt.Errorf("caffe: unknown filler type %q%s; known types: %s",
			typ, format.DidYouMean(typ, fillerTypes), strings.Join(fillerTypes, ", "))
	}
	sparse := p.GetSparse()
	if typ == "gaussian" {
		if sparse < -1 {
			return fmt.Errorf("caffe: gaussian filler: sparse = %d, want -1 (dense) or >= 0", sparse)
		}
	} else if sparse != -1 {
		return fmt.Errorf("caffe: %s filler: sparsity (sparse = %d) is supported by the gaussian filler only", typ, sparse)
	}
	if typ == "uniform" && p.GetMin() > p.GetMax() {
		return fmt.Errorf("caffe: uniform filler: min %g > max %g", p.GetMin(), p.GetMax())
	}
	return nil
}

// FillBlob fills the values of b as Caffe's filler p does (a nil p is the
// default filler: constant 0), drawing random numbers from rng.
//
//   - constant: every value is p.value.
//   - uniform: values uniform on [min, max).
//   - gaussian: values from N(mean, std²); with sparse >= 0 each value is
//     kept with probability sparse/shape(0) and zeroed otherwise.
//   - positive_unitball: uniform on [0, 1), then every slice along axis 0
//     scaled to sum 1.
//   - xavier: uniform on [-sqrt(3/n), sqrt(3/n)], where n is fan_in =
//     count/shape(0), fan_out = count/shape(1) or their mean, as
//     variance_norm says.
//   - msra: N(0, 2/n) with the same n.
//   - bilinear: the weights of bilinear upsampling, for 4-D blobs with
//     square kernels.
//
// Random fillers reproduce Caffe's distributions, not its random streams.
func FillBlob(b *Blob, p *caffepb.FillerParameter, rng *ndarray.RNG) error {
	if err := CheckFiller(p); err != nil {
		return err
	}
	data := b.DataSlice()
	switch p.GetType() {
	case "constant":
		v := p.GetValue()
		for i := range data {
			data[i] = v
		}
	case "uniform":
		rng.Uniform(blobArray(b), p.GetMin(), p.GetMax())
	case "gaussian":
		rng.Gaussian(blobArray(b), p.GetMean(), p.GetStd())
		if sparse := p.GetSparse(); sparse >= 0 {
			if b.NumAxes() < 1 || b.Dim(0) == 0 {
				return fmt.Errorf("caffe: sparse gaussian filler needs a blob with a non-empty axis 0, got shape %v", b.shape)
			}
			keep := float64(sparse) / float64(b.Dim(0))
			for i := range data {
				if float64(rng.Float32()) >= keep {
					data[i] = 0
				}
			}
		}
	case "positive_unitball":
		rng.Uniform(blobArray(b), 0, 1)
		if b.NumAxes() == 0 || b.Dim(0) == 0 {
			break
		}
		dim := b.Count() / b.Dim(0)
		for i := 0; i+dim <= len(data) && dim > 0; i += dim {
			var sum float32
			for _, v := range data[i : i+dim] {
				sum += v
			}
			for j := i; j < i+dim; j++ {
				data[j] /= sum
			}
		}
	case "xavier":
		rng.Xavier(blobArray(b), fanMode(p))
	case "msra":
		rng.MSRA(blobArray(b), fanMode(p))
	case "bilinear":
		if b.NumAxes() != 4 {
			return fmt.Errorf("caffe: bilinear filler needs a 4-D blob, got shape %v", b.shape)
		}
		if b.Dim(2) != b.Dim(3) {
			return fmt.Errorf("caffe: bilinear filler needs a square kernel, got %d×%d", b.Dim(2), b.Dim(3))
		}
		k := b.Dim(3)
		f := math.Ceil(float64(k) / 2)
		c := float64(k-1) / (2 * f)
		for i := range data {
			x := float64(i % k)
			y := float64((i / k) % k)
			data[i] = float32((1 - math.Abs(x/f-c)) * (1 - math.Abs(y/f-c)))
		}
	}
	return nil
}

// blobArray views a blob's values as an ndarray without copying.
func blobArray(b *Blob) *ndarray.Array {
	if b.NumAxes() == 0 {
		return ndarray.FromSlice(b.DataSlice(), 1)
	}
	return ndarray.FromSlice(b.DataSlice(), b.shape...)
}

func fanMode(p *caffepb.FillerParameter) ndarray.FanMode {
	switch p.GetVarianceNorm() {
	case caffepb.FillerParameter_FAN_OUT:
		return ndarray.FanOut
	case caffepb.FillerParameter_AVERAGE:
		return ndarray.FanAverage
	}
	return ndarray.FanIn
}
