package caffe

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/internal/alloctest"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// lrnPlanes is the cross-channel LRN computed a pass per primitive over
// each channel plane, as Caffe's CPU code orders the operations: the
// squares of n+1 channels in a ring, the running scale updated by Axpy,
// s^−β by powNeg and y by Mul; Backward the ratios dy·y/s of an image
// between zero planes, then the running window sum of them by Add and
// Axpy. The layer's fused kernels must give its results to the bit.
func lrnPlanes(x, y, pow []float32, num, chans, hw, size int, alpha, beta, k float32) {
	pre := (size - 1) / 2
	aos := alpha / float32(size)
	sq := make([]float32, (size+1)*hw)
	sc := make([]float32, hw)
	box := make([]float32, max(hw, 1))
	ring := func(ch int) []float32 {
		i := (ch%(size+1) + size + 1) % (size + 1)
		return sq[i*hw : (i+1)*hw]
	}
	for n := range num {
		img := x[n*chans*hw : (n+1)*chans*hw]
		square := func(ch int) []float32 {
			r := ring(ch)
			if ch < 0 || ch >= chans {
				clear(r)
			} else {
				kernel.Mul(r, img[ch*hw:(ch+1)*hw], img[ch*hw:(ch+1)*hw])
			}
			return r
		}
		for c := range chans {
			if c == 0 {
				fillFloats(sc, k)
				for ch := -pre; ch <= pre; ch++ {
					kernel.Axpy(aos, square(ch), sc)
				}
			} else {
				kernel.Axpy(aos, square(c+pre), sc)
				kernel.Axpy(-aos, ring(c-1-pre), sc)
			}
			off := (n*chans + c) * hw
			powNeg(pow[off:off+hw], sc, beta, box)
			kernel.Mul(y[off:off+hw], x[off:off+hw], pow[off:off+hw])
		}
	}
}

func lrnPlanesBackward(x, y, dy, dx, pow []float32, num, chans, hw, size int, alpha, beta, k float32) {
	pre := (size - 1) / 2
	aos := alpha / float32(size)
	ratio := 2 * alpha * beta / float32(size)
	padded := make([]float32, (chans+size-1)*hw)
	acc, t, sc := make([]float32, hw), make([]float32, hw), make([]float32, hw)
	for n := range num {
		i := n * chans * hw
		img := x[i : i+chans*hw]
		sqr := func(ch int) []float32 {
			if ch < 0 || ch >= chans {
				return make([]float32, hw)
			}
			r := make([]float32, hw)
			kernel.Mul(r, img[ch*hw:(ch+1)*hw], img[ch*hw:(ch+1)*hw])
			return r
		}
		for c := range chans {
			if c == 0 {
				fillFloats(sc, k)
				for ch := -pre; ch <= pre; ch++ {
					kernel.Axpy(aos, sqr(ch), sc)
				}
			} else {
				kernel.Axpy(aos, sqr(c+pre), sc)
				kernel.Axpy(-aos, sqr(c-1-pre), sc)
			}
			mid := padded[(pre+c)*hw : (pre+c+1)*hw]
			kernel.Mul(mid, dy[i+c*hw:i+(c+1)*hw], y[i+c*hw:i+(c+1)*hw])
			kernel.Div(mid, mid, sc)
		}
		clear(acc)
		for c := range size - 1 {
			kernel.Add(acc, acc, padded[c*hw:(c+1)*hw])
		}
		for c := range chans {
			o := i + c*hw
			kernel.Add(acc, acc, padded[(c+size-1)*hw:(c+size)*hw])
			kernel.Mul(dx[o:o+hw], dy[o:o+hw], pow[o:o+hw])
			kernel.Mul(t, x[o:o+hw], acc)
			kernel.Axpy(-ratio, t, dx[o:o+hw])
			kernel.Axpy(-1, padded[c*hw:(c+1)*hw], acc)
		}
	}
}

// TestLayerLRNBitExact checks the cross-channel LRN's forward and
// backward against lrnPlanes bit for bit, on one and two threads, for
// every kernel implementation.
func TestLayerLRNBitExact(t *testing.T) {
	cases := []struct {
		size               int
		alpha, beta, k     float32
		num, chans, height int
		width              int
	}{
		{5, 1e-4, 0.75, 1, 3, 11, 5, 7},  // AlexNet's parameters
		{5, 0.3, 0.75, 2, 2, 3, 4, 5},    // fewer channels than the window
		{3, 0.5, 0.6, 2, 2, 6, 3, 33},    // general β
		{5, 2, 0.75, 1, 2, 16, 6, 6},     // large α
		{7, 0.1, 0.5, 1.5, 1, 9, 17, 3},  // β = ½
		{1, 0.1, 0.75, 1, 2, 4, 2, 2},    // a window of one channel
		{5, 1e-4, 0.75, 1, 2, 20, 1, 41}, // a plane of odd length
		{5, 1e-4, 0.75, 1, 2, 7, 23, 29}, // planes in two chunks
		{3, 0.2, 0.6, 1, 1, 4, 33, 35},   // in three chunks, general β
	}
	for _, impl := range kernel.Implementations() {
		prev, err := kernel.SetImplementation(impl)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			for _, threads := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/%d/%dt", impl, i, threads), func(t *testing.T) {
					def := fmt.Sprintf(`type: "LRN" lrn_param { local_size: %d alpha: %g beta: %g k: %g }`, c.size, c.alpha, c.beta, c.k)
					shape := []int{c.num, c.chans, c.height, c.width}
					x, y := randBlob(uint64(i+3), -3, 3, shape...), NewBlob()
					xs := x.DataSlice()
					xs[0], xs[len(xs)/2] = 0, float32(math.Copysign(0, -1))
					l := setupLayer(t, def, &LayerEnv{Phase: caffepb.Phase_TRAIN, Threads: threads}, blobs(x), blobs(y))
					if err := l.Forward(blobs(x), blobs(y)); err != nil {
						t.Fatal(err)
					}
					hw := c.height * c.width
					wantY, wantPow := make([]float32, x.Count()), make([]float32, x.Count())
					lrnPlanes(xs, wantY, wantPow, c.num, c.chans, hw, c.size, c.alpha, c.beta, c.k)
					bitsEqual(t, "y", y.DataSlice(), wantY)
					copy(y.DiffSlice(), randBlob(uint64(i+40), -1, 1, shape...).DataSlice())
					dys := y.DiffSlice()
					dys[1], dys[len(dys)-1] = 0, float32(math.Copysign(0, -1))
					l.Backward(blobs(y), []bool{true}, blobs(x))
					wantDx := make([]float32, x.Count())
					lrnPlanesBackward(xs, wantY, y.DiffSlice(), wantDx, wantPow, c.num, c.chans, hw, c.size, c.alpha, c.beta, c.k)
					bitsEqual(t, "dx", x.DiffSlice(), wantDx)
					// Through the gradient of an in-place ReLU that wrote x
					// (as the net sets it up after a fused convolution).
					lrn := l.(*LRN)
					lrn.reluGrad = &ReLU{slope: 0.125}
					l.Backward(blobs(y), []bool{true}, blobs(x))
					kernel.ReluGrad(wantDx, wantDx, xs, 0.125)
					bitsEqual(t, "dx through the ReLU", x.DiffSlice(), wantDx)
					if !lrn.reluDone {
						t.Errorf("reluDone is false after Backward")
					}
					// The output recomputed from the input rather than read.
					lrn.topKept = true
					clear(x.DiffSlice())
					l.Backward(blobs(y), []bool{true}, blobs(x))
					bitsEqual(t, "dx, the output recomputed", x.DiffSlice(), wantDx)
				})
			}
		}
		kernel.SetImplementation(prev)
	}
}

// bitsEqual fails unless got and want hold the same bits.
func bitsEqual(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s[%d] = %g (%#x), want %g (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func TestLayerLRNDropoutAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, def := range []string{
		`type: "LRN" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }`,
		`type: "LRN" lrn_param { local_size: 3 beta: 0.6 }`,
		`type: "LRN" lrn_param { local_size: 3 norm_region: WITHIN_CHANNEL }`,
		`type: "Dropout" dropout_param { dropout_ratio: 0.5 }`,
	} {
		for _, threads := range []int{1, 2} {
			x, y := randBlob(1, -1, 1, 4, 8, 9, 9), NewBlob()
			l := setupLayer(t, def, &LayerEnv{Phase: caffepb.Phase_TRAIN, Threads: threads}, blobs(x), blobs(y))
			bs, ts, down := blobs(x), blobs(y), []bool{true}
			allocs, sites := alloctest.Count(5, func() {
				if err := l.Reshape(bs, ts); err != nil {
					t.Fatal(err)
				}
				if err := l.Forward(bs, ts); err != nil {
					t.Fatal(err)
				}
				l.Backward(ts, down, bs)
			})
			if allocs != 0 {
				t.Errorf("%s, %d threads: %v allocations per Reshape+Forward+Backward, want 0:%s", def, threads, allocs, alloctest.String(sites))
			}
		}
	}
}
