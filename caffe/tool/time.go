package tool

import (
	"flag"
	"fmt"
	"io"
	"time"
)

func init() {
	register(&command{
		name:    "time",
		summary: "time a net's forward and backward passes, layer by layer, as caffe time",
		usage:   "--model=NET.prototxt [--iterations=50] [--phase=TRAIN] [--data=KIND=DIR | --input-shape=BLOB=N,C,H,W...] [--threads=N]",
		run:     runTime,
	})
}

func runTime(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	var nf netFlags
	nf.register(fs, "TRAIN")
	iterations := fs.Int("iterations", 50, "the number of forward-backward passes to time")
	threads := registerThreads(fs)
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
	net, err := nf.build(data.source, shapes, int(*threads), 0)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	nl := net.NumLayers()
	names := net.LayerNames()
	fmt.Fprintf(stdout, "Testing for %d iterations, %d threads.\n", *iterations, net.Threads())
	// One untimed pass, as Caffe's time does, so that buffers are sized.
	if _, err := net.ForwardBackward(); err != nil {
		return err
	}
	fwd := make([]time.Duration, nl)
	bwd := make([]time.Duration, nl)
	var fwdTotal, bwdTotal time.Duration
	start := time.Now()
	for it := 0; it < *iterations; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		iterStart := time.Now()
		for i := 0; i < nl; i++ {
			t := time.Now()
			if _, err := net.ForwardLayer(i); err != nil {
				return err
			}
			fwd[i] += time.Since(t)
		}
		mid := time.Now()
		fwdTotal += mid.Sub(iterStart)
		for i := nl - 1; i >= 0; i-- {
			t := time.Now()
			if err := net.BackwardLayer(i); err != nil {
				return err
			}
			bwd[i] += time.Since(t)
		}
		end := time.Now()
		bwdTotal += end.Sub(mid)
		fmt.Fprintf(stdout, "Iteration: %d forward-backward time: %s ms.\n", it+1, ms(end.Sub(iterStart), 1))
	}
	total := time.Since(start)
	n := *iterations
	fmt.Fprintln(stdout, "Average time per layer: ")
	for i := 0; i < nl; i++ {
		fmt.Fprintf(stdout, "%10s\tforward: %s ms.\n", names[i], ms(fwd[i], n))
		fmt.Fprintf(stdout, "%10s\tbackward: %s ms.\n", names[i], ms(bwd[i], n))
	}
	fmt.Fprintf(stdout, "Average Forward pass: %s ms.\n", ms(fwdTotal, n))
	fmt.Fprintf(stdout, "Average Backward pass: %s ms.\n", ms(bwdTotal, n))
	fmt.Fprintf(stdout, "Average Forward-Backward: %s ms.\n", ms(fwdTotal+bwdTotal, n))
	fmt.Fprintf(stdout, "Total Time: %s ms.\n", ms(total, 1))
	if b := batchSize(net); b > 0 {
		per := (fwdTotal + bwdTotal).Seconds() / float64(n)
		fmt.Fprintf(stdout, "Batch %d: %.1f images/s forward-backward, %.1f images/s forward only.\n",
			b, float64(b)/per, float64(b)/(fwdTotal.Seconds()/float64(n)))
	}
	return nil
}

// ms formats d/n in milliseconds with Caffe's 6 significant digits.
func ms(d time.Duration, n int) string {
	return formatValue(d.Seconds() * 1000 / float64(n))
}
