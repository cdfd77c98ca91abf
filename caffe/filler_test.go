package caffe

import (
	"math"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

func fillerOf(t *testing.T, text string) *caffepb.FillerParameter {
	t.Helper()
	def := parseLayerDef(t, `inner_product_param { weight_filler { `+text+` } }`)
	return def.GetInnerProductParam().GetWeightFiller()
}

func meanStd(v []float32) (mean, std float64) {
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (float64(x) - mean) * (float64(x) - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

func TestFillerDistributions(t *testing.T) {
	cases := []struct {
		name      string
		filler    string
		shape     []int
		mean, std float64
		lo, hi    float32
	}{
		{"constant", `type: "constant" value: 2.5`, []int{10, 10}, 2.5, 0, 2.5, 2.5},
		{"default", ``, []int{10}, 0, 0, 0, 0},
		{"uniform", `type: "uniform" min: -2 max: 4`, []int{100, 100}, 1, 6 / math.Sqrt(12), -2, 4},
		{"gaussian", `type: "gaussian" mean: 1 std: 3`, []int{100, 100}, 1, 3, -100, 100},
		// Conv weights [20, 10, 5, 5]: fan_in 250, fan_out 500.
		{"xavier", `type: "xavier"`, []int{20, 10, 5, 5}, 0, math.Sqrt(3.0/250) / math.Sqrt(3), -float32(math.Sqrt(3.0 / 250)), float32(math.Sqrt(3.0 / 250))},
		{"xavier-out", `type: "xavier" variance_norm: FAN_OUT`, []int{20, 10, 5, 5}, 0, math.Sqrt(3.0/500) / math.Sqrt(3), -float32(math.Sqrt(3.0 / 500)), float32(math.Sqrt(3.0 / 500))},
		{"msra", `type: "msra"`, []int{20, 10, 5, 5}, 0, math.Sqrt(2.0 / 250), -1, 1},
		{"msra-average", `type: "msra" variance_norm: AVERAGE`, []int{20, 10, 5, 5}, 0, math.Sqrt(2.0 / 375), -1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBlob(c.shape...)
			if err := FillBlob(b, fillerOf(t, c.filler), ndarray.NewRNG(1)); err != nil {
				t.Fatal(err)
			}
			mean, std := meanStd(b.DataSlice())
			tol := 0.05*c.std + 1e-6
			if math.Abs(mean-c.mean) > 4*c.std/math.Sqrt(float64(b.Count()))+1e-6 || math.Abs(std-c.std) > tol {
				t.Errorf("mean %.4f std %.4f, want %.4f and %.4f", mean, std, c.mean, c.std)
			}
			for _, v := range b.DataSlice() {
				if v < c.lo || v > c.hi {
					t.Fatalf("value %v outside [%v, %v]", v, c.lo, c.hi)
				}
			}
		})
	}
}

func TestFillerSparseGaussian(t *testing.T) {
	b := NewBlob(10, 1000) // 10 outputs: keep 3/10 of the values
	if err := FillBlob(b, fillerOf(t, `type: "gaussian" sparse: 3`), ndarray.NewRNG(2)); err != nil {
		t.Fatal(err)
	}
	zeros := 0
	for _, v := range b.DataSlice() {
		if v == 0 {
			zeros++
		}
	}
	if frac := float64(zeros) / float64(b.Count()); math.Abs(frac-0.7) > 0.02 {
		t.Errorf("%.3f of the values are zero, want about 0.7", frac)
	}
}

func TestFillerPositiveUnitball(t *testing.T) {
	b := NewBlob(4, 3, 5)
	if err := FillBlob(b, fillerOf(t, `type: "positive_unitball"`), ndarray.NewRNG(3)); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		var s float64
		for _, v := range b.DataSlice()[i*15 : (i+1)*15] {
			if v < 0 {
				t.Fatalf("negative value %v", v)
			}
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Errorf("slice %d sums to %v, want 1", i, s)
		}
	}
}

func TestFillerBilinear(t *testing.T) {
	b := NewBlob(1, 1, 4, 4)
	if err := FillBlob(b, fillerOf(t, `type: "bilinear"`), ndarray.NewRNG(4)); err != nil {
		t.Fatal(err)
	}
	// K = 4: f = 2, c = 0.75; the 1-D weights are 0.25 0.75 0.75 0.25.
	w := []float32{0.25, 0.75, 0.75, 0.25}
	for y := range 4 {
		for x := range 4 {
			if got, want := b.DataSlice()[y*4+x], w[y]*w[x]; math.Abs(float64(got-want)) > 1e-6 {
				t.Errorf("weight (%d,%d) = %v, want %v", y, x, got, want)
			}
		}
	}
	if err := FillBlob(NewBlob(1, 1, 3, 4), fillerOf(t, `type: "bilinear"`), ndarray.NewRNG(4)); err == nil {
		t.Error("a non-square bilinear kernel was accepted")
	}
}

func TestFillerErrors(t *testing.T) {
	cases := []struct{ filler, want string }{
		{`type: "gausian"`, `unknown filler type "gausian" (did you mean "gaussian"?); known types: constant, gaussian`},
		{`type: "uniform" sparse: 2`, "gaussian filler only"},
		{`type: "gaussian" sparse: -3`, "sparse"},
		{`type: "uniform" min: 2 max: 1`, "min 2 > max 1"},
	}
	for _, c := range cases {
		err := FillBlob(NewBlob(2, 2), fillerOf(t, c.filler), ndarray.NewRNG(1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.filler, err, c.want)
		}
	}
}

func TestFillerSameSeedSameValues(t *testing.T) {
	a, b := NewBlob(3, 4), NewBlob(3, 4)
	f := fillerOf(t, `type: "xavier"`)
	if err := FillBlob(a, f, ndarray.NewRNG(9)); err != nil {
		t.Fatal(err)
	}
	if err := FillBlob(b, f, ndarray.NewRNG(9)); err != nil {
		t.Fatal(err)
	}
	if !closeSlices(a.DataSlice(), b.DataSlice(), 0) {
		t.Error("the same seed gave different values")
	}
}
