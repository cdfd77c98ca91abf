package caffe

import (
	"math"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func TestLayerBatchNormBatchStats(t *testing.T) {
	// N=2, C=2, spatial 2: channel 0 holds 1,2,3,4 and channel 1 holds 10,10,10,30.
	x := blobOf([]int{2, 2, 2}, 1, 2, 10, 10, 3, 4, 10, 30)
	y := NewBlob()
	l := setupLayer(t, `type: "BatchNorm" batch_norm_param { moving_average_fraction: 0.5 eps: 0 }`,
		&LayerEnv{Phase: caffepb.Phase_TRAIN}, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	s0 := math.Sqrt(1.25) // channel 0: mean 2.5, biased variance 1.25
	s1 := math.Sqrt(75.0) // channel 1: mean 15, biased variance 75
	want := []float32{float32(-1.5 / s0), float32(-0.5 / s0), float32(-5 / s1), float32(-5 / s1),
		float32(0.5 / s0), float32(1.5 / s0), float32(-5 / s1), float32(15 / s1)}
	if !closeSlices(y.DataSlice(), want, 1e-5) {
		t.Errorf("output %v, want %v", y.DataSlice(), want)
	}
	p := l.Params()
	if len(p) != 3 {
		t.Fatalf("%d state blobs, want 3", len(p))
	}
	// After one pass: factor 1, mean sums = mean, variance = m/(m−1)·var.
	if !closeSlices(p[0].DataSlice(), []float32{2.5, 15}, 1e-6) || !closeSlices(p[1].DataSlice(), []float32{1.25 * 4 / 3, 100}, 1e-5) || p[2].DataSlice()[0] != 1 {
		t.Errorf("state %v %v %v", p[0].DataSlice(), p[1].DataSlice(), p[2].DataSlice())
	}
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	if !closeSlices(p[0].DataSlice(), []float32{2.5 * 1.5, 15 * 1.5}, 1e-6) || p[2].DataSlice()[0] != 1.5 {
		t.Errorf("state after two passes %v %v", p[0].DataSlice(), p[2].DataSlice())
	}
}

func TestLayerBatchNormGlobalStats(t *testing.T) {
	x, y := blobOf([]int{1, 2, 1, 1}, 3, 3), NewBlob()
	l := setupLayer(t, `type: "BatchNorm" batch_norm_param { eps: 0 }`, &LayerEnv{Phase: caffepb.Phase_TEST}, blobs(x), blobs(y))
	p := l.Params()
	copy(p[0].DataSlice(), []float32{2, 4}) // mean sums
	copy(p[1].DataSlice(), []float32{8, 2}) // variance sums
	p[2].DataSlice()[0] = 2                 // scale factor
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	// mean = [1 2], var = [4 1]
	if want := []float32{1, 1}; !closeSlices(y.DataSlice(), want, 1e-6) {
		t.Errorf("output %v, want %v", y.DataSlice(), want)
	}
	fillFloats(y.DiffSlice(), 1)
	l.Backward(blobs(y), []bool{true}, blobs(x))
	if want := []float32{0.5, 1}; !closeSlices(x.DiffSlice(), want, 1e-6) {
		t.Errorf("gradient %v, want %v", x.DiffSlice(), want)
	}
	if p[2].DataSlice()[0] != 2 {
		t.Error("global statistics changed the state")
	}
}

// BatchNorm is registered with NotLearned: a net gives its three
// statistics lr_mult 0 and refuses another.
func TestLayerBatchNormParams(t *testing.T) {
	def := mustProcess(t, input("x", 2, 3)+`layer { name: "bn" type: "BatchNorm" bottom: "x" top: "x" }`, NetState{Phase: Train})
	bn := def.Layer("bn")
	if len(bn.Params) != 3 {
		t.Fatalf("%d parameter blobs, want 3", len(bn.Params))
	}
	for _, id := range bn.Params {
		if p := def.Params[id]; p.LrMult != 0 {
			t.Errorf("parameter %d has lr_mult %g, want 0", p.Index, p.LrMult)
		}
	}
	_, err := ProcessNet(mustParseNet(t, input("x", 2, 3)+`layer { name: "bn" type: "BatchNorm" bottom: "x" top: "x" param { lr_mult: 1 } }`), NetState{Phase: Train})
	if err == nil || !strings.Contains(err.Error(), "lr_mult") {
		t.Errorf("learned statistics: %v", err)
	}
}
