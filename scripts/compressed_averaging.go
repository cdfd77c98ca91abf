//go:build ignore

// Compressed averaging against plain averaging on the README's main job
// (LeNet on MNIST, one replica per worker, seed 1): for every compression
// the same rounds from the same start, then the bytes a round moved and
// the test accuracy on all 10,000 test images, side by side.
//
//	sparknet-shell scripts/compressed_averaging.go [ROUNDS [TAU [COMPRESSIONS [CSV]]]]
//
// COMPRESSIONS is a comma-separated list of sparknet.ParseCompression's
// names (default none,bfloat16,float16,top-1%); the first is the
// reference the others are compared with. Bytes per round are the
// trainer's: every replica's (compressed) report plus the (compressed)
// sum sent back to every replica (RoundEvent.BytesMoved). Under MPI
// (sparknet-shell --master mpi, as under scripts/netcluster.sh) the
// replicas' changes cross the processes in the compressed form; the
// bytes on the wire are what scripts/netbench.go measures.

import (
	"encoding/csv"
	"path/filepath"
)

rounds, tau, list, csvPath := 100, 50, "none,bfloat16,float16,top-1%", ""
if len(os.Args) > 1 {
	rounds, _ = strconv.Atoi(os.Args[1])
}
if len(os.Args) > 2 {
	tau, _ = strconv.Atoi(os.Args[2])
}
if len(os.Args) > 3 {
	list = os.Args[3]
}
if len(os.Args) > 4 {
	csvPath = os.Args[4]
}
if rounds < 1 || tau < 1 {
	fmt.Println("compressed_averaging: want at least 1 round and tau >= 1")
	os.Exit(2)
}
var kinds []sparknet.Compression
for _, name := range strings.Split(list, ",") {
	c, err := sparknet.ParseCompression(strings.TrimSpace(name))
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	kinds = append(kinds, c)
}
here := filepath.Dir(os.Args[0])
solver, err := caffe.LoadSolverParameter(filepath.Join(here, "lenet_solver.prototxt"))
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
train, err := sc.MNIST("", true, sc.Workers())
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
test, err := sc.MNIST("", false, sc.Workers())
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
train, test = train.Cache(), test.Cache()
fmt.Printf("LeNet on MNIST: %d replicas (%s), %d rounds of %d local iterations, compressions %s\n",
	train.NumPartitions(), sc.Master(), rounds, tau, list)

type outcome struct {
	name             string
	bytes            float64 // per round
	accuracy, loss   float64
	compute, comm    float64
}
var outs []outcome
for _, c := range kinds {
	trainer, err := sparknet.Parallelize(sc, solver, train, sparknet.Options{Tau: tau, Seed: 1, Compress: c})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	o := outcome{name: c.String()}
	for i := 0; i < rounds; i++ {
		ev, err := trainer.Round(ctx)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		o.bytes += float64(ev.BytesMoved) / float64(rounds)
		o.compute += ev.ComputeSeconds
		o.comm += ev.CommSeconds
	}
	res, err := trainer.Test(ctx, test)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	o.accuracy, o.loss = res.Accuracy, res.Loss
	trainer.Close()
	outs = append(outs, o)
	fmt.Printf("%-9s %10.0f bytes per round  test accuracy %.4f  loss %.4f  (compute %.0fs, communication %.1fs)\n",
		o.name, o.bytes, o.accuracy, o.loss, o.compute, o.comm)
}

ref := outs[0]
tbl := display.NewTable("compression", "bytes per round", "fewer bytes", "test accuracy", "vs "+ref.name)
for _, o := range outs {
	tbl.Add(o.name, fmt.Sprintf("%.0f", o.bytes), fmt.Sprintf("%.1f×", ref.bytes/o.bytes),
		fmt.Sprintf("%.4f", o.accuracy), fmt.Sprintf("%+.4f", o.accuracy-ref.accuracy))
}
display.Show(tbl)

if csvPath != "" && sc.IsDriver() {
	f, err := os.Create(csvPath)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"compression", "replicas", "master", "rounds", "tau", "bytes_per_round", "bytes_ratio", "test_accuracy", "accuracy_change", "test_loss", "compute_s", "comm_s"})
	for _, o := range outs {
		w.Write([]string{o.name, strconv.Itoa(train.NumPartitions()), sc.Master(), strconv.Itoa(rounds), strconv.Itoa(tau),
			strconv.FormatFloat(o.bytes, 'f', 0, 64), strconv.FormatFloat(ref.bytes/o.bytes, 'f', 2, 64),
			strconv.FormatFloat(o.accuracy, 'f', 4, 64), strconv.FormatFloat(o.accuracy-ref.accuracy, 'f', 4, 64),
			strconv.FormatFloat(o.loss, 'f', 5, 64), strconv.FormatFloat(o.compute, 'f', 2, 64), strconv.FormatFloat(o.comm, 'f', 2, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	f.Close()
	fmt.Println("wrote", csvPath)
}
