package caffe

import (
	"context"
	"runtime"
	"time"

	"github.com/sparknet-go/sparknet/internal/cputime"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// Clock is a span of work measured on two clocks: wall-clock time and CPU
// time. With one thread the CPU time is that of the thread that ran the
// work, which time that other processes take from the core does not
// inflate; with more it is the CPU time of the whole process (workers
// waiting for work count too).
type Clock struct {
	Wall, CPU time.Duration
}

// Add returns the sum of two spans.
func (c Clock) Add(d Clock) Clock { return Clock{c.Wall + d.Wall, c.CPU + d.CPU} }

// LayerTiming is one layer's share of a NetTiming: its times summed over
// the timed iterations and the FLOPs of one pass.
type LayerTiming struct {
	Name, Type        string
	Forward, Backward Clock
	// ForwardFLOPs and BackwardFLOPs are the operations of one pass (see
	// Net.LayerFLOPs).
	ForwardFLOPs, BackwardFLOPs int64
	// Winograd tells that the layer (a convolution) computes its forward
	// pass and input gradient on Winograd's transforms, with 2.25 (3×3
	// kernels) or 2.78 (5×5) times fewer multiply-adds than the FLOPs
	// count (those of the direct convolution).
	Winograd bool
}

// NetTiming is what TimeNet measured.
type NetTiming struct {
	Iterations int
	Threads    int
	Batch      int // images per iteration (the first axis of the first input), 0 if unknown
	// CPUClock tells what the CPU times are: "thread" (one thread),
	// "process" (several) or "" where the system has no CPU clocks.
	CPUClock string
	Layers   []LayerTiming
	// Forward and Backward are the passes' times summed over the
	// iterations; Total is the whole run's wall time, peak probes
	// excluded.
	Forward, Backward Clock
	Total             time.Duration
	// Peak is the FMA peak of one core, measured by probes interleaved
	// with the iterations: their operations and times summed.
	Peak kernel.Peak
}

// TimeOptions configures TimeNet.
type TimeOptions struct {
	// Iterations is the number of timed forward-backward passes (after
	// one untimed pass that sizes the buffers); at least 1.
	Iterations int
	// Peak measures the FMA peak of a core with the kernels' probe,
	// before the first timed iteration and after every one, each probe
	// running for PeakProbe of CPU time (10 ms if 0).
	Peak      bool
	PeakProbe time.Duration
	// Each, if not nil, is called after every timed iteration with its
	// number (from 1) and its forward-backward wall time.
	Each func(iter int, d time.Duration)
}

// TimeNet times the net's forward and backward passes layer by layer, as
// Caffe's time command does, on wall-clock and CPU clocks, and counts
// their FLOPs; with opts.Peak it measures the FMA peak of a core in the
// same run, so that the net's FLOP rate can be given as a share of it.
// With one thread the calling goroutine is locked to its OS thread while
// it runs, so that the thread's CPU clock is the net's; with more, it is
// not (the process's CPU clock is read), since a locked goroutine that
// waits for the other threads is woken by a hand-off between OS threads,
// which training does not pay.
func TimeNet(ctx context.Context, net *Net, opts TimeOptions) (*NetTiming, error) {
	nl := net.NumLayers()
	t := &NetTiming{Iterations: max(1, opts.Iterations), Threads: net.Threads(), Layers: make([]LayerTiming, nl)}
	if t.Threads <= 1 {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	cpu := cputime.Thread
	switch {
	case !cputime.Supported():
		cpu = func() time.Duration { return 0 }
	case t.Threads > 1:
		t.CPUClock = "process"
		cpu = cputime.Process
	default:
		t.CPUClock = "thread"
	}
	if in := net.Inputs(); len(in) > 0 && net.Blob(in[0]).NumAxes() > 0 {
		t.Batch = net.Blob(in[0]).Dim(0)
	} else {
		t.Batch = firstBatch(net)
	}
	names := net.LayerNames()
	for i := range t.Layers {
		t.Layers[i].Name, t.Layers[i].Type = names[i], net.def.Layers[i].Type
	}
	// One untimed pass, as Caffe's time does, so that buffers are sized.
	if _, err := net.ForwardBackward(); err != nil {
		return nil, err
	}
	for i := range t.Layers {
		t.Layers[i].ForwardFLOPs, t.Layers[i].BackwardFLOPs = net.LayerFLOPs(i)
		if c, ok := net.layers[i].(*Convolution); ok {
			t.Layers[i].Winograd = c.winograd()
		}
	}
	probe := opts.PeakProbe
	if probe <= 0 {
		probe = 10 * time.Millisecond
	}
	measurePeak := func() {
		if !opts.Peak {
			return
		}
		p := kernel.MeasurePeak(probe)
		t.Peak.Impl, t.Peak.Probe = p.Impl, p.Probe
		t.Peak.FLOPs += p.FLOPs
		t.Peak.CPU += p.CPU
		t.Peak.Wall += p.Wall
	}
	stamp := func() Clock { return Clock{Wall: time.Duration(time.Now().UnixNano()), CPU: cpu()} }
	since := func(c Clock) Clock {
		now := stamp()
		return Clock{now.Wall - c.Wall, now.CPU - c.CPU}
	}
	measurePeak()
	for it := 1; it <= t.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		iterStart := stamp()
		for i := 0; i < nl; i++ {
			s := stamp()
			if _, err := net.ForwardLayer(i); err != nil {
				return nil, err
			}
			t.Layers[i].Forward = t.Layers[i].Forward.Add(since(s))
		}
		fwd := since(iterStart)
		mid := stamp()
		for i := nl - 1; i >= 0; i-- {
			s := stamp()
			if err := net.BackwardLayer(i); err != nil {
				return nil, err
			}
			t.Layers[i].Backward = t.Layers[i].Backward.Add(since(s))
		}
		bwd := since(mid)
		t.Forward, t.Backward = t.Forward.Add(fwd), t.Backward.Add(bwd)
		t.Total += fwd.Wall + bwd.Wall
		if opts.Each != nil {
			opts.Each(it, fwd.Wall+bwd.Wall)
		}
		measurePeak()
	}
	return t, nil
}

// firstBatch returns the first axis of the first blob with axes.
func firstBatch(net *Net) int {
	for _, name := range net.blobNames {
		if b := net.Blob(name); b.NumAxes() > 0 {
			return b.Dim(0)
		}
	}
	return 0
}

// FLOPs returns the operations of one forward and one backward pass.
func (t *NetTiming) FLOPs() (forward, backward int64) {
	for _, l := range t.Layers {
		forward += l.ForwardFLOPs
		backward += l.BackwardFLOPs
	}
	return forward, backward
}

// Rate returns the FLOP rate, in GFLOP/s, of flops operations done once
// per iteration in a span d summed over the iterations (the wall or the
// CPU time of a Clock), or 0 if d is not positive.
func (t *NetTiming) Rate(flops int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(flops) * float64(t.Iterations) / d.Seconds() / 1e9
}

// PeakShare returns a rate in GFLOP/s as a share (0 to 1) of the FMA
// peak of cores cores, or 0 if the peak was not measured. A rate per
// second of CPU time compares with one core (cores = 1), a rate per
// second of wall time with the cores the net ran on (cores = Threads).
func (t *NetTiming) PeakShare(gflops float64, cores int) float64 {
	p := t.Peak.GFLOPS()
	if p <= 0 {
		return 0
	}
	return gflops / (p * float64(max(1, cores)))
}
