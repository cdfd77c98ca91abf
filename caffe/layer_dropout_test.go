package caffe

import (
	"math"
	"strconv"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

// TestDropoutKeepBelow checks, for every 24-bit draw, that the integer
// comparison keeps a value exactly when the draw's Float32 is below
// 1 − ratio.
func TestDropoutKeepBelow(t *testing.T) {
	for _, ratio := range []float32{0, 0.5, 0.25, 0.3, 0.1, 1e-7, 0.9999999, 1.0 / 3} {
		l, err := newDropout(parseLayerDef(t, `type: "Dropout"`), &LayerEnv{})
		if err != nil {
			t.Fatal(err)
		}
		d := l.(*Dropout)
		d.ratio = ratio
		d.keepBelow = uint64(math.Ceil(float64(1-ratio) * (1 << 24)))
		keep := 1 - ratio
		for u := range uint64(1 << 24) {
			want := float32(u)/(1<<24) < keep
			if got := u < d.keepBelow; got != want {
				t.Fatalf("ratio %g, draw %d: kept %v, want %v", ratio, u, got, want)
			}
		}
	}
}

// TestDropoutStream checks the masks against the stream's Float32 draws
// compared with 1 − ratio, over two passes, with the bits of the outputs
// and gradients those of v·scale or +0.
func TestDropoutStream(t *testing.T) {
	const n = 5003
	for _, ratio := range []float32{0.5, 0.3} {
		x, y := randBlob(4, -2, 2, n), NewBlob()
		x.DataSlice()[7] = float32(math.Copysign(0, -1))
		def := `type: "Dropout" dropout_param { dropout_ratio: ` + ftoa(ratio) + ` }`
		l := setupLayer(t, def, &LayerEnv{Phase: caffepb.Phase_TRAIN, Seed: 17}, blobs(x), blobs(y))
		ref := ndarray.NewRNG(17 ^ dropoutStream)
		scale := 1 / (1 - ratio)
		for pass := range 2 {
			if err := l.Forward(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			copy(y.DiffSlice(), randBlob(uint64(pass+5), -1, 1, n).DataSlice())
			l.Backward(blobs(y), []bool{true}, blobs(x))
			for i, v := range x.DataSlice() {
				wantY, wantDx := float32(0), float32(0)
				if ref.Float32() < 1-ratio {
					wantY, wantDx = v*scale, y.DiffSlice()[i]*scale
				}
				if math.Float32bits(y.DataSlice()[i]) != math.Float32bits(wantY) {
					t.Fatalf("ratio %g, pass %d: y[%d] = %g, want %g", ratio, pass, i, y.DataSlice()[i], wantY)
				}
				if math.Float32bits(x.DiffSlice()[i]) != math.Float32bits(wantDx) {
					t.Fatalf("ratio %g, pass %d: dx[%d] = %g, want %g", ratio, pass, i, x.DiffSlice()[i], wantDx)
				}
			}
		}
	}
}

func ftoa(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
