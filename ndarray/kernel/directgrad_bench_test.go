package kernel

import "testing"

// gradShapes are the convolutions (per group) whose weight gradient runs
// on the direct convolution in CIFAR-10 quick and AlexNet training.
var gradShapes = []struct {
	name               string
	c, h, w, m, k, pad int
}{
	{"cifar-conv2", 32, 16, 16, 32, 5, 2},
	{"cifar-conv3", 32, 8, 8, 64, 5, 2},
	{"alexnet-conv2", 48, 27, 27, 128, 5, 2},
	{"alexnet-conv3", 256, 13, 13, 384, 3, 1},
	{"alexnet-conv4", 192, 13, 13, 192, 3, 1},
	{"alexnet-conv5", 192, 13, 13, 128, 3, 1},
}

// BenchmarkDirectWeightGrad times the weight gradient of one block of
// images, single-threaded, on the output gradient in Caffe's layout
// (WeightGrad, which interleaves it) and on the one LoadGrad left for the
// input gradient (WeightGradLoaded), reporting the FLOP rate per second of
// the thread's CPU time and its share of the FMA peak:
//
//	go test -run '^$' -bench DirectWeightGrad ./ndarray/kernel
func BenchmarkDirectWeightGrad(b *testing.B) {
	for _, s := range gradShapes {
		for _, pass := range []string{"caffe", "loaded"} {
			b.Run(s.name+"/"+pass, func(b *testing.B) {
				d := NewDirectConv(s.c, s.h, s.w, s.m, 1, s.k, s.k, s.pad, s.pad)
				if d == nil {
					b.Skip("no direct convolution with these kernels")
				}
				L := d.Lanes()
				oh, ow := d.OutputSize()
				rng := newRand(1)
				x := randSlice(rng, L*s.c*s.h*s.w)
				dy := randSlice(rng, L*s.m*oh*ow)
				dw := make([]float32, s.m*s.c*s.k*s.k)
				sc := d.NewScratch()
				d.LoadGrad(sc, dy, L)
				run := func() { d.WeightGrad(sc, x, dy, L, dw) }
				if pass == "loaded" {
					run = func() { d.WeightGradLoaded(sc, x, L, dw) }
				}
				benchFLOPs(b, 2*float64(L*s.m*s.c*s.k*s.k*oh*ow), run)
			})
		}
	}
}
