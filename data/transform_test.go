package data

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// refTransform is Caffe's DataTransformer written out for one sample with
// given crop offsets and mirror decision.
func refTransform(src []float32, c, h, w int, t Transform, hoff, woff int, mirror bool) []float32 {
	oh, ow := h, w
	if t.CropSize > 0 {
		oh, ow = t.CropSize, t.CropSize
	}
	scale := t.Scale
	if scale == 0 {
		scale = 1
	}
	out := make([]float32, c*oh*ow)
	for ch := 0; ch < c; ch++ {
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				di := (ch*h+hoff+y)*w + woff + x
				v := src[di]
				switch {
				case len(t.Mean) > 0:
					v -= t.Mean[di]
				case len(t.MeanValues) == 1:
					v -= t.MeanValues[0]
				case len(t.MeanValues) > 1:
					v -= t.MeanValues[ch]
				}
				ti := (ch*oh+y)*ow + x
				if mirror {
					ti = (ch*oh+y)*ow + ow - 1 - x
				}
				out[ti] = v * scale
			}
		}
	}
	return out
}

func TestTransformDeterministicCases(t *testing.T) {
	const c, h, w = 3, 5, 6
	src := make([]float32, c*h*w)
	pix := make([]uint8, c*h*w)
	for i := range src {
		pix[i] = uint8(i * 3)
		src[i] = float32(pix[i])
	}
	mean := make([]float32, c*h*w)
	for i := range mean {
		mean[i] = float32(i % 7)
	}
	tests := []struct {
		name       string
		t          Transform
		hoff, woff int
	}{
		{"identity", Transform{}, 0, 0},
		{"scale", Transform{Scale: 1.0 / 256}, 0, 0},
		{"one mean value", Transform{MeanValues: []float32{100}, Scale: 0.5}, 0, 0},
		{"mean per channel", Transform{MeanValues: []float32{1, 2, 3}}, 0, 0},
		{"mean array", Transform{Mean: mean, Scale: 2}, 0, 0},
		{"test crop centred", Transform{CropSize: 3}, 1, 1},
		{"test crop with mean", Transform{CropSize: 4, Mean: mean}, 0, 1},
		{"test crop rounds down", Transform{CropSize: 5}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := NewTransformer(tc.t, c, h, w)
			if err != nil {
				t.Fatal(err)
			}
			want := refTransform(src, c, h, w, tc.t, tc.hoff, tc.woff, false)
			got := make([]float32, tr.OutDim())
			if err := tr.ApplyBytes(got, pix); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("bytes: got %v\nwant %v", got, want)
			}
			if err := tr.ApplyFloats(got, src); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("floats: got %v\nwant %v", got, want)
			}
		})
	}
}

func TestTransformRandomCropMirror(t *testing.T) {
	const c, h, w = 2, 4, 5
	src := make([]float32, c*h*w)
	for i := range src {
		src[i] = float32(i)
	}
	tests := []struct {
		name  string
		t     Transform
		combs int // distinct (hoff, woff, mirror) outcomes
	}{
		{"train crop", Transform{CropSize: 3, Train: true}, 2 * 3},
		{"train crop mirror", Transform{CropSize: 3, Train: true, Mirror: true}, 2 * 3 * 2},
		{"mirror only", Transform{Mirror: true}, 2},
		{"test crop mirror", Transform{CropSize: 2, Mirror: true}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := NewTransformer(tc.t, c, h, w)
			if err != nil {
				t.Fatal(err)
			}
			// Every output must be one of the reference outcomes, and in
			// 400 draws every outcome should turn up.
			outcomes := map[string]bool{}
			var candidates [][]float32
			crop := tc.t.CropSize
			if crop == 0 {
				crop = min(h, w)
			}
			for hoff := 0; hoff <= h-crop; hoff++ {
				for woff := 0; woff <= w-crop; woff++ {
					for _, m := range []bool{false, true} {
						if !tc.t.Train && tc.t.CropSize > 0 && (hoff != (h-crop)/2 || woff != (w-crop)/2) {
							continue
						}
						if tc.t.CropSize == 0 && (hoff != 0 || woff != 0) {
							continue
						}
						if m && !tc.t.Mirror {
							continue
						}
						candidates = append(candidates, refTransform(src, c, h, w, tc.t, hoff, woff, m))
					}
				}
			}
			got := make([]float32, tr.OutDim())
			for i := 0; i < 400; i++ {
				if err := tr.ApplyFloats(got, src); err != nil {
					t.Fatal(err)
				}
				found := false
				for k, cand := range candidates {
					if reflect.DeepEqual(got, cand) {
						outcomes[fmt.Sprint(k)] = true
						found = true
					}
				}
				if !found {
					t.Fatalf("draw %d: output %v is no crop or mirror of the input", i, got)
				}
			}
			if len(outcomes) != tc.combs || len(candidates) != tc.combs {
				t.Errorf("saw %d of %d outcomes (%d candidates)", len(outcomes), tc.combs, len(candidates))
			}
		})
	}
}

func TestTransformSeed(t *testing.T) {
	draw := func(seed int64) []float32 {
		tr, err := NewTransformer(Transform{CropSize: 8, Mirror: true, Train: true, Seed: seed}, 1, 16, 16)
		if err != nil {
			t.Fatal(err)
		}
		src := make([]uint8, 256)
		for i := range src {
			src[i] = uint8(i)
		}
		var out []float32
		buf := make([]float32, 64)
		for i := 0; i < 20; i++ {
			tr.ApplyBytes(buf, src)
			out = append(out, buf...)
		}
		return out
	}
	if !reflect.DeepEqual(draw(7), draw(7)) {
		t.Error("equal seeds gave different crops")
	}
	if reflect.DeepEqual(draw(7), draw(8)) {
		t.Error("different seeds gave the same 20 crops")
	}
}

func TestTransformErrors(t *testing.T) {
	tests := []struct {
		name    string
		t       Transform
		c, h, w int
		msg     string
	}{
		{"crop too big", Transform{CropSize: 6}, 1, 5, 8, "crop_size 6"},
		{"negative crop", Transform{CropSize: -1}, 1, 5, 8, "crop_size -1"},
		{"mean and values", Transform{Mean: make([]float32, 4), MeanValues: []float32{1}}, 1, 2, 2, "not both"},
		{"mean size", Transform{Mean: make([]float32, 3)}, 1, 2, 2, "mean array has 3"},
		{"mean values count", Transform{MeanValues: []float32{1, 2}}, 3, 2, 2, "2 mean values for 3 channels"},
		{"bad shape", Transform{}, 0, 2, 2, "must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTransformer(tc.t, tc.c, tc.h, tc.w)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
	tr, _ := NewTransformer(Transform{CropSize: 2}, 1, 3, 3)
	if err := tr.ApplyBytes(make([]float32, 9), make([]uint8, 9)); err == nil {
		t.Error("uncropped destination for a cropping transformer: no error")
	}
}
