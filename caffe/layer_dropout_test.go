package caffe

import (
	"fmt"
	"math"
	"math/rand/v2"
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
//
// With several threads (a blob large enough to be cut into parts, each
// drawing from the stream moved on past the parts before it), the masks
// are the same: the stream of one thread, value after value, pass after
// pass.
func TestDropoutStream(t *testing.T) {
	for _, c := range []struct{ n, threads int }{{5003, 1}, {5003, 4}, {3*dropoutMinPart + 7, 2}, {3*dropoutMinPart + 7, 3}, {5 * dropoutMinPart, 8}} {
		t.Run(fmt.Sprintf("n=%d/threads=%d", c.n, c.threads), func(t *testing.T) { testDropoutStream(t, c.n, c.threads) })
	}
}

func testDropoutStream(t *testing.T, n, threads int) {
	for _, ratio := range []float32{0.5, 0.3} {
		x, y := randBlob(4, -2, 2, n), NewBlob()
		x.DataSlice()[7] = float32(math.Copysign(0, -1))
		def := `type: "Dropout" dropout_param { dropout_ratio: ` + ftoa(ratio) + ` }`
		l := setupLayer(t, def, &LayerEnv{Phase: caffepb.Phase_TRAIN, Seed: 17, Threads: threads}, blobs(x), blobs(y))
		if want := min(threads, max(1, n/dropoutMinPart)); l.(*Dropout).parts(n) != want {
			t.Fatalf("%d parts, want %d", l.(*Dropout).parts(n), want)
		}
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

// TestPCGJump checks the jumps of the dropout's stream against stepping
// math/rand/v2's PCG one draw at a time, from several states, by 0 to
// 300 steps and by a large count split into pieces.
func TestPCGJump(t *testing.T) {
	for _, seed := range [][2]uint64{{0, 0}, {1, 2}, {17 ^ dropoutStream, 17 ^ dropoutStream ^ 0x9e3779b97f4a7c15}, {^uint64(0), ^uint64(0)}} {
		var p rand.PCG
		p.Seed(seed[0], seed[1])
		for k := range uint64(301) {
			var q rand.PCG
			q.Seed(pcgJump(seed[0], seed[1], k))
			if got, want := q.Uint64(), p.Uint64(); got != want {
				t.Fatalf("seed %x: the draw after a jump of %d steps is %x, want %x", seed, k, got, want)
			}
		}
		// A jump of a+b steps is one of a, then one of b.
		const a, b = 1<<40 + 12345, 987654321
		h, l := pcgJump(seed[0], seed[1], a)
		h, l = pcgJump(h, l, b)
		if h2, l2 := pcgJump(seed[0], seed[1], a+b); h != h2 || l != l2 {
			t.Fatalf("seed %x: jumps of %d then %d reach %x %x, one of %d %x %x", seed, a, b, h, l, a+b, h2, l2)
		}
	}
}

func ftoa(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
