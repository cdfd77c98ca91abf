//go:build !noasm

package kernel

import (
	"math"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestLRNSqrtAVX512Exhaustive compares the AVX-512 LRN kernels' square
// root with VSQRTPS for every significand at both parities of the exponent,
// at exponents across the range where the kernels use it (and the ends of
// it), and checks that values outside it, zero, infinities and NaN take
// VSQRTPS's results too.
func TestLRNSqrtAVX512Exhaustive(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	for _, e := range []int{-100, -64, -2, 0, 2, 30, 98} {
		lo := float32(math.Ldexp(1, e))
		hi := float32(math.Ldexp(1, e+2))
		if !lrnSqrtMatches(lo, hi, 1) {
			t.Errorf("lrnSqrtAVX512 differs from VSQRTPS in [2^%d, 2^%d)", e, e+2)
		}
	}
	if testing.Short() {
		return
	}
	if !lrnSqrtMatches(0x1p-100, 0x1p100, 1) {
		t.Errorf("lrnSqrtAVX512 differs from VSQRTPS in [2^-100, 2^100)")
	}
}

// TestLRNSqrtAVX512Edges checks the vectors with a lane outside the
// range of the estimate (zero, subnormals, huge values, infinity, NaN,
// negative values) against VSQRTPS, in every lane position.
func TestLRNSqrtAVX512Edges(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	edges := []float32{0, float32(math.Copysign(0, -1)), 1e-45, 1e-40, 0x1p-101, 0x1p-100, 0x1p100, 0x1p101, 3e38,
		float32(math.Inf(1)), float32(math.NaN()), -1, -0x1p-50}
	const n = 16*3 + 5
	for _, v := range edges {
		for pos := range n {
			x := make([]float32, n)
			for i := range x {
				x[i] = 1 + float32(i)*0.37
			}
			x[pos] = v
			got, want := make([]float32, n), make([]float32, n)
			lrnSqrtAVX512(got, x)
			sqrtAVX512(want, x)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("edge %g at %d: element %d: %#x, VSQRTPS %#x", v, pos, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}

// TestLRNAVX512Selected checks that this AVX-512 core passes the check
// lrnFor makes, so that the kernels the other tests compare run.
func TestLRNAVX512Selected(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	if lrnFor(avx512Vec) != avx512LRN {
		t.Fatal("the AVX-512 LRN kernels' square root failed its check on this core")
	}
}
