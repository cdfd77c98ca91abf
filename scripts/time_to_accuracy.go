//go:build ignore

// Wall time to a target test accuracy on MNIST: the plain Caffe solver on
// one core (K = 1) against SparkNet averaging with K replicas and τ local
// iterations per round, on this machine's workers.
//
//	go run ./cmd/sparknet-shell scripts/time_to_accuracy.go [target [max-iterations]]
//
// Every run starts from the same seed and tests on all 10,000 test images
// every 250 iterations per replica (the plain solver: every 250
// iterations); the time spent testing is not counted.

import (
	"path/filepath"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

target, budget := 0.99, 8000
if len(os.Args) > 1 {
	target, _ = strconv.ParseFloat(os.Args[1], 64)
}
if len(os.Args) > 2 {
	budget, _ = strconv.Atoi(os.Args[2])
}
const every = 250
here := filepath.Dir(os.Args[0])
solver, err := caffe.LoadSolverParameter(filepath.Join(here, "lenet_solver.prototxt"))
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
test, err := sc.MNIST("", false, sc.Workers())
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
test.Cache()

type outcome struct {
	name       string
	iterations int
	seconds    float64
	accuracy   float64
}
var results []outcome

// run trains with K replicas and τ until the target or the budget.
run := func(k, tau int) outcome {
	train, err := sc.MNIST("", true, k)
	if err != nil {
		panic(err)
	}
	t, err := sparknet.Parallelize(sc, solver, train.Cache(), sparknet.Options{Tau: tau, Seed: 1})
	if err != nil {
		panic(err)
	}
	defer t.Close()
	o := outcome{name: fmt.Sprintf("SparkNet K=%d tau=%d", k, tau)}
	for t.Iter() < budget {
		ev, err := t.Round(ctx)
		if err != nil {
			panic(err)
		}
		o.seconds += ev.ComputeSeconds + ev.CommSeconds
		if t.Iter()%every < tau || tau >= every {
			res, err := t.Test(ctx, test)
			if err != nil {
				panic(err)
			}
			o.iterations, o.accuracy = t.Iter(), res.Accuracy
			fmt.Printf("  %s: iteration %d, %.1fs, accuracy %.4f\n", o.name, o.iterations, o.seconds, o.accuracy)
			if res.Accuracy >= target {
				return o
			}
		}
	}
	return o
}

// plain is Caffe's solver alone on one core, with the same test schedule.
plain := func() outcome {
	all, err := data.LoadMNIST("", true)
	if err != nil {
		panic(err)
	}
	testSet, err := data.LoadMNIST("", false)
	if err != nil {
		panic(err)
	}
	var in []caffe.DataInput
	noTests := int32(0)
	solver.TestInterval = &noTests // this loop tests on its own schedule
	s, err := caffe.NewSolver(solver, caffe.SolverOptions{Threads: 1, Seed: 1,
		Rewrite: func(np *caffepb.NetParameter, st caffe.NetState) error {
			d, err := caffe.ReplaceDataLayers(np, 1, 28, 28)
			in = append(in, d...)
			return err
		}})
	if err != nil {
		panic(err)
	}
	feed := func(net *caffe.Net, samples *data.Samples, batch int) {
		md := net.MemoryDataLayers()[0]
		b, err := data.NewBatcher(samples, data.BatchOptions{Size: batch, Transform: data.Transform{Scale: 0.00390625}})
		if err != nil {
			panic(err)
		}
		md.SetFeeder(b.Next)
	}
	feed(s.Net(), all, 64)
	testNet := s.TestNets()[0]
	o := outcome{name: "Caffe solver, 1 core"}
	for s.Iter() < budget {
		start := time.Now()
		if err := s.Step(ctx, every); err != nil {
			panic(err)
		}
		o.seconds += time.Since(start).Seconds()
		feed(testNet, testSet, 100)
		res, err := caffe.EvaluateNet(ctx, testNet, 100)
		if err != nil {
			panic(err)
		}
		acc, _ := res.Get("accuracy")
		o.iterations, o.accuracy = s.Iter(), acc
		fmt.Printf("  %s: iteration %d, %.1fs, accuracy %.4f\n", o.name, o.iterations, o.seconds, o.accuracy)
		if acc >= target {
			break
		}
	}
	return o
}

fmt.Printf("time to %.4f test accuracy on MNIST, %d workers\n", target, sc.Workers())
results = append(results, plain())
for _, k := range []int{2, 4} {
	for _, tau := range []int{10, 50} {
		results = append(results, run(k, tau))
	}
}
fmt.Println()
fmt.Printf("%-24s %10s %10s %9s %8s\n", "run", "iters", "seconds", "accuracy", "speedup")
for _, o := range results {
	mark := ""
	if o.accuracy < target {
		mark = " (target not reached)"
	}
	fmt.Printf("%-24s %10d %10.1f %9.4f %7.2fx%s\n", o.name, o.iterations, o.seconds, o.accuracy, results[0].seconds/o.seconds, mark)
}
