package caffe

import (
	"path/filepath"
	"testing"
)

// TestNetFLOPs checks the FLOP counts of Caffe's example nets against
// their multiply-adds counted by hand: LeNet's forward pass makes
// 20·24²·25 + 50·8²·500 + 500·800 + 10·500 = 2,293,000 per image, so
// 4.586 MFLOP, and a training iteration three times that less the input
// gradient of conv1, 13.182 MFLOP; CIFAR-10 quick's 12,354,176, so
// 24.708352 and 69.209856 MFLOP.
func TestNetFLOPs(t *testing.T) {
	for _, c := range []struct {
		model          string
		c, h, w, batch int
		fwd, train     float64 // MFLOP per image
	}{
		{"mnist/lenet_train_test.prototxt", 1, 28, 28, 64, 4.586, 13.182},
		{"cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, 100, 24.708352, 69.209856},
	} {
		t.Run(filepath.Base(c.model), func(t *testing.T) {
			s := benchSolver(t, c.model, c.c, c.h, c.w, 1)
			net := s.Net()
			fwd, bwd := net.FLOPs()
			b := float64(net.Blob("data").Dim(0))
			if b != float64(c.batch) {
				t.Fatalf("batch %v, want %d", b, c.batch)
			}
			gotF, gotT := float64(fwd)/b/1e6, float64(fwd+bwd)/b/1e6
			if d := gotF - c.fwd; d > 1e-4 || d < -1e-4 {
				t.Errorf("forward %.4f MFLOP/image, want %.4f", gotF, c.fwd)
			}
			if d := gotT - c.train; d > 1e-4 || d < -1e-4 {
				t.Errorf("training %.4f MFLOP/image, want %.4f", gotT, c.train)
			}
			// conv1 has no input gradient: its Backward is one product.
			f1, b1 := net.LayerFLOPs(indexOf(net.LayerNames(), "conv1"))
			if f1 == 0 || b1 != f1 {
				t.Errorf("conv1: forward %d, backward %d FLOPs; want equal and non-zero", f1, b1)
			}
			// Pooling counts nothing.
			if f, b := net.LayerFLOPs(indexOf(net.LayerNames(), "pool1")); f != 0 || b != 0 {
				t.Errorf("pool1: %d, %d FLOPs, want 0", f, b)
			}
		})
	}
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	panic("no layer " + name)
}
