package data

import (
	"reflect"
	"strings"
	"testing"
)

// testSamples returns n samples of c×h×w whose values encode their
// position (sample, channel, row, column) and whose labels are their
// indices.
func testSamples(t testing.TB, n, c, h, w int, floats bool) *Samples {
	t.Helper()
	s, err := NewSamples(n, c, h, w, floats)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n*c*h*w; i++ {
		if floats {
			s.Floats[i] = float32(i) + 0.5
		} else {
			s.Pixels[i] = uint8(i*7 + i/(c*h*w))
		}
	}
	for i := range s.Labels {
		s.Labels[i] = float32(i)
	}
	return s
}

// value is sample i's k-th value as float32.
func value(s *Samples, i, k int) float32 {
	if s.Floats != nil {
		return s.Floats[i*s.Dim()+k]
	}
	return float32(s.Pixels[i*s.Dim()+k])
}

func TestSamplesViews(t *testing.T) {
	for _, floats := range []bool{false, true} {
		s := testSamples(t, 10, 2, 3, 4, floats)
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		v := s.Slice(3, 7)
		if v.N != 4 || v.Labels[0] != 3 || value(v, 1, 5) != value(s, 4, 5) {
			t.Errorf("Slice(3, 7) = %v with labels %v", v, v.Labels)
		}
		a := s.At(9)
		if a.Label != 9 || !reflect.DeepEqual(a.Values(), values(s, 9)) {
			t.Errorf("At(9) = %+v", a)
		}
		idx := []int{9, 0, 4, 4}
		sub, err := s.Subset(idx)
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range idx {
			for j := 0; j < s.Dim(); j++ {
				if value(sub, k, j) != value(s, i, j) {
					t.Fatalf("Subset sample %d value %d = %v, want %v", k, j, value(sub, k, j), value(s, i, j))
				}
			}
			if sub.Labels[k] != float32(i) {
				t.Errorf("Subset label %d = %v, want %d", k, sub.Labels[k], i)
			}
		}
		if _, err := s.Subset([]int{10}); err == nil {
			t.Error("Subset out of range: no error")
		}
		cat, err := Concat(s.Slice(0, 3), s.Slice(3, 10))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cat, &Samples{N: 10, C: 2, H: 3, W: 4, Pixels: s.Pixels, Floats: s.Floats, Labels: s.Labels}) {
			t.Errorf("Concat of two slices differs from the whole")
		}
	}
}

// values returns sample i of s as float32 values, written out by hand for
// comparison with Sample.Values.
func values(s *Samples, i int) []float32 {
	out := make([]float32, s.Dim())
	for k := range out {
		out[k] = value(s, i, k)
	}
	return out
}

func TestSamplesValidate(t *testing.T) {
	tests := []struct {
		name string
		s    *Samples
		msg  string
	}{
		{"zero channels", &Samples{N: 1, C: 0, H: 1, W: 1, Pixels: []uint8{1}, Labels: []float32{0}}, "C, H, W >= 1"},
		{"both storages", &Samples{N: 1, C: 1, H: 1, W: 1, Pixels: []uint8{1}, Floats: []float32{1}, Labels: []float32{0}}, "exactly one"},
		{"short pixels", &Samples{N: 2, C: 1, H: 1, W: 2, Pixels: []uint8{1, 2, 3}, Labels: []float32{0, 0}}, "need 4 pixels"},
		{"short labels", &Samples{N: 2, C: 1, H: 1, W: 1, Floats: []float32{1, 2}, Labels: []float32{0}}, "need 2 labels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
	if _, err := Concat(testSamples(t, 1, 1, 2, 2, false), testSamples(t, 1, 1, 2, 2, true)); err == nil {
		t.Error("Concat of byte and float samples: no error")
	}
}

func TestCopyRangeAndIndices(t *testing.T) {
	s := testSamples(t, 6, 3, 2, 2, false)
	d := s.Dim()
	dst := make([]float32, 3*d)
	labels := make([]float32, 3)
	if err := s.CopyRange(dst, labels, 2, 5, nil); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		for j := 0; j < d; j++ {
			if dst[k*d+j] != value(s, 2+k, j) {
				t.Fatalf("CopyRange value (%d, %d) = %v, want %v", k, j, dst[k*d+j], value(s, 2+k, j))
			}
		}
	}
	if !reflect.DeepEqual(labels, []float32{2, 3, 4}) {
		t.Errorf("labels %v", labels)
	}
	idx := []int{5, 1, 5}
	if err := s.CopyIndices(dst, labels, idx, nil); err != nil {
		t.Fatal(err)
	}
	for k, i := range idx {
		for j := 0; j < d; j++ {
			if dst[k*d+j] != value(s, i, j) {
				t.Fatalf("CopyIndices value (%d, %d) = %v, want %v", k, j, dst[k*d+j], value(s, i, j))
			}
		}
	}
	errs := []struct {
		name string
		err  error
	}{
		{"range past end", s.CopyRange(dst, labels, 4, 7, nil)},
		{"small buffer", s.CopyRange(dst[:5], labels, 0, 3, nil)},
		{"few labels", s.CopyRange(dst, labels[:2], 0, 3, nil)},
		{"bad index", s.CopyIndices(dst, labels, []int{0, 6, 1}, nil)},
	}
	for _, e := range errs {
		if e.err == nil {
			t.Errorf("%s: no error", e.name)
		}
	}
	tr, err := NewTransformer(Transform{}, 1, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CopyRange(dst, labels, 0, 3, tr); err == nil {
		t.Error("transformer for another shape: no error")
	}
}
