package tool

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/caffe"
)

func init() {
	register(&command{
		name:    "time",
		summary: "time a net's forward and backward passes, layer by layer, as caffe time",
		usage:   "--model=NET.prototxt [--iterations=50] [--phase=TRAIN] [--data=KIND=DIR | --input-shape=BLOB=N,C,H,W...] [--threads=N] [--flops] [--train-profile=DURATION [--solver=SOLVER.prototxt]]",
		run:     runTime,
	})
}

func runTime(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	var nf netFlags
	nf.register(fs, "TRAIN")
	iterations := fs.Int("iterations", 50, "the number of forward-backward passes to time")
	threads := registerThreads(fs)
	flops := fs.Bool("flops", false, "also give every layer's CPU time, FLOPs and FLOP rate as a share of the FMA peak of a core, "+
		"measured in the same run by a probe beside the kernels")
	trainFor := fs.Duration("train-profile", 0, "then also train the net for this long (e.g. 10s) as sparknet train runs a solver "+
		"(layers fused, the update inside the backward pass; --solver's, or SGD) under a CPU profile, "+
		"and split a training iteration's CPU time by kind of work: convolution and inner product, pooling, activations, "+
		"the solver's update, …")
	solverPath := fs.String("solver", "", "with --train-profile, the solver definition whose update rule and settings train the net "+
		"(its own nets, tests and snapshots are left out); default SGD with lr 0.01, momentum 0.9, weight decay 5e-4")
	var data dataFlag
	fs.Var(&data, "data", dataUsage)
	shapes := shapeFlags{}
	fs.Var(shapes, "input-shape", "the shape of an input blob, BLOB=N,C,H,W (repeatable); a Data layer whose top is given a shape "+
		"is replaced by synthetic batches of that shape, so nets can be timed without their data")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *iterations <= 0 {
		return usageErrorf("--iterations must be positive, got %d", *iterations)
	}
	if *trainFor < 0 {
		return usageErrorf("--train-profile must not be negative, got %v", *trainFor)
	}
	if *solverPath != "" && *trainFor == 0 {
		return usageErrorf("--solver sets the solver of --train-profile, which is not given")
	}
	if *trainFor > 0 && !strings.EqualFold(nf.phase, "TRAIN") {
		return usageErrorf("--train-profile trains the net: it needs --phase=TRAIN, got %s", nf.phase)
	}
	net, err := nf.build(data.source, shapes, int(*threads), 0)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	fmt.Fprintf(stdout, "Testing for %d iterations, %d threads.\n", *iterations, net.Threads())
	t, err := caffe.TimeNet(ctx, net, caffe.TimeOptions{Iterations: *iterations, Peak: *flops, Each: func(it int, d time.Duration) {
		fmt.Fprintf(stdout, "Iteration: %d forward-backward time: %s ms.\n", it, ms(d, 1))
	}})
	if err != nil {
		return err
	}
	n := *iterations
	fmt.Fprintln(stdout, "Average time per layer: ")
	for _, l := range t.Layers {
		wino := ""
		if *flops && l.Winograd {
			wino = "\tWinograd"
		}
		fmt.Fprintf(stdout, "%10s\tforward: %s ms.%s%s\n", l.Name, ms(l.Forward.Wall, n), flopsColumn(*flops, t, l.ForwardFLOPs, l.Forward), wino)
		fmt.Fprintf(stdout, "%10s\tbackward: %s ms.%s%s\n", l.Name, ms(l.Backward.Wall, n), flopsColumn(*flops, t, l.BackwardFLOPs, l.Backward), wino)
	}
	fmt.Fprintf(stdout, "Average Forward pass: %s ms.\n", ms(t.Forward.Wall, n))
	fmt.Fprintf(stdout, "Average Backward pass: %s ms.\n", ms(t.Backward.Wall, n))
	fmt.Fprintf(stdout, "Average Forward-Backward: %s ms.\n", ms(t.Forward.Wall+t.Backward.Wall, n))
	fmt.Fprintf(stdout, "Total Time: %s ms.\n", ms(t.Total, 1))
	if b := t.Batch; b > 0 {
		per := (t.Forward.Wall + t.Backward.Wall).Seconds() / float64(n)
		fmt.Fprintf(stdout, "Batch %d: %.1f images/s forward-backward, %.1f images/s forward only.\n",
			b, float64(b)/per, float64(b)/(t.Forward.Wall.Seconds()/float64(n)))
	}
	if *flops {
		printPeakShare(stdout, t)
	}
	if *trainFor > 0 {
		return profileTraining(ctx, stdout, &nf, *solverPath, data.source, shapes, int(*threads), *trainFor)
	}
	return nil
}

// profileTraining builds a solver for the net and prints where its
// training iterations' CPU time goes (caffe.ProfileTraining).
func profileTraining(ctx context.Context, w io.Writer, nf *netFlags, solverPath, data string, shapes shapeFlags, threads int, d time.Duration) error {
	s, err := nf.buildSolver(solverPath, data, shapes, threads)
	if err != nil {
		return err
	}
	p, err := caffe.ProfileTraining(ctx, s, d)
	if err != nil {
		return err
	}
	it := p.Wall / time.Duration(p.Iterations)
	sp := s.Param()
	fmt.Fprintf(w, "Training under a CPU profile (%s, lr %s, momentum %s, weight decay %s; the layers fused and the update "+
		"placed as sparknet train runs them), %s: %d iterations, %s ms each, %d samples of 10 ms of CPU time.\n",
		sp.GetType(), formatValue(float64(sp.GetBaseLr())), formatValue(float64(sp.GetMomentum())), formatValue(float64(sp.GetWeightDecay())),
		threadCount(p.Threads), p.Iterations, ms(it, 1), p.Samples)
	fmt.Fprintln(w, "CPU time of a training iteration by kind of work:")
	for _, sh := range p.Shares {
		top := make([]string, len(sh.Top))
		for i, f := range sh.Top {
			top[i] = fmt.Sprintf("%s %.1f%%", f.Func, 100*f.Share)
		}
		fmt.Fprintf(w, "%30s\t%5.1f%%\t%s\n", sh.Work, 100*sh.Share, strings.Join(top, ", "))
	}
	fmt.Fprintf(w, "Outside convolution and inner product (the solver's update included): %.1f%%.\n", 100*(1-p.Share(caffe.WorkConvFC)))
	return nil
}

// flopsColumn is the --flops column of a layer's line: its CPU time (where
// measured), its FLOPs per iteration and their rate as a share of the
// peak; rates are per second of the thread's CPU time on one thread, of
// wall time on more.
func flopsColumn(on bool, t *caffe.NetTiming, flops int64, c caffe.Clock) string {
	if !on {
		return ""
	}
	s := ""
	if t.CPUClock != "" {
		s = fmt.Sprintf("\tcpu %s ms.", ms(c.CPU, t.Iterations))
	}
	if flops == 0 {
		return s
	}
	rate, cores := rateOf(t, flops, c)
	s += fmt.Sprintf("\t%.2f MFLOP\t%.1f GFLOP/s", float64(flops)/1e6, rate)
	if share := t.PeakShare(rate, cores); share > 0 {
		s += fmt.Sprintf("\t%.1f%% of peak", 100*share)
	}
	return s
}

// rateOf returns the rate of flops done in span c per iteration, and the
// cores to compare it with: per second of thread CPU time and one core
// on one thread, per second of wall time and Threads cores otherwise.
func rateOf(t *caffe.NetTiming, flops int64, c caffe.Clock) (float64, int) {
	if t.CPUClock == "thread" {
		return t.Rate(flops, c.CPU), 1
	}
	return t.Rate(flops, c.Wall), t.Threads
}

// printPeakShare prints the FMA peak, the net's FLOPs, the share of the
// peak its passes reach, and the share of the time spent outside the
// counted products.
func printPeakShare(w io.Writer, t *caffe.NetTiming) {
	p := t.Peak
	clock := "thread CPU time"
	if p.CPU <= 0 {
		clock = "wall time"
	}
	fmt.Fprintf(w, "FMA peak: %.1f GFLOP/s per core (%s: %s; %s of %d probes between the iterations).\n",
		p.GFLOPS(), p.Impl, p.Probe, clock, t.Iterations+1)
	fwd, bwd := t.FLOPs()
	fmt.Fprintf(w, "FLOPs per iteration: %.2f MFLOP forward, %.2f MFLOP backward", float64(fwd)/1e6, float64(bwd)/1e6)
	if t.Batch > 0 {
		fmt.Fprintf(w, " (%.3f MFLOP per image)", float64(fwd+bwd)/1e6/float64(t.Batch))
	}
	fmt.Fprintln(w, ".")
	all := t.Forward.Add(t.Backward)
	share := func(flops int64, c caffe.Clock) string {
		rate, cores := rateOf(t, flops, c)
		return fmt.Sprintf("%.1f%%", 100*t.PeakShare(rate, cores))
	}
	rate, _ := rateOf(t, fwd+bwd, all)
	switch t.CPUClock {
	case "thread":
		fmt.Fprintf(w, "Share of the FMA peak: forward %s, backward %s, forward-backward %s (%.1f GFLOP/s per second of thread CPU time, 1 thread).\n",
			share(fwd, t.Forward), share(bwd, t.Backward), share(fwd+bwd, all), rate)
	default:
		fmt.Fprintf(w, "Share of the FMA peak of %d cores: forward %s, backward %s, forward-backward %s (%.1f GFLOP/s of wall time, %d threads)",
			t.Threads, share(fwd, t.Forward), share(bwd, t.Backward), share(fwd+bwd, all), rate, t.Threads)
		if t.CPUClock == "process" {
			cpuRate := t.Rate(fwd+bwd, all.CPU)
			fmt.Fprintf(w, "; per second of process CPU time %.1f GFLOP/s, %.1f%% of one core's peak", cpuRate, 100*t.PeakShare(cpuRate, 1))
		}
		fmt.Fprintln(w, ".")
	}
	var products, total time.Duration
	for _, l := range t.Layers {
		c := l.Forward.Add(l.Backward)
		d := c.CPU
		if t.CPUClock == "" {
			d = c.Wall
		}
		total += d
		if l.ForwardFLOPs+l.BackwardFLOPs > 0 {
			products += d
		}
	}
	if total > 0 {
		fmt.Fprintf(w, "Layers with FLOPs (Convolution, Deconvolution, InnerProduct): %.1f%% of the time; other layers %.1f%%.\n",
			100*products.Seconds()/total.Seconds(), 100*(total-products).Seconds()/total.Seconds())
	}
	for _, l := range t.Layers {
		if l.Winograd {
			fmt.Fprintln(w, "Layers marked Winograd compute their forward pass and input gradient on Winograd's F(2×2, 3×3) or F(2×2, 5×5) "+
				"transforms, with 2.25 or 2.78 times fewer multiply-adds than their FLOPs, which count the direct convolution's.")
			break
		}
	}
}

// threadCount is "1 thread" or "N threads".
func threadCount(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

// ms formats d/n in milliseconds with Caffe's 6 significant digits.
func ms(d time.Duration, n int) string {
	return formatValue(d.Seconds() * 1000 / float64(n))
}
