package kernel

import (
	"runtime"
	"time"

	"github.com/sparknet-go/sparknet/internal/cputime"
)

// peakProbe is an implementation's FMA peak probe: run(n) performs n
// iterations of flops float32 operations (a multiply-add counting two)
// in independent chains held in registers.
type peakProbe struct {
	run   func(n int)
	flops int
	desc  string
}

// Peak is one measurement of the float32 multiply-add rate a core
// reaches with the kernels in use: the rate the matrix products and
// convolutions are measured against.
type Peak struct {
	Impl  string        // the kernels whose probe ran ("avx512", "avx2", "go")
	Probe string        // what the probe runs
	FLOPs float64       // operations performed, a multiply-add counting two
	CPU   time.Duration // CPU time of the thread that ran it (0 where not measured)
	Wall  time.Duration // wall-clock time
}

// GFLOPS returns the rate in GFLOP per second of the thread's CPU time,
// or of wall-clock time where the system has no thread clock. The CPU
// time rate is what one core reaches when it runs the probe alone; time
// that other processes take from the core does not lower it.
func (p Peak) GFLOPS() float64 {
	d := p.CPU
	if d <= 0 {
		d = p.Wall
	}
	if d <= 0 {
		return 0
	}
	return p.FLOPs / d.Seconds() / 1e9
}

// WallGFLOPS returns the rate in GFLOP per second of wall-clock time.
func (p Peak) WallGFLOPS() float64 {
	if p.Wall <= 0 {
		return 0
	}
	return p.FLOPs / p.Wall.Seconds() / 1e9
}

// MeasurePeak runs the FMA peak probe of the kernels in use (a loop of
// independent vector multiply-adds in registers, written in assembly
// beside the kernels) on the calling goroutine, locked to its OS thread,
// until the thread has used at least d of CPU time (of wall-clock time
// where there is no thread clock), and returns what it measured.
func MeasurePeak(d time.Duration) Peak {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	probe := active.peak
	// About 0.1 ms a chunk at 100 GFLOP/s.
	chunk := max(1, 10_000_000/probe.flops)
	probe.run(chunk) // warm up: the vector units may start at a lower rate
	p := Peak{Impl: active.name, Probe: probe.desc}
	wall0, cpu0 := time.Now(), cputime.Thread()
	measured := cputime.Supported()
	for iters := 0; ; iters += chunk {
		var spent time.Duration
		if measured {
			spent = cputime.Thread() - cpu0
		} else {
			spent = time.Since(wall0)
		}
		if spent >= d && iters > 0 {
			p.FLOPs = float64(iters) * float64(probe.flops)
			if measured {
				p.CPU = spent
			}
			p.Wall = time.Since(wall0)
			return p
		}
		probe.run(chunk)
	}
}

// peakGoFLOPs is the operations of one iteration of peakGo.
const peakGoFLOPs = 12 * 2

// peakGo is the portable implementation's probe: n iterations of 12
// independent float32 multiply-adds.
func peakGo(n int) {
	const a, b = 0.5, 1
	x0, x1, x2, x3, x4, x5 := float32(1), float32(1), float32(1), float32(1), float32(1), float32(1)
	x6, x7, x8, x9, x10, x11 := float32(1), float32(1), float32(1), float32(1), float32(1), float32(1)
	for range n {
		x0, x1, x2, x3 = x0*a+b, x1*a+b, x2*a+b, x3*a+b
		x4, x5, x6, x7 = x4*a+b, x5*a+b, x6*a+b, x7*a+b
		x8, x9, x10, x11 = x8*a+b, x9*a+b, x10*a+b, x11*a+b
	}
	peakSink = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11
}

// peakSink keeps peakGo's results alive.
var peakSink float32
