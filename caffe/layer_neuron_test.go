package caffe

import (
	"math"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func TestLayerNeuronForward(t *testing.T) {
	x := []float32{-2, -0.5, 0, 0.5, 3}
	sig := func(v float64) float32 { return float32(1 / (1 + math.Exp(-v))) }
	cases := []struct {
		name string
		def  string
		want []float32
	}{
		{"ReLU", `type: "ReLU"`, []float32{0, 0, 0, 0.5, 3}},
		{"ReLU/leaky", `type: "ReLU" relu_param { negative_slope: 0.1 }`, []float32{-0.2, -0.05, 0, 0.5, 3}},
		{"Sigmoid", `type: "Sigmoid"`, []float32{sig(-2), sig(-0.5), 0.5, sig(0.5), sig(3)}},
		{"TanH", `type: "TanH"`, []float32{float32(math.Tanh(-2)), float32(math.Tanh(-0.5)), 0, float32(math.Tanh(0.5)), float32(math.Tanh(3))}},
		{"AbsVal", `type: "AbsVal"`, []float32{2, 0.5, 0, 0.5, 3}},
		{"Power", `type: "Power" power_param { power: 2 scale: 2 shift: 1 }`, []float32{9, 0, 1, 4, 49}},
		{"Power/zero-power", `type: "Power" power_param { power: 0 scale: 2 shift: 5 }`, []float32{1, 1, 1, 1, 1}},
		{"Power/zero-scale", `type: "Power" power_param { power: 2 scale: 0 shift: 3 }`, []float32{9, 9, 9, 9, 9}},
		{"BNLL", `type: "BNLL"`, []float32{float32(math.Log1p(math.Exp(-2))), float32(math.Log1p(math.Exp(-0.5))), float32(math.Log(2)), float32(math.Log1p(math.Exp(0.5))), float32(math.Log1p(math.Exp(3)))}},
		{"Dropout/TEST", `type: "Dropout" phase: TEST`, x},
		{"ELU", `type: "ELU" elu_param { alpha: 0.5 }`, []float32{float32(0.5 * math.Expm1(-2)), float32(0.5 * math.Expm1(-0.5)), 0, 0.5, 3}},
		{"Exp", `type: "Exp"`, []float32{float32(math.Exp(-2)), float32(math.Exp(-0.5)), 1, float32(math.Exp(0.5)), float32(math.Exp(3))}},
		{"Exp/base2", `type: "Exp" exp_param { base: 2 scale: 2 shift: 1 }`, []float32{0.125, 1, 2, 4, 128}},
		{"Log/base10", `type: "Log" log_param { base: 10 scale: 2 shift: 5 }`, []float32{0, float32(math.Log10(4)), float32(math.Log10(5)), float32(math.Log10(6)), float32(math.Log10(11))}},
		{"Clip", `type: "Clip" clip_param { min: -1 max: 0.7 }`, []float32{-1, -0.5, 0, 0.5, 0.7}},
		{"Swish", `type: "Swish"`, []float32{-2 * sig(-2), -0.5 * sig(-0.5), 0, 0.5 * sig(0.5), 3 * sig(3)}},
		{"Threshold", `type: "Threshold" threshold_param { threshold: 0.2 }`, []float32{0, 0, 0, 1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, top := blobOf([]int{5}, x...), NewBlob()
			env := &LayerEnv{Phase: caffepb.Phase_TEST}
			l := setupLayer(t, c.def, env, blobs(b), blobs(top))
			if err := l.Forward(blobs(b), blobs(top)); err != nil {
				t.Fatal(err)
			}
			if !closeSlices(top.DataSlice(), c.want, 1e-6) {
				t.Errorf("got %v, want %v", top.DataSlice(), c.want)
			}
		})
	}
}

// TestLayerNeuronInPlace runs the layers that allow it in place and
// compares forward and backward with separate blobs.
func TestLayerNeuronInPlace(t *testing.T) {
	defs := []string{
		`type: "ReLU"`, `type: "ReLU" relu_param { negative_slope: 0.2 }`, `type: "Sigmoid"`, `type: "TanH"`,
		`type: "Dropout"`, `type: "Power" power_param { power: 1 scale: 3 shift: 1 }`,
		`type: "BatchNorm"`, `type: "Scale" scale_param { bias_term: true filler { type: "gaussian" } bias_filler { type: "gaussian" } }`,
		`type: "Bias" bias_param { filler { type: "gaussian" } }`, `type: "Softmax"`,
	}
	for _, def := range defs {
		t.Run(def, func(t *testing.T) {
			env := &LayerEnv{Phase: caffepb.Phase_TRAIN, Seed: 11}
			x := awayFromZeroBlob(1, 2, 3, 2)
			dy := randBlob(2, -1, 1, 2, 3, 2)

			sep, top := blobOf(x.Shape(), x.DataSlice()...), NewBlob()
			l1 := setupLayer(t, def, env, blobs(sep), blobs(top))
			if err := l1.Forward(blobs(sep), blobs(top)); err != nil {
				t.Fatal(err)
			}
			copy(top.DiffSlice(), dy.DataSlice())
			l1.Backward(blobs(top), []bool{true}, blobs(sep))

			in := blobOf(x.Shape(), x.DataSlice()...)
			l2 := setupLayer(t, def, env, blobs(in), blobs(in))
			if err := l2.Forward(blobs(in), blobs(in)); err != nil {
				t.Fatal(err)
			}
			if !closeSlices(in.DataSlice(), top.DataSlice(), 1e-6) {
				t.Fatalf("in-place forward %v, want %v", in.DataSlice(), top.DataSlice())
			}
			copy(in.DiffSlice(), dy.DataSlice())
			l2.Backward(blobs(in), []bool{true}, blobs(in))
			if !closeSlices(in.DiffSlice(), sep.DiffSlice(), 1e-5) {
				t.Errorf("in-place backward %v, want %v", in.DiffSlice(), sep.DiffSlice())
			}
			for i, p := range l2.Params() {
				if !closeSlices(p.DiffSlice(), l1.Params()[i].DiffSlice(), 1e-5) {
					t.Errorf("param %d gradient %v in place, want %v", i, p.DiffSlice(), l1.Params()[i].DiffSlice())
				}
			}
		})
	}
}

func TestLayerNeuronNotInPlace(t *testing.T) {
	for _, def := range []string{`type: "AbsVal"`, `type: "BNLL"`, `type: "Power" power_param { power: 2 }`, `type: "LRN"`} {
		l, err := NewLayer(parseLayerDef(t, def), nil)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBlob(1, 2, 2, 2)
		if err := l.Setup(blobs(b), blobs(b)); err == nil {
			t.Errorf("%s: in-place Setup succeeded", def)
		}
	}
}

func TestLayerDropout(t *testing.T) {
	const n = 20000
	x, y := NewBlob(n), NewBlob()
	fillFloats(x.DataSlice(), 1)
	l := setupLayer(t, `type: "Dropout" dropout_param { dropout_ratio: 0.25 }`, &LayerEnv{Phase: caffepb.Phase_TRAIN, Seed: 1}, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, v := range y.DataSlice() {
		switch v {
		case 0:
		case 1 / 0.75:
			kept++
		default:
			t.Fatalf("output %v, want 0 or %v", v, 1/0.75)
		}
	}
	if frac := float64(kept) / n; math.Abs(frac-0.75) > 0.02 {
		t.Errorf("kept %.3f of the values, want about 0.75", frac)
	}
	fillFloats(y.DiffSlice(), 3)
	l.Backward(blobs(y), []bool{true}, blobs(x))
	for i, g := range x.DiffSlice() {
		if want := y.DataSlice()[i] * 3; g != want {
			t.Fatalf("gradient %d = %v, want %v (same mask)", i, g, want)
		}
	}
	if _, err := NewLayer(parseLayerDef(t, `type: "Dropout" dropout_param { dropout_ratio: 1 }`), nil); err == nil {
		t.Error("dropout_ratio 1 accepted")
	}
}

// TestPReLUForward checks the default slope 0.25 per channel, and that a
// bottom without a channel axis is refused as Caffe refuses it.
func TestPReLUForward(t *testing.T) {
	b, top := blobOf([]int{1, 5}, -2, -0.5, 0, 0.5, 3), NewBlob()
	l := setupLayer(t, `type: "PReLU"`, &LayerEnv{Phase: caffepb.Phase_TEST}, blobs(b), blobs(top))
	if err := l.Forward(blobs(b), blobs(top)); err != nil {
		t.Fatal(err)
	}
	if want := []float32{-0.5, -0.125, 0, 0.5, 3}; !closeSlices(top.DataSlice(), want, 1e-6) {
		t.Errorf("got %v, want %v", top.DataSlice(), want)
	}
	if len(l.Params()) != 1 || l.Params()[0].Count() != 5 {
		t.Errorf("slopes: %d blobs", len(l.Params()))
	}
	def := parseLayerDef(t, `type: "PReLU"`)
	pl, err := newPReLU(def, &LayerEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Setup(blobs(blobOf([]int{3}, 1, 2, 3)), blobs(NewBlob())); err == nil {
		t.Error("a 1-axis bottom: no error")
	}
}
