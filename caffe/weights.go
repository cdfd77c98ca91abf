package caffe

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

// maxBlobCount is the largest element count of a Caffe blob (INT_MAX).
const maxBlobCount = math.MaxInt32

// hasLegacyDims reports whether b uses the legacy num/channels/height/width
// fields.
func hasLegacyDims(b *caffepb.BlobProto) bool {
	return b.Num != nil || b.Channels != nil || b.Height != nil || b.Width != nil
}

// BlobShape returns the shape of b: (num, channels, height, width) when any
// of those legacy fields is present (the shape field is then ignored, as
// in Caffe), else the dims of its shape field.
func BlobShape(b *caffepb.BlobProto) []int {
	if hasLegacyDims(b) {
		return []int{int(b.GetNum()), int(b.GetChannels()), int(b.GetHeight()), int(b.GetWidth())}
	}
	dims := b.GetShape().GetDim()
	shape := make([]int, len(dims))
	for i, d := range dims {
		shape[i] = clampDim(d)
	}
	return shape
}

func clampDim(d int64) int {
	switch {
	case d > math.MaxInt32:
		return math.MaxInt32 + 1 // too large for Caffe; shapeCount refuses it
	case d < math.MinInt32:
		return math.MinInt32
	}
	return int(d)
}

// shapeCount returns the number of elements of a blob shape (1 for a
// scalar), refusing negative dimensions and counts beyond Caffe's limit.
func shapeCount(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %s", shapeString(shape))
		}
		if d != 0 && n > maxBlobCount/d {
			return 0, fmt.Errorf("shape %s has more than %d elements", shapeString(shape), maxBlobCount)
		}
		n *= d
	}
	return n, nil
}

func shapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// describeBlobShape renders a blob's shape for messages, noting legacy
// dimensions.
func describeBlobShape(b *caffepb.BlobProto) string {
	s := shapeString(BlobShape(b))
	if hasLegacyDims(b) {
		s += " (legacy num/channels/height/width)"
	}
	return s
}

// BlobData returns the values of b as float32: double_data (converted)
// when it has any, else data, which is returned without copying. The
// number of values must equal the element count of BlobShape(b).
func BlobData(b *caffepb.BlobProto) ([]float32, error) {
	n, err := blobValues(b)
	if err != nil {
		return nil, err
	}
	if len(b.DoubleData) > 0 {
		out := make([]float32, n)
		for i, v := range b.DoubleData {
			out[i] = float32(v)
		}
		return out, nil
	}
	return b.Data, nil
}

// blobValues checks that b holds as many values as its shape says and
// returns that count; nothing is allocated.
func blobValues(b *caffepb.BlobProto) (int, error) {
	shape := BlobShape(b)
	n, err := shapeCount(shape)
	if err != nil {
		return 0, fmt.Errorf("caffe: blob: %w", err)
	}
	if len(b.DoubleData) > 0 {
		if len(b.DoubleData) != n {
			return 0, fmt.Errorf("caffe: blob of shape %s needs %d values, has %d double_data values", describeBlobShape(b), n, len(b.DoubleData))
		}
		return n, nil
	}
	if len(b.Data) != n {
		return 0, fmt.Errorf("caffe: blob of shape %s needs %d values, has %d data values", describeBlobShape(b), n, len(b.Data))
	}
	return n, nil
}

// copyBlobData checks b and copies its values into dst, which must have
// its element count.
func copyBlobData(dst []float32, b *caffepb.BlobProto) error {
	n, err := blobValues(b)
	if err != nil {
		return err
	}
	if len(dst) != n {
		return fmt.Errorf("caffe: blob has %d values, destination holds %d", n, len(dst))
	}
	if len(b.DoubleData) > 0 {
		for i, v := range b.DoubleData {
			dst[i] = float32(v)
		}
		return nil
	}
	copy(dst, b.Data)
	return nil
}

// ShapeEquals reports whether a blob stored as b can be copied into a
// blob of the given shape, by Caffe's rule: with legacy dimensions the
// shape, padded with 1s on the left to four axes, must equal (num,
// channels, height, width), so a [20] bias matches a legacy 1x1x1x20 blob
// and a [500 800] weight matches 1x1x500x800; otherwise the shapes must be
// equal.
func ShapeEquals(b *caffepb.BlobProto, shape []int) bool {
	if hasLegacyDims(b) {
		if len(shape) > 4 {
			return false
		}
		legacy := []int{1, 1, 1, 1}
		copy(legacy[4-len(shape):], shape)
		return legacy[0] == int(b.GetNum()) && legacy[1] == int(b.GetChannels()) &&
			legacy[2] == int(b.GetHeight()) && legacy[3] == int(b.GetWidth())
	}
	dims := b.GetShape().GetDim()
	if len(dims) != len(shape) {
		return false
	}
	for i, d := range dims {
		if d != int64(shape[i]) {
			return false
		}
	}
	return true
}

// ArrayFromBlob returns a new array with b's shape (legacy dimensions kept
// as four axes) and a copy of its values.
func ArrayFromBlob(b *caffepb.BlobProto) (*ndarray.Array, error) {
	if _, err := blobValues(b); err != nil {
		return nil, err
	}
	a := ndarray.New(BlobShape(b)...)
	if err := copyBlobData(a.Data(), b); err != nil {
		return nil, err
	}
	return a, nil
}

// BlobFromArray returns a BlobProto holding a copy of a's values, with
// the shape field (never the legacy dimensions), as Caffe writes blobs.
func BlobFromArray(a *ndarray.Array) *caffepb.BlobProto {
	shape := a.Shape()
	dims := make([]int64, len(shape))
	for i, d := range shape {
		dims[i] = int64(d)
	}
	data := append([]float32(nil), a.Contiguous().Data()...)
	return &caffepb.BlobProto{Shape: &caffepb.BlobShape{Dim: dims}, Data: data}
}

// ModelWeights returns the blobs of every layer of a net with weights (a
// .caffemodel) as arrays, by layer name, in their stored shapes. When
// names repeat, the first layer wins, as in CopyWeights.
func ModelWeights(model *caffepb.NetParameter) (map[string][]*ndarray.Array, error) {
	out := map[string][]*ndarray.Array{}
	for _, l := range model.GetLayer() {
		if _, dup := out[l.GetName()]; dup {
			continue
		}
		arrays := make([]*ndarray.Array, 0, len(l.Blobs))
		for i, b := range l.Blobs {
			a, err := ArrayFromBlob(b)
			if err != nil {
				return nil, fmt.Errorf("%w (blob %d of layer %q)", err, i, l.GetName())
			}
			arrays = append(arrays, a)
		}
		out[l.GetName()] = arrays
	}
	return out, nil
}

// CopyReport tells what CopyWeights did.
type CopyReport struct {
	// Copied lists the layers whose blobs were copied, in the source's
	// order.
	Copied []string
	// Ignored lists source layers with blobs but no destination of that
	// name (Caffe ignores them too).
	Ignored []string
	// Kept lists destination layers with parameters that the source does
	// not have; their arrays are left as they were.
	Kept []string
}

// CopyWeights copies the blobs of a net with weights (an upgraded
// .caffemodel, as ReadCaffemodel returns) into dst, the parameter arrays
// of a net by layer name, as Caffe's CopyTrainedLayersFrom does: source
// layers are matched to destination layers by name only (the type is not
// checked); a layer must have as many blobs as the destination has arrays,
// and each blob must pass ShapeEquals (so legacy 4-D blobs load into their
// current shapes). Everything is checked before anything is copied, so on
// error dst is unchanged; the error names the layer and both shapes.
func CopyWeights(model *caffepb.NetParameter, dst map[string][]*ndarray.Array) (*CopyReport, error) {
	type job struct {
		dst *ndarray.Array
		src *caffepb.BlobProto
	}
	var jobs []job
	report := &CopyReport{}
	done := map[string]bool{}
	for _, l := range model.GetLayer() {
		name := l.GetName()
		arrays, ok := dst[name]
		if !ok {
			if len(l.Blobs) > 0 {
				report.Ignored = append(report.Ignored, name)
			}
			continue
		}
		if len(arrays) != len(l.Blobs) {
			return nil, fmt.Errorf("caffe: cannot copy weights of layer %q: the weights have %d blobs, the net's layer has %d parameters",
				name, len(l.Blobs), len(arrays))
		}
		for i, b := range l.Blobs {
			a := arrays[i]
			if !ShapeEquals(b, a.Shape()) {
				return nil, fmt.Errorf("caffe: cannot copy blob %d of layer %q: the weights have shape %s, the net's parameter has shape %s; to learn this layer from scratch instead, rename it",
					i, name, describeBlobShape(b), shapeString(a.Shape()))
			}
			if _, err := blobValues(b); err != nil {
				return nil, fmt.Errorf("%w (blob %d of layer %q)", err, i, name)
			}
			if !a.IsContiguous() {
				return nil, fmt.Errorf("caffe: cannot copy blob %d of layer %q: the destination array is not contiguous", i, name)
			}
			jobs = append(jobs, job{a, b})
		}
		if len(l.Blobs) > 0 && !done[name] {
			report.Copied = append(report.Copied, name)
		}
		done[name] = true
	}
	for _, j := range jobs {
		if err := copyBlobData(j.dst.Data(), j.src); err != nil {
			return nil, err // not reached: checked above
		}
	}
	for name, arrays := range dst {
		if len(arrays) > 0 && !done[name] {
			report.Kept = append(report.Kept, name)
		}
	}
	sort.Strings(report.Kept)
	return report, nil
}

// NewParamArrays allocates zero-filled arrays for every parameter blob of
// a processed net, by layer name, in the shapes InferShapes found. Layers
// without parameters get an empty list, so CopyWeights reports a source
// layer with blobs for them as Caffe does. A parameter shared by name uses
// its owner's array (reshaped when the sharing is PERMISSIVE). When layer
// names repeat, the first layer wins.
func NewParamArrays(def *NetDef, shapes *Shapes) (map[string][]*ndarray.Array, error) {
	out := map[string][]*ndarray.Array{}
	byParam := make([]*ndarray.Array, len(def.Params))
	for i, l := range def.Layers {
		arrays := []*ndarray.Array{}
		for k, id := range l.Params {
			p := def.Params[id]
			shape := shapes.Layers[i].Params[k]
			if !shape.Known() {
				return nil, l.errorf("the shape of parameter %d is unknown; give the shapes of the net's inputs", k)
			}
			var a *ndarray.Array
			if p.Owner >= 0 {
				a = byParam[p.Owner]
				if !intsEqual(a.Shape(), shape) {
					a = a.Reshape(shape...)
				}
			} else {
				a = ndarray.New(shape...)
			}
			byParam[id] = a
			arrays = append(arrays, a)
		}
		if _, dup := out[l.Name]; !dup {
			out[l.Name] = arrays
		}
	}
	return out, nil
}

func intsEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
