package ndarray

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestBFloat16(t *testing.T) {
	for _, tc := range []struct {
		x    float32
		want uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {0, 0}, {float32(math.Inf(1)), 0x7f80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // a tie: to even (down)
		{math.Float32frombits(0x3f818000), 0x3f82}, // a tie: to even (up)
		{math.Float32frombits(0x3f808001), 0x3f81}, // above the tie: up
		{3.1415927, 0x4049},
	} {
		if got := ToBFloat16(tc.x); got != tc.want {
			t.Errorf("ToBFloat16(%g) = %#04x, want %#04x", tc.x, got, tc.want)
		}
	}
	if v := FromBFloat16(ToBFloat16(float32(math.NaN()))); !math.IsNaN(float64(v)) {
		t.Errorf("NaN became %g", v)
	}
}

func TestFloat16(t *testing.T) {
	for _, tc := range []struct {
		x    float32
		want uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {0, 0}, {0.5, 0x3800}, {65504, 0x7bff},
		{1e6, 0x7bff}, {-1e6, 0xfbff}, {float32(math.Inf(1)), 0x7bff}, // saturated
		{6.1035156e-05, 0x0400}, // the smallest normal
		{5.9604645e-08, 0x0001}, // the smallest subnormal
		{2.9802322e-08, 0x0000}, // half of it: a tie, to even (zero)
		{4.4703484e-08, 0x0001}, // 0.75 of it: up
		{1.0009766, 0x3c01},     // 1 + 2^-10
		{1.0004883, 0x3c00},     // 1 + 2^-11: a tie, to even
		{1.0014648, 0x3c02},     // 1 + 3·2^-11: a tie, to even (up)
		{65519, 0x7bff},         // rounds to 65504
	} {
		if got := ToFloat16(tc.x); got != tc.want {
			t.Errorf("ToFloat16(%g) = %#04x, want %#04x", tc.x, got, tc.want)
		}
	}
	// Every half converts to float32 and back unchanged (NaNs stay NaNs).
	for h := 0; h < 1<<16; h++ {
		x := FromFloat16(uint16(h))
		if math.IsNaN(float64(x)) {
			if back := ToFloat16(x); back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, back)
			}
			continue
		}
		if math.IsInf(float64(x), 0) {
			continue // saturates, by design
		}
		if back := ToFloat16(x); back != uint16(h) {
			t.Fatalf("%#04x → %g → %#04x", h, x, back)
		}
	}
}

// Round then Encode and AddDecoded move the rounded values exactly, and
// Round is the nearest representable value.
func TestEncodingsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, 1000)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64()) * 0.01
		if i%7 == 0 {
			xs[i] = 0
		}
	}
	for _, enc := range []Encoding{BFloat16, Float16, Sparse} {
		r := append([]float32(nil), xs...)
		enc.Round(r)
		b := enc.Encode(nil, r)
		if len(b) != enc.EncodedLen(r) {
			t.Errorf("%s: Encode wrote %d bytes, EncodedLen says %d", enc, len(b), enc.EncodedLen(r))
		}
		sum := make([]float32, len(r))
		for i := range sum {
			sum[i] = 1
		}
		if err := enc.AddDecoded(sum, b); err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		worst := 0.0
		for i := range sum {
			if sum[i] != 1+r[i] {
				t.Fatalf("%s: value %d: decoded %g, want %g", enc, i, sum[i]-1, r[i])
			}
			if math.Abs(float64(xs[i])) > 1e-4 { // float16's normal range
				worst = math.Max(worst, math.Abs(float64(r[i]-xs[i]))/math.Abs(float64(xs[i])))
			}
		}
		limit := map[string]float64{"bfloat16": 1.0 / 256, "float16": 1.0 / 2048, "sparse": 0}[enc.String()]
		if worst > limit {
			t.Errorf("%s: relative rounding error up to %g, want at most %g", enc, worst, limit)
		}
	}
	if n := Sparse.EncodedLen(xs); n > 9*len(xs) {
		t.Errorf("sparse takes %d bytes for %d values", n, len(xs))
	}
}

func TestEncodingsCorrupt(t *testing.T) {
	sum := make([]float32, 10)
	for _, tc := range []struct {
		enc Encoding
		b   []byte
	}{
		{BFloat16, make([]byte, 19)},
		{Float16, make([]byte, 22)},
		{Sparse, nil},
		{Sparse, []byte{11}},                   // more nonzeros than values
		{Sparse, []byte{1, 10, 0, 0, 128, 63}}, // index 10 of 10
		{Sparse, []byte{1, 2, 0, 0}},           // cut short
		{Sparse, []byte{1, 2, 0, 0, 128, 63, 9}},
	} {
		if err := tc.enc.AddDecoded(sum, tc.b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s %v: error %v, want ErrCorrupt", tc.enc, tc.b, err)
		}
	}
}

func TestTopK(t *testing.T) {
	xs := []float32{0.5, -3, 2, 0, -2, 1, 3}
	TopK(xs, 3)
	want := []float32{0, -3, 2, 0, 0, 0, 3} // of the tied 2 and -2, the first
	for i := range xs {
		if xs[i] != want[i] {
			t.Fatalf("TopK: %v, want %v", xs, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	big := make([]float32, 100000)
	for i := range big {
		big[i] = float32(rng.NormFloat64())
	}
	kept := append([]float32(nil), big...)
	TopK(kept, 1000)
	n, smallestKept, largestDropped := 0, math.Inf(1), 0.0
	for i, x := range kept {
		m := math.Abs(float64(big[i]))
		if x != 0 {
			n++
			smallestKept = math.Min(smallestKept, m)
			if x != big[i] {
				t.Fatalf("TopK changed a kept value")
			}
		} else {
			largestDropped = math.Max(largestDropped, m)
		}
	}
	if n != 1000 || smallestKept < largestDropped {
		t.Errorf("TopK kept %d values, smallest %g, largest dropped %g", n, smallestKept, largestDropped)
	}
	all := []float32{1, 2}
	TopK(all, 5)
	none := []float32{1, 2}
	TopK(none, 0)
	if all[0] != 1 || none[0] != 0 || none[1] != 0 {
		t.Errorf("TopK with k >= len or 0: %v %v", all, none)
	}
}
