//go:build !noasm

package kernel

import (
	"fmt"
	"testing"
)

// BenchmarkAvePoolSmall compares the plane kernels of 3×3, stride-2
// average pooling with the kernels that take several planes to a vector,
// on CIFAR-10 quick's pool2 and pool3 shapes (a batch of 100 and a
// cache-resident run of planes): forward and gradient, old and new.
func BenchmarkAvePoolSmall(b *testing.B) {
	for _, s := range []struct{ planes, h, oh int }{{3200, 16, 8}, {6400, 8, 4}, {64, 16, 8}, {128, 8, 4}} {
		hw, o := s.h*s.h, s.oh*s.oh
		x := make([]float32, s.planes*hw)
		y := make([]float32, s.planes*o)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		for i := range y {
			y[i] = float32(i%5) - 2
		}
		name := fmt.Sprintf("%dx%d/p%d", s.h, s.h, s.planes)
		b.Run(name+"/fwd-old", func(b *testing.B) {
			for b.Loop() {
				avePool3s2AVX512(&y[0], &x[0], s.planes, s.h, s.h, s.oh, s.oh)
			}
		})
		b.Run(name+"/fwd-new", func(b *testing.B) {
			for b.Loop() {
				avePool3s2Small512(y, x, s.planes, s.h, s.h, s.oh, s.oh)
			}
		})
		if s.h == 8 {
			b.Run(name+"/fwd-avx2-old", func(b *testing.B) {
				for b.Loop() {
					avePool3s2AVX2(&y[0], &x[0], s.planes, s.h, s.h, s.oh, s.oh)
				}
			})
			b.Run(name+"/fwd-avx2-new", func(b *testing.B) {
				for b.Loop() {
					avePool3s2Small256(y, x, s.planes, s.h, s.h, s.oh, s.oh)
				}
			})
		}
		b.Run(name+"/bwd-old", func(b *testing.B) {
			for b.Loop() {
				avePoolBack3s2AVX512(&x[0], &y[0], s.planes, s.h, s.h, s.oh, s.oh)
			}
		})
		b.Run(name+"/bwd-new", func(b *testing.B) {
			for b.Loop() {
				avePoolBack3s2Small512(x, y, s.planes, s.h, s.h, s.oh, s.oh)
			}
		})
	}
}
