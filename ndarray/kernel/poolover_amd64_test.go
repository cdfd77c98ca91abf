//go:build !noasm

package kernel

import (
	"fmt"
	"testing"

	"golang.org/x/sys/cpu"
)

// BenchmarkPoolPlanesWhole compares the AVX-512 max pooling kernels that
// load and store by opmasks (masked) with the whole-vector ones that the
// plane functions run on all but a call's last plane (whole), on
// LeNet's pool1 (2×2, 24×24 planes) and CIFAR-10 quick's pool1 (3×3,
// 32×32), a batch of planes in the cache (p64) and a batch larger than
// it, forward and gradient, in the thread's CPU µs per call.
//
//	go test -run '^$' -bench PoolPlanesWhole ./ndarray/kernel
func BenchmarkPoolPlanesWhole(b *testing.B) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasBMI2 {
		b.Skip("no AVX-512")
	}
	for _, s := range []struct {
		name          string
		planes, h, oh int
		k             int
	}{{"lenet-pool1", 1280, 24, 12, 2}, {"lenet-pool1", 64, 24, 12, 2}, {"cifar-pool1", 3200, 32, 16, 3}, {"cifar-pool1", 64, 32, 16, 3}} {
		hw, o := s.h*s.h, s.oh*s.oh
		x, dx := make([]float32, s.planes*hw), make([]float32, s.planes*hw)
		y, dy, mask := make([]float32, s.planes*o), make([]float32, s.planes*o), make([]int32, s.planes*o)
		for i := range x {
			x[i] = float32(i*7919%1000) / 1000
		}
		for i := range dy {
			dy[i] = float32(i%5) - 2
		}
		masked, whole := maxPool2s2AVX512, maxPool2s2Over512
		if s.k == 3 {
			masked, whole = maxPool3s2AVX512, maxPool3s2Over512
		}
		name := fmt.Sprintf("%s/p%d", s.name, s.planes)
		b.Run(name+"/fwd-masked", func(b *testing.B) {
			benchCPU(b, func() { masked(&y[0], &mask[0], &x[0], s.planes, s.h, s.h, s.oh, s.oh) })
		})
		b.Run(name+"/fwd-whole", func(b *testing.B) {
			benchCPU(b, func() { whole(y, mask, x, s.planes, s.h, s.h, s.oh, s.oh) })
		})
		if s.k == 2 {
			b.Run(name+"/bwd-masked", func(b *testing.B) {
				benchCPU(b, func() { maxPoolBack2s2AVX512(&dx[0], &dy[0], &mask[0], s.planes, s.h, s.h, s.oh, s.oh) })
			})
			b.Run(name+"/bwd-whole", func(b *testing.B) {
				benchCPU(b, func() { maxPoolBack2s2Over512(dx, dy, mask, s.planes, s.h, s.h, s.oh, s.oh) })
			})
		}
	}
}
