package kernel

import (
	"fmt"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray/kernel/internal/openblas"
)

// gemmShapes are the M×N×K products benchmarked: two squares and the
// products the convolutions of LeNet, CIFAR-10 quick and AlexNet make
// (output channels × output pixels × channels·kernel area).
var gemmShapes = []struct{ m, n, k int }{
	{256, 256, 256},
	{1024, 1024, 1024},
	{20, 36864, 25},
	{50, 4096, 500},
	{64, 500, 800},
	{96, 3025, 363},
	{128, 729, 1200},
	{32, 4096, 9216},
}

// BenchmarkSgemm runs every shape through benchGemm. With the openblas
// build tag, OpenBLAS's cblas_sgemm runs beside ours on the same operands:
//
//	go test -tags openblas -run '^$' -bench Sgemm ./ndarray/kernel
func BenchmarkSgemm(b *testing.B) {
	for _, s := range gemmShapes {
		b.Run(fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k), func(b *testing.B) {
			benchGemm(b, s.m, s.n, s.k)
		})
	}
}

// benchGemm times C = A*B (no transposes, beta 0) for an m×k A and k×n B,
// ours and, when built in, OpenBLAS's, on one and two threads, and reports
// GFLOP/s.
func benchGemm(b *testing.B, m, n, k int) {
	rng := newRand(1)
	x, y, z := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	type variant struct {
		name string
		run  func()
	}
	var variants []variant
	for _, threads := range []int{1, 2} {
		variants = append(variants, variant{fmt.Sprintf("ours-%dt", threads), func() {
			SgemmParallel(threads, false, false, m, n, k, 1, x, k, y, n, 0, z, n)
		}})
		if openblas.Available {
			variants = append(variants, variant{fmt.Sprintf("openblas-%dt", threads), func() {
				openblas.SetThreads(threads)
				openblas.Sgemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n)
			}})
		}
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			v.run()
			b.ResetTimer()
			for b.Loop() {
				v.run()
			}
			b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
