package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
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
		shape[i] = ClampDim(d)
	}
	return shape
}

// ClampDim converts a stored dimension to int, mapping values beyond
// Caffe's int32 range to just past it, so that ShapeCount refuses them.
func ClampDim(d int64) int {
	switch {
	case d > math.MaxInt32:
		return math.MaxInt32 + 1 // too large for Caffe; ShapeCount refuses it
	case d < math.MinInt32:
		return math.MinInt32
	}
	return int(d)
}

// ShapeCount returns the number of elements of a blob shape (1 for a
// scalar), refusing negative dimensions and counts beyond Caffe's limit.
func ShapeCount(shape []int) (int, error) {
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

// DescribeBlobShape renders a blob's shape for messages, noting legacy
// dimensions.
func DescribeBlobShape(b *caffepb.BlobProto) string {
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
	n, err := CheckBlob(b)
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

// CheckBlob checks that b holds as many values as its shape says and
// returns that count; nothing is allocated.
func CheckBlob(b *caffepb.BlobProto) (int, error) {
	shape := BlobShape(b)
	n, err := ShapeCount(shape)
	if err != nil {
		return 0, fmt.Errorf("caffe: blob: %w", err)
	}
	if len(b.DoubleData) > 0 {
		if len(b.DoubleData) != n {
			return 0, fmt.Errorf("caffe: blob of shape %s needs %d values, has %d double_data values", DescribeBlobShape(b), n, len(b.DoubleData))
		}
		return n, nil
	}
	if len(b.Data) != n {
		return 0, fmt.Errorf("caffe: blob of shape %s needs %d values, has %d data values", DescribeBlobShape(b), n, len(b.Data))
	}
	return n, nil
}

// CopyBlobData checks b and copies its values into dst, which must have
// its element count.
func CopyBlobData(dst []float32, b *caffepb.BlobProto) error {
	n, err := CheckBlob(b)
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
