package tool

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	register(&command{
		name:    "train",
		summary: "train a net with a solver, as caffe train",
		usage:   "--solver=SOLVER.prototxt [--weights=A.caffemodel[,B...] | --snapshot=X.solverstate] [--iterations=N] [--data=KIND=DIR] [--threads=N]",
		run:     runTrain,
	})
}

func runTrain(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	solverPath := fs.String("solver", "", "the solver definition (.prototxt)")
	weights := fs.String("weights", "", "comma-separated .caffemodel files to start from (fine-tuning); layers are matched by name")
	snapshot := fs.String("snapshot", "", "a .solverstate to resume training from")
	iterations := fs.Int("iterations", 0, "train until this iteration instead of the solver's max_iter")
	threads := registerThreads(fs)
	prefix := fs.String("snapshot_prefix", "", "write snapshots under this prefix instead of the solver's snapshot_prefix")
	seed := fs.Uint64("seed", 0, "seed for the weights' fillers and the data (0: the solver's random_seed, else 0)")
	var data dataFlag
	fs.Var(&data, "data", dataUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *solverPath == "" {
		return usageErrorf("--solver is required")
	}
	if *weights != "" && *snapshot != "" {
		return usageErrorf("give --snapshot to resume training or --weights to fine-tune, not both")
	}
	solver, err := caffe.LoadSolverWith(*solverPath, caffe.SolverOptions{
		Threads: int(*threads), Seed: *seed, DataSource: data.source, SnapshotPrefix: *prefix,
	})
	if err != nil {
		return err
	}
	// Training here writes out weights and snapshots, never activations:
	// the fused convolutions need not store the outputs only their
	// poolings read (caffe.Net.SetKeepTops).
	solver.Net().SetKeepTops(false)
	sp := solver.Param()
	if sp.SolverMode != nil && sp.GetSolverMode() == caffepb.SolverParameter_GPU {
		fmt.Fprintf(stderr, "sparknet train: %s asks for solver_mode GPU; sparknet trains on the CPU (vectorised kernels, %d threads)\n", *solverPath, solver.Net().Threads())
	}
	if *iterations > 0 {
		n := int32(*iterations)
		sp.MaxIter = &n
	}
	kept, err := loadWeights(solver.Net(), *weights, func(w string, copied []string) {
		fmt.Fprintf(stdout, "Finetuning from %s: copied %s\n", w, strings.Join(copied, ", "))
	})
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		fmt.Fprintf(stdout, "Learning from scratch (not in the weights): %s\n", strings.Join(kept, ", "))
	}
	if *snapshot != "" {
		if err := solver.Restore(*snapshot); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Resuming from %s at iteration %d", *snapshot, solver.Iter())
		if w := solver.RestoredWeights(); w != "" {
			fmt.Fprintf(stdout, ", weights %s", w)
		}
		fmt.Fprintln(stdout)
	}
	ctx, stop := interruptible()
	defer stop()
	return train(ctx, solver, stdout)
}

// train runs a solver to its max_iter, printing Caffe's log lines.
func train(ctx context.Context, solver *caffe.Solver, w io.Writer) error {
	net := solver.Net()
	sp := solver.Param()
	fmt.Fprintf(w, "Solving %s\n", net.Name())
	fmt.Fprintf(w, "Learning Rate Policy: %s\n", sp.GetLrPolicy())
	batch := batchSize(net) * int(sp.GetIterSize())
	start, lastTime, lastIter := time.Now(), time.Now(), solver.Iter()
	firstIter := solver.Iter()
	var testTime time.Duration
	solver.OnTest(func(e caffe.TestEvent) {
		testTime += e.Elapsed
		fmt.Fprintf(w, "Iteration %d, Testing net (#%d)\n", e.Iter, e.Result.Net)
		for k, o := range e.Result.Outputs {
			fmt.Fprintf(w, "    Test net output #%d: %s\n", k, outputLine(o.Blob, o.Value, o.LossWeight))
		}
		if sp.GetTestComputeLoss() {
			fmt.Fprintf(w, "    Test loss: %s\n", formatValue(e.Result.Loss))
		}
	})
	solver.OnStep(func(e caffe.StepEvent) {
		if !e.Display {
			return
		}
		now := time.Now()
		if n := e.Iter - lastIter; n > 0 {
			el := now.Sub(lastTime).Seconds()
			fmt.Fprintf(w, "Iteration %d (%s iter/s, %ss/%d iters), loss = %s\n", e.Iter,
				formatValue(float64(n)/el), formatValue(el), n, formatValue(float64(e.SmoothedLoss)))
		} else {
			fmt.Fprintf(w, "Iteration %d, loss = %s\n", e.Iter, formatValue(float64(e.SmoothedLoss)))
		}
		k := 0
		for _, o := range e.Outputs {
			for _, v := range o.Values {
				fmt.Fprintf(w, "    Train net output #%d: %s\n", k, outputLine(o.Name, float64(v), o.LossWeight))
				k++
			}
		}
		fmt.Fprintf(w, "Iteration %d, lr = %s\n", e.Iter, formatValue(float64(e.LR)))
		lastTime, lastIter = now, e.Iter
	})
	solver.OnSnapshot(func(e caffe.SnapshotEvent) {
		fmt.Fprintf(w, "Snapshotting to binary proto file %s\n", e.Model)
		fmt.Fprintf(w, "Snapshotting solver state to binary proto file %s\n", e.SolverFile)
	})
	err := solver.Solve(ctx)
	total := time.Since(start)
	trainTime := total - testTime
	if errors.Is(err, context.Canceled) {
		if sp.GetSnapshotAfterTrain() {
			if _, _, serr := solver.Snapshot(); serr != nil {
				return serr
			}
		}
		fmt.Fprintln(w, "Optimization stopped early.")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "Optimization Done.")
	iters := solver.Iter() - firstIter
	if iters > 0 && batch > 0 {
		fmt.Fprintf(w, "Trained %d iterations of %d images in %.1f s (%.0f images/s); tests took %.1f s more\n",
			iters, batch, trainTime.Seconds(), float64(iters*batch)/trainTime.Seconds(), testTime.Seconds())
	}
	return nil
}

// batchSize returns the number of samples a net's first layer produces
// per pass: the first axis of its first top.
func batchSize(net *caffe.Net) int {
	for _, name := range net.BlobNames() {
		b := net.Blob(name)
		if b.NumAxes() > 0 {
			return b.Dim(0)
		}
	}
	return 0
}
