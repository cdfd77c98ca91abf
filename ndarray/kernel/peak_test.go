package kernel

import (
	"testing"
	"time"
)

// TestMeasurePeak runs every implementation's probe briefly and checks
// that it reports work done at a plausible rate.
func TestMeasurePeak(t *testing.T) {
	for _, name := range Implementations() {
		t.Run(name, func(t *testing.T) {
			prev, err := SetImplementation(name)
			if err != nil {
				t.Fatal(err)
			}
			defer SetImplementation(prev)
			p := MeasurePeak(2 * time.Millisecond)
			if p.Impl != name || p.Probe == "" {
				t.Errorf("measured %q (%q), want the %s probe", p.Impl, p.Probe, name)
			}
			// Between 0.1 GFLOP/s (a very slow or very busy machine)
			// and 10 TFLOP/s (far beyond any core).
			if g := p.GFLOPS(); g < 0.1 || g > 10000 || p.FLOPs <= 0 || p.Wall <= 0 {
				t.Errorf("%+v: %.1f GFLOP/s", p, g)
			}
		})
	}
}

// BenchmarkPeak reports every implementation's FMA peak, per second of
// the thread's CPU time (cpu-GFLOP/s) and of wall time.
func BenchmarkPeak(b *testing.B) {
	for _, name := range Implementations() {
		b.Run(name, func(b *testing.B) {
			prev, err := SetImplementation(name)
			if err != nil {
				b.Fatal(err)
			}
			defer SetImplementation(prev)
			var sum Peak
			for b.Loop() {
				p := MeasurePeak(10 * time.Millisecond)
				sum.FLOPs += p.FLOPs
				sum.CPU += p.CPU
				sum.Wall += p.Wall
			}
			b.ReportMetric(sum.GFLOPS(), "cpu-GFLOP/s")
			b.ReportMetric(sum.WallGFLOPS(), "GFLOP/s")
		})
	}
}
