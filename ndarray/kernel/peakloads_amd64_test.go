//go:build !noasm

package kernel

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// peakLoadProbes are the AVX-512 load probes (see the generator's
// buildPeakLoads): 24 chains of multiply-adds an iteration with loads
// from the first-level cache beside them.
var peakLoadProbes = []struct {
	name string
	run  func(n int, p *float32)
}{
	{"loads=0", fmaLoadsAVX512x0},
	{"loads=4", fmaLoadsAVX512x4},
	{"loads=8", fmaLoadsAVX512x8},
	{"loads=12", fmaLoadsAVX512x12},
	{"loads=24", fmaLoadsAVX512x24},
	{"memory-operands=24", fmaMemAVX512},
	{"broadcasts=24", fmaBcstAVX512},
}

// TestPeakLoadProbes runs every load probe and checks that it returns
// and leaves the memory it reads as it was (the probes keep their sums in
// registers and only read p).
func TestPeakLoadProbes(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	ones := peakOnes()
	for _, p := range peakLoadProbes {
		p.run(3, &ones[0])
	}
	for i, v := range ones {
		if v != 1 {
			t.Fatalf("ones[%d] = %v after the probes, want 1 (they only read it)", i, v)
		}
	}
}

// BenchmarkPeakLoads measures what vector loads beside the multiply-adds
// cost a core: the rate of 24 chains of 512-bit multiply-adds with 0 to
// 24 loads of 64 bytes an iteration (from the first-level cache, into
// registers no multiply-add reads), with each multiply-add reading a
// vector of memory, or a float broadcast, as a share of the FMA peak
// measured just before (MeasurePeak). Each runs about a millisecond a
// loop, so that the rate is the core's steady one: on the Intel Xeon the
// loads lower the clock, which a probe alternated with its reference in
// shorter turns hides by slowing both. The weight-gradient kernels of the
// direct convolution read 0.35 vectors a multiply-add (directGradRow: 14
// loads to 40), the forward tiles one broadcast:
//
//	go test -run '^$' -bench PeakLoads -benchtime 100x ./ndarray/kernel
func BenchmarkPeakLoads(b *testing.B) {
	if !cpu.X86.HasAVX512F {
		b.Skip("no AVX-512")
	}
	ones := peakOnes()
	const iters = 1 << 18
	for _, p := range peakLoadProbes {
		b.Run(p.name, func(b *testing.B) {
			benchFLOPs(b, 24*16*2*iters, func() { p.run(iters, &ones[0]) })
		})
	}
}

// peakOnes returns the vectors of ones the load probes read, one for
// each of their chains.
func peakOnes() []float32 {
	ones := HugePageFloats(24 * 16)
	for i := range ones {
		ones[i] = 1
	}
	return ones
}
