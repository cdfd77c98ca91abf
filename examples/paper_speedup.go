//go:build ignore

// # SparkNet's speedup study
//
// SparkNet ("Training Deep Networks in Spark", Moritz et al., ICLR 2016)
// asks when model averaging pays: K workers each run τ SGD steps on their
// own data between rounds of averaging, and every round costs a broadcast
// and a collection of the weights. The paper measured, for every (K, τ),
// the SGD steps per worker needed to reach a target test accuracy, and
// modelled the wall time under a communication overhead S per round:
//
//	T(K, τ, S) = rounds · (τ·C + S)
//
// where C is the compute time of one SGD step on one worker. The serial
// solver needs T = iterations · C with no communication at all; the
// speedup of (K, τ) is its time divided by T(K, τ, S). This notebook runs
// that study with sparknet's trainer on MNIST and LeNet, for S = 0, C,
// 10·C and 100·C.
//
//	go run ./cmd/sparknet-shell examples/paper_speedup.go [--full] [--out DIR]
//	go run ./cmd/sparknet-shell --notebook examples/paper_speedup.go --out speedup.md
//
// The default is a small study that takes minutes on two cores: K ∈ {1, 2,
// 4, 8}, τ ∈ {1, 5, 20, 50, 100}, target accuracy 0.97 on 2,000 test
// images, at most 1,500 iterations per worker, a test about every 50
// iterations. --full (or SPARKNET_SPEEDUP_FULL=1) runs the full study:
// target 0.99 on all 10,000 test images, at most 10,000 iterations, a test
// about every 200 (about 70 minutes on two cores). Environment variables change
// single settings (tests make the study tiny with them):
// SPARKNET_SPEEDUP_K and SPARKNET_SPEEDUP_TAU (comma-separated lists),
// SPARKNET_SPEEDUP_S (overheads as multiples of C), SPARKNET_SPEEDUP_TARGET,
// SPARKNET_SPEEDUP_BUDGET (iterations per worker), SPARKNET_SPEEDUP_TEST
// (test images), SPARKNET_SPEEDUP_EVERY (iterations between tests) and
// SPARKNET_SPEEDUP_OUT (the folder for paper_speedup.csv,
// paper_speedup_measured.csv and paper_speedup.png; default the working
// folder).
//
// Run under MPI, one rank per host, the study measures real communication:
//
//	sudo scripts/netcluster.sh 4 1gbit 0.1ms -- sparknet-shell --master mpi examples/paper_speedup.go

// %% Settings
import (
	"encoding/csv"
	"path/filepath"
)

full := os.Getenv("SPARKNET_SPEEDUP_FULL") != ""
outDir := os.Getenv("SPARKNET_SPEEDUP_OUT")
for i := 1; i < len(os.Args); i++ {
	switch arg := os.Args[i]; {
	case arg == "--full" || arg == "-full":
		full = true
	case (arg == "--out" || arg == "-out") && i+1 < len(os.Args):
		i++
		outDir = os.Args[i]
	case strings.HasPrefix(arg, "--out="):
		outDir = strings.TrimPrefix(arg, "--out=")
	default:
		fmt.Printf("paper_speedup: unknown argument %q; the arguments are --full and --out DIR\n", arg)
		os.Exit(2)
	}
}
if outDir == "" {
	outDir = "."
}

// numbers reads a comma-separated list of numbers >= 0 from the
// environment variable name, or returns def.
numbers := func(name string, def []float64) []float64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || x < 0 || math.IsInf(x, 0) {
			fmt.Printf("paper_speedup: %s=%q: want numbers >= 0 separated by commas\n", name, v)
			os.Exit(2)
		}
		out = append(out, x)
	}
	return out
}
number := func(name string, def float64) float64 { return numbers(name, []float64{def})[0] }
// ints reads a list of positive whole numbers.
ints := func(name string, def []int) []int {
	if os.Getenv(name) == "" {
		return def
	}
	var out []int
	for _, x := range numbers(name, nil) {
		if x < 1 || x != math.Trunc(x) {
			fmt.Printf("paper_speedup: %s=%q: want whole numbers >= 1\n", name, os.Getenv(name))
			os.Exit(2)
		}
		out = append(out, int(x))
	}
	return out
}

target, testN, budget, spacing := 0.97, 2000, 1500, 50
if full {
	target, testN, budget, spacing = 0.99, 10000, 10000, 200
}
Ks := ints("SPARKNET_SPEEDUP_K", []int{1, 2, 4, 8})
taus := ints("SPARKNET_SPEEDUP_TAU", []int{1, 5, 20, 50, 100})
overheads := numbers("SPARKNET_SPEEDUP_S", []float64{0, 1, 10, 100}) // S as multiples of C
target = number("SPARKNET_SPEEDUP_TARGET", target)
budget = int(number("SPARKNET_SPEEDUP_BUDGET", float64(budget)))
testN = int(number("SPARKNET_SPEEDUP_TEST", float64(testN)))
spacing = int(number("SPARKNET_SPEEDUP_EVERY", float64(spacing))) // iterations between tests
if spacing <= 0 || budget <= 0 || testN <= 0 {
	fmt.Println("paper_speedup: the budget, the test images and the test spacing must be positive")
	os.Exit(2)
}
// The serial solver is the baseline: K = 1 comes first.
hasOne := false
for _, k := range Ks {
	hasOne = hasOne || k == 1
}
if !hasOne {
	Ks = append([]int{1}, Ks...)
}
sort.Ints(Ks)
sort.Ints(taus)
const seed = 1
shownDir := outDir
if !sc.IsDriver() {
	// Under MPI every rank runs the study; rank 0 writes the files the
	// study names, the others write theirs where nobody reads them.
	tmp, err := os.MkdirTemp("", "paper_speedup")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	outDir = tmp
}
if err := os.MkdirAll(outDir, 0o755); err != nil {
	fmt.Println(err)
	os.Exit(1)
}
here := filepath.Dir(os.Args[0]) // this notebook's folder
if _, err := os.Stat(filepath.Join(here, "..", "scripts", "lenet_solver.prototxt")); err != nil {
	here = "examples" // loaded with :load from the repository's root
}
study := "small"
if full {
	study = "full"
}
fmt.Printf("%s study: K %v, τ %v, target accuracy %.4g on %d test images, at most %d iterations per worker, a test every %d iterations\n",
	study, Ks, taus, target, testN, budget, spacing)
fmt.Printf("%d workers (%s); output in %s\n", sc.Workers(), sc.Master(), shownDir)
studyStart := time.Now()

// %% The data and the net
// LeNet and its solver are the main job's (scripts/lenet_solver.prototxt:
// SGD with momentum 0.9, learning rate 0.01 with Caffe's "inv" policy,
// minibatches of 64). Every K splits the 60,000 training images into K
// cached partitions, one model replica each; with fewer workers than
// replicas, the workers run the replicas in turns, which changes the time
// a round takes here but not a single number the study measures.
solver, err := caffe.LoadSolverParameter(filepath.Join(here, "..", "scripts", "lenet_solver.prototxt"))
if err != nil {
	panic(err)
}
mnistDir, err := data.MNISTDir()
if err != nil {
	panic(err)
}
testSet, err := data.LoadMNIST(mnistDir, false)
if err != nil {
	panic(err)
}
if testN > testSet.Len() {
	testN = testSet.Len()
}
testRDD := sc.ParallelizeSamples(testSet.Slice(0, testN), sc.Workers()).Cache()
trainSets := map[int]*rdd.RDD{}
for _, k := range Ks {
	train, err := sc.MNIST(mnistDir, true, k)
	if err != nil {
		panic(err)
	}
	trainSets[k] = train.Cache()
}
fmt.Printf("training images: 60000 in %d splittings, test images: %d\n", len(Ks), testN)

// %% Measuring C
// C is the time of one SGD step of one replica on one worker. One replica
// over the whole training set runs a round to warm up (building the net),
// then three rounds of 50 steps; the fastest gives C, so that the modelled
// times do not depend on what else the machine was doing.
timer, err := sparknet.Parallelize(sc, solver, trainSets[1], sparknet.Options{Tau: 50, Seed: seed})
if err != nil {
	panic(err)
}
C := math.Inf(1)
for r := 0; r < 4; r++ {
	ev, err := timer.Round(ctx)
	if err != nil {
		panic(err)
	}
	if r > 0 {
		C = math.Min(C, ev.ComputeSeconds/float64(ev.Tau))
	}
}
timer.Close()
fmt.Printf("C = %.2f ms per step (LeNet, minibatch 64, one core)\n", C*1000)

// %% Steps to the target
// For every (K, τ) a fresh trainer, with the same seed, runs rounds until
// the averaged weights reach the target accuracy or the budget of
// iterations per worker runs out. Tests happen at round boundaries only,
// every ceil(spacing/τ) rounds, so runs with τ up to the spacing are
// tested at the same iterations; a larger τ is tested after every round.
// The iterations recorded are the trainer's global count (every worker's
// steps) at the first test that passes.
type outcome struct {
	K, Tau      int
	Iterations  int // iterations per worker at the first passing test
	Rounds      int
	Reached     bool
	Accuracy    float64 // at the first passing test, else the last test
	Train, Test float64 // seconds spent training and testing here
	Compute     float64 // of Train: the local iterations (the trainer's ComputeSeconds)
	Comm        float64 // of Train: broadcast and reduction (CommSeconds)
	Wall        time.Duration
	Curve       []float64 // test accuracies
	CurveIter   []float64 // and their iterations
}
results := map[string]*outcome{}
key := func(k, tau int) string { return fmt.Sprintf("%d/%d", k, tau) }

measure := func(k, tau int) *outcome {
	o := &outcome{K: k, Tau: tau}
	every := (spacing + tau - 1) / tau
	t, err := sparknet.Parallelize(sc, solver, trainSets[k], sparknet.Options{Tau: tau, Seed: seed, Test: testRDD, TestEvery: every})
	if err != nil {
		panic(err)
	}
	defer t.Close()
	start := time.Now()
	for t.Iter() < budget {
		ev, err := t.Round(ctx)
		if err != nil {
			panic(err)
		}
		o.Train += ev.ComputeSeconds + ev.CommSeconds
		o.Compute += ev.ComputeSeconds
		o.Comm += ev.CommSeconds
		res := ev.Test
		if res == nil && t.Iter() >= budget {
			r, err := t.Test(ctx, testRDD) // the budget's end is always tested
			if err != nil {
				panic(err)
			}
			res = &r
		}
		if res == nil {
			continue
		}
		o.Accuracy = res.Accuracy
		o.Curve = append(o.Curve, res.Accuracy)
		o.CurveIter = append(o.CurveIter, float64(t.Iter()))
		if res.Accuracy >= target {
			o.Reached = true
			break
		}
	}
	o.Iterations, o.Rounds = t.Iter(), t.RoundsDone()
	o.Wall = time.Since(start)
	o.Test = o.Wall.Seconds() - o.Train
	return o
}

for _, k := range Ks {
	for _, tau := range taus {
		o := measure(k, tau)
		results[key(k, tau)] = o
		status := fmt.Sprintf("reached %.4f after %d iterations (%d rounds)", o.Accuracy, o.Iterations, o.Rounds)
		if !o.Reached {
			status = fmt.Sprintf("not reached in %d iterations (last test %.4f)", o.Iterations, o.Accuracy)
		}
		fmt.Printf("K=%d τ=%-3d %s  [%s: train %.1fs, test %.1fs]\n", k, tau, status, display.FormatDuration(o.Wall), o.Train, o.Test)
	}
}

// %% The measured steps
// Iterations per worker to reach the target. Averaging K replicas lowers
// the noise of every step, so more workers can need fewer steps; a larger
// τ lets the replicas drift apart between averages, which can cost steps.
// The test accuracy is itself noisy (about ±0.4% on 2,000 images), and the
// target is reached at a test, so neighbouring cells also differ by a test
// interval or two by chance.
rowNames := make([]string, len(Ks))
for i, k := range Ks {
	rowNames[i] = strconv.Itoa(k)
}
colNames := make([]string, len(taus))
for j, tau := range taus {
	colNames[j] = strconv.Itoa(tau)
}
steps := display.NewHeatMap(fmt.Sprintf("iterations per worker to reach accuracy %.4g", target), rowNames, colNames)
steps.XLabel, steps.YLabel = "τ", "K"
steps.Format = "%.0f"
steps.Missing = fmt.Sprintf("> %d", budget)
for i, k := range Ks {
	for j, tau := range taus {
		if o := results[key(k, tau)]; o.Reached {
			steps.Set(i, j, float64(o.Iterations))
		}
	}
}
display.Show(steps.Table())
for _, k := range Ks {
	curves := display.NewFigure(fmt.Sprintf("test accuracy, K = %d", k))
	curves.XLabel, curves.YLabel = "iterations per worker", "accuracy"
	for _, tau := range taus {
		o := results[key(k, tau)]
		curves.LineXY(fmt.Sprintf("τ = %d", tau), o.CurveIter, o.Curve)
	}
	display.Show(curves)
}

// %% Modelled wall time and speedup
// The baseline is the serial solver: K = 1 with the smallest τ, whose
// averaging is a no-op, so it needs iterations·C. For K = 1 and a larger
// τ the steps are the same (up to where the tests fall) and only the
// overhead of the rounds slows it down. A cell is empty when the run
// missed the target within the budget, or when the baseline did. The
// colours share one scale: red below 1 (slower than the serial solver),
// blue above.
base := results[key(1, taus[0])]
serial := math.NaN()
if base.Reached {
	serial = float64(base.Iterations) * C
	fmt.Printf("baseline: %d serial iterations, %.2f s modelled\n", base.Iterations, serial)
} else {
	fmt.Printf("the serial baseline did not reach %.4g in %d iterations: no speedups (raise SPARKNET_SPEEDUP_BUDGET)\n", target, budget)
}
modelled := func(o *outcome, s float64) float64 {
	if !o.Reached {
		return math.NaN()
	}
	return float64(o.Rounds) * (float64(o.Tau)*C + s*C)
}
label := func(s float64) string {
	if s == 0 {
		return "S = 0"
	}
	if s == 1 {
		return "S = C"
	}
	return fmt.Sprintf("S = %gC", s)
}
var maps []*display.HeatMap
lo, hi := math.Inf(1), math.Inf(-1)
for _, s := range overheads {
	m := display.NewHeatMap(fmt.Sprintf("speedup over the serial solver, %s", label(s)), rowNames, colNames)
	m.XLabel, m.YLabel = "τ", "K"
	m.Log, m.Diverging = true, true
	for i, k := range Ks {
		for j, tau := range taus {
			v := serial / modelled(results[key(k, tau)], s)
			if !math.IsNaN(v) {
				m.Set(i, j, v)
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	maps = append(maps, m)
	display.Show(m.Table())
}
if lo < hi { // one colour scale for every panel: red below 1, blue above
	for _, m := range maps {
		m.Min, m.Max = lo, hi
	}
}

// %% Files
// paper_speedup.csv has one row per (K, τ, S) with the measured
// iterations and rounds, the modelled seconds and the speedup (empty where
// the target was missed); paper_speedup.png draws the speedup tables as
// heat maps, one panel per S.
csvPath := filepath.Join(outDir, "paper_speedup.csv")
f, err := os.Create(csvPath)
if err != nil {
	panic(err)
}
w := csv.NewWriter(f)
w.Write([]string{"K", "tau", "S_over_C", "iterations", "rounds", "modeled_seconds", "speedup"})
for _, s := range overheads {
	for _, k := range Ks {
		for _, tau := range taus {
			o := results[key(k, tau)]
			row := []string{strconv.Itoa(k), strconv.Itoa(tau), strconv.FormatFloat(s, 'g', -1, 64), "", "", "", ""}
			if o.Reached {
				t := modelled(o, s)
				row[3], row[4] = strconv.Itoa(o.Iterations), strconv.Itoa(o.Rounds)
				row[5] = strconv.FormatFloat(t, 'f', 4, 64)
				if !math.IsNaN(serial) {
					row[6] = strconv.FormatFloat(serial/t, 'f', 4, 64)
				}
			}
			w.Write(row)
		}
	}
}
w.Flush()
if err := w.Error(); err != nil {
	panic(err)
}
if err := f.Close(); err != nil {
	panic(err)
}
pngPath := filepath.Join(outDir, "paper_speedup.png")
panels := display.NewHeatMaps(fmt.Sprintf("SparkNet speedup on MNIST (accuracy %.4g, C = %.1f ms)", target, C*1000), maps...)
if err := panels.Save(pngPath); err != nil {
	panic(err)
}
fmt.Println("wrote", csvPath, "and", pngPath)

// %% Measured wall time
// The same runs, timed as they ran: the compute and communication time
// the trainer measured in every round until the target (tests left out).
// Under a local master the communication is in this process (plus any
// injected latency); under MPI it is real, and on a cluster of network
// namespaces (scripts/netcluster.sh) it crosses shaped links. When several
// hosts share fewer cores, as on one machine, every host computes slower
// than one core alone, so there are two columns: raw, the time as
// measured, and compute-normalised, rounds·τ·C plus the measured
// communication, as if every host had a core of its own. Both speedups
// divide the serial solver's iterations·C by them. S is the measured
// communication per round.
measuredPath := filepath.Join(outDir, "paper_speedup_measured.csv")
mf, err := os.Create(measuredPath)
if err != nil {
	panic(err)
}
mw := csv.NewWriter(mf)
mw.Write([]string{"K", "tau", "hosts", "master", "iterations", "rounds", "compute_seconds", "comm_seconds",
	"raw_seconds", "normalised_seconds", "S_seconds_per_round", "raw_speedup", "normalised_speedup"})
measured := display.NewTable("K", "τ", "rounds", "compute s", "comm s", "S per round", "raw s", "normalised s", "raw speedup", "normalised speedup")
for _, k := range Ks {
	for _, tau := range taus {
		o := results[key(k, tau)]
		if !o.Reached {
			mw.Write([]string{strconv.Itoa(k), strconv.Itoa(tau), strconv.Itoa(sc.Workers()), sc.Master(), "", "", "", "", "", "", "", "", ""})
			measured.Add(k, tau, "-", "-", "-", "-", "-", "-", "-", "-")
			continue
		}
		raw := o.Compute + o.Comm
		norm := float64(o.Rounds)*float64(tau)*C + o.Comm
		perRound := o.Comm / float64(o.Rounds)
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
		mw.Write([]string{strconv.Itoa(k), strconv.Itoa(tau), strconv.Itoa(sc.Workers()), sc.Master(), strconv.Itoa(o.Iterations), strconv.Itoa(o.Rounds),
			f(o.Compute), f(o.Comm), f(raw), f(norm), strconv.FormatFloat(perRound, 'g', 6, 64), f(serial / raw), f(serial / norm)})
		measured.Add(k, tau, o.Rounds, fmt.Sprintf("%.1f", o.Compute), fmt.Sprintf("%.1f", o.Comm), fmt.Sprintf("%.1f ms (%.1fC)", perRound*1000, perRound/C),
			fmt.Sprintf("%.1f", raw), fmt.Sprintf("%.1f", norm), fmt.Sprintf("%.2f×", serial/raw), fmt.Sprintf("%.2f×", serial/norm))
	}
}
mw.Flush()
if err := mw.Error(); err != nil {
	panic(err)
}
if err := mf.Close(); err != nil {
	panic(err)
}
fmt.Printf("**measured wall time on %d workers (%s), serial solver %.1f s**\n", sc.Workers(), sc.Master(), serial)
display.Show(measured)
fmt.Println("wrote", measuredPath)
fmt.Printf("the %s study took %s\n", study, display.FormatDuration(time.Since(studyStart)))

// %% The heat maps
// The speedup tables as one picture: red cells are slower than the serial
// solver, blue ones faster.
display.Show(panels)
