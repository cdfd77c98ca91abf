package data

import (
	"fmt"
)

// Samples is a compact in-memory set of N samples, each a C×H×W array with
// a label. Values are stored either as bytes (Pixels, as image files hold
// them: MNIST's 60,000 training images take 47 MB) or as float32 (Floats);
// exactly one of the two is non-nil, with N*C*H*W values, sample i at
// [i*C*H*W, (i+1)*C*H*W).
//
// Slice returns views that share storage; Subset and Concat copy. Samples
// handed out by an RDD may be shared with other readers and must be
// treated as read-only.
type Samples struct {
	N, C, H, W int

	Pixels []uint8   // byte storage, or nil
	Floats []float32 // float32 storage, or nil
	Labels []float32 // N labels (class indices for classification data)

	// Classes optionally names the classes: label k is Classes[k].
	Classes []string
}

// Sample is one sample viewed inside a Samples: its storage is shared.
type Sample struct {
	C, H, W int
	Pixels  []uint8   // C*H*W bytes, or nil
	Floats  []float32 // C*H*W floats, or nil
	Label   float32
}

// Values returns the sample's values as float32 (a copy for byte samples).
func (s Sample) Values() []float32 {
	if s.Floats != nil {
		return s.Floats
	}
	out := make([]float32, len(s.Pixels))
	for i, p := range s.Pixels {
		out[i] = float32(p)
	}
	return out
}

// NewSamples returns n zeroed samples of shape c×h×w, stored as float32
// when floats is true and as bytes otherwise.
func NewSamples(n, c, h, w int, floats bool) (*Samples, error) {
	s := &Samples{N: n, C: c, H: h, W: w}
	if n < 0 || c < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("data: NewSamples(%d, %d, %d, %d): need n >= 0 and c, h, w >= 1", n, c, h, w)
	}
	total := n * c * h * w
	if n > 0 && total/n != c*h*w {
		return nil, fmt.Errorf("data: NewSamples(%d, %d, %d, %d): %w", n, c, h, w, ErrTooLarge)
	}
	if floats {
		s.Floats = make([]float32, total)
	} else {
		s.Pixels = make([]uint8, total)
	}
	s.Labels = make([]float32, n)
	return s, nil
}

// Validate checks that the shape, storage and labels agree.
func (s *Samples) Validate() error {
	if s.N < 0 || s.C < 1 || s.H < 1 || s.W < 1 {
		return fmt.Errorf("data: samples of shape N=%d C=%d H=%d W=%d: need N >= 0 and C, H, W >= 1", s.N, s.C, s.H, s.W)
	}
	if (s.Pixels == nil) == (s.Floats == nil) && s.N > 0 {
		return fmt.Errorf("data: samples must have exactly one of Pixels and Floats")
	}
	want := s.N * s.Dim()
	if s.Pixels != nil && len(s.Pixels) != want {
		return fmt.Errorf("data: %d samples of %d×%d×%d need %d pixels, have %d", s.N, s.C, s.H, s.W, want, len(s.Pixels))
	}
	if s.Floats != nil && len(s.Floats) != want {
		return fmt.Errorf("data: %d samples of %d×%d×%d need %d floats, have %d", s.N, s.C, s.H, s.W, want, len(s.Floats))
	}
	if len(s.Labels) != s.N {
		return fmt.Errorf("data: %d samples need %d labels, have %d", s.N, s.N, len(s.Labels))
	}
	return nil
}

// Len is the number of samples.
func (s *Samples) Len() int { return s.N }

// Dim is the number of values per sample, C*H*W.
func (s *Samples) Dim() int { return s.C * s.H * s.W }

// IsFloat reports whether the samples are stored as float32.
func (s *Samples) IsFloat() bool { return s.Floats != nil }

// Bytes is the memory the sample values and labels take.
func (s *Samples) Bytes() int64 {
	return int64(len(s.Pixels)) + 4*int64(len(s.Floats)) + 4*int64(len(s.Labels))
}

func (s *Samples) String() string {
	kind := "uint8"
	if s.IsFloat() {
		kind = "float32"
	}
	return fmt.Sprintf("Samples{N: %d, shape: %d×%d×%d %s}", s.N, s.C, s.H, s.W, kind)
}

// At returns sample i as a view. It panics if i is out of range, as
// indexing a slice does.
func (s *Samples) At(i int) Sample {
	if i < 0 || i >= s.N {
		panic(fmt.Sprintf("data: sample index %d out of range [0, %d)", i, s.N))
	}
	d := s.Dim()
	out := Sample{C: s.C, H: s.H, W: s.W, Label: s.Labels[i]}
	if s.Floats != nil {
		out.Floats = s.Floats[i*d : (i+1)*d : (i+1)*d]
	} else {
		out.Pixels = s.Pixels[i*d : (i+1)*d : (i+1)*d]
	}
	return out
}

// Slice returns samples [i, j) as a view sharing s's storage. It panics if
// the range is invalid, as slicing does.
func (s *Samples) Slice(i, j int) *Samples {
	if i < 0 || j < i || j > s.N {
		panic(fmt.Sprintf("data: sample range [%d, %d) out of range [0, %d]", i, j, s.N))
	}
	d := s.Dim()
	out := &Samples{N: j - i, C: s.C, H: s.H, W: s.W, Labels: s.Labels[i:j:j], Classes: s.Classes}
	if s.Floats != nil {
		out.Floats = s.Floats[i*d : j*d : j*d]
	} else {
		out.Pixels = s.Pixels[i*d : j*d : j*d]
	}
	return out
}

// Subset copies the samples at the given indices, in that order, into a
// new set.
func (s *Samples) Subset(idx []int) (*Samples, error) {
	d := s.Dim()
	out := &Samples{N: len(idx), C: s.C, H: s.H, W: s.W, Labels: make([]float32, len(idx)), Classes: s.Classes}
	if s.Floats != nil {
		out.Floats = make([]float32, len(idx)*d)
	} else {
		out.Pixels = make([]uint8, len(idx)*d)
	}
	for k, i := range idx {
		if i < 0 || i >= s.N {
			return nil, fmt.Errorf("data: Subset: index %d (position %d) out of range [0, %d)", i, k, s.N)
		}
		if s.Floats != nil {
			copy(out.Floats[k*d:(k+1)*d], s.Floats[i*d:(i+1)*d])
		} else {
			copy(out.Pixels[k*d:(k+1)*d], s.Pixels[i*d:(i+1)*d])
		}
		out.Labels[k] = s.Labels[i]
	}
	return out, nil
}

// Concat joins sample sets of one shape and storage kind into a new set.
// The class names of the first set are kept.
func Concat(parts ...*Samples) (*Samples, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("data: Concat needs at least one sample set")
	}
	first := parts[0]
	n := 0
	for k, p := range parts {
		if p.C != first.C || p.H != first.H || p.W != first.W || p.IsFloat() != first.IsFloat() {
			return nil, fmt.Errorf("data: Concat: set %d is %v, set 0 is %v: shapes and storage must match", k, p, first)
		}
		n += p.N
	}
	out := &Samples{N: n, C: first.C, H: first.H, W: first.W, Labels: make([]float32, 0, n), Classes: first.Classes}
	if first.IsFloat() {
		out.Floats = make([]float32, 0, n*first.Dim())
	} else {
		out.Pixels = make([]uint8, 0, n*first.Dim())
	}
	for _, p := range parts {
		out.Floats = append(out.Floats, p.Floats...)
		out.Pixels = append(out.Pixels, p.Pixels...)
		out.Labels = append(out.Labels, p.Labels...)
	}
	if first.IsFloat() {
		out.Pixels = nil
	} else {
		out.Floats = nil
	}
	return out, nil
}

// CopyRange copies samples [i, j) into dst, transformed by tr (nil copies
// the values unchanged), and their labels into labels (nil skips labels).
// dst must hold (j-i)*tr.OutDim() values (s.Dim() when tr is nil). It does
// not allocate.
func (s *Samples) CopyRange(dst, labels []float32, i, j int, tr *Transformer) error {
	if i < 0 || j < i || j > s.N {
		return fmt.Errorf("data: CopyRange: sample range [%d, %d) out of range [0, %d]", i, j, s.N)
	}
	od, err := s.checkBatch(len(dst), len(labels), j-i, labels != nil, tr)
	if err != nil {
		return err
	}
	for k := i; k < j; k++ {
		if err := s.copyOne(dst[(k-i)*od:(k-i+1)*od], k, tr); err != nil {
			return err
		}
	}
	if labels != nil {
		copy(labels, s.Labels[i:j])
	}
	return nil
}

// CopyIndices copies the samples at idx into dst, transformed by tr (nil
// copies the values unchanged), and their labels into labels (nil skips
// labels). dst must hold len(idx)*tr.OutDim() values. It does not
// allocate.
func (s *Samples) CopyIndices(dst, labels []float32, idx []int, tr *Transformer) error {
	od, err := s.checkBatch(len(dst), len(labels), len(idx), labels != nil, tr)
	if err != nil {
		return err
	}
	for k, i := range idx {
		if i < 0 || i >= s.N {
			return fmt.Errorf("data: CopyIndices: index %d (position %d) out of range [0, %d)", i, k, s.N)
		}
		if err := s.copyOne(dst[k*od:(k+1)*od], i, tr); err != nil {
			return err
		}
		if labels != nil {
			labels[k] = s.Labels[i]
		}
	}
	return nil
}

// checkBatch checks buffer sizes for n samples and returns the output size
// of one sample.
func (s *Samples) checkBatch(ndst, nlabels, n int, wantLabels bool, tr *Transformer) (int, error) {
	od := s.Dim()
	if tr != nil {
		if tr.c != s.C || tr.h != s.H || tr.w != s.W {
			return 0, fmt.Errorf("data: transformer was made for %d×%d×%d samples, these are %d×%d×%d", tr.c, tr.h, tr.w, s.C, s.H, s.W)
		}
		od = tr.OutDim()
	}
	if ndst != n*od {
		return 0, fmt.Errorf("data: batch of %d samples of %d values needs a buffer of %d, have %d", n, od, n*od, ndst)
	}
	if wantLabels && nlabels != n {
		return 0, fmt.Errorf("data: batch of %d samples needs %d labels, have %d", n, n, nlabels)
	}
	return od, nil
}

// copyOne writes sample i into dst (already sized).
func (s *Samples) copyOne(dst []float32, i int, tr *Transformer) error {
	d := s.Dim()
	if tr != nil {
		if s.Floats != nil {
			return tr.ApplyFloats(dst, s.Floats[i*d:(i+1)*d])
		}
		return tr.ApplyBytes(dst, s.Pixels[i*d:(i+1)*d])
	}
	if s.Floats != nil {
		copy(dst, s.Floats[i*d:(i+1)*d])
		return nil
	}
	for k, p := range s.Pixels[i*d : (i+1)*d] {
		dst[k] = float32(p)
	}
	return nil
}
