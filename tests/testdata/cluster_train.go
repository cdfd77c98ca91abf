//go:build ignore

// LeNet on MNIST, checkpointed after every round, for the tests that take
// hosts down in the middle of a run and resume on the others:
//
//	sparknet-shell [--resume] tests/testdata/cluster_train.go ROUNDS PARTITIONS CHECKPOINT [PIDS [COMPRESS]]
//
// PARTITIONS 0 means one per worker; CHECKPOINT "" writes none. Each rank
// writes its process id to PIDS/pid-RANK, for the test to kill ("-":
// none). COMPRESS names the averaging's compression
// (sparknet.ParseCompression: bfloat16, top-1%).

import (
	"crypto/sha256"
	"path/filepath"
)

if len(os.Args) < 4 {
	fmt.Println("usage: cluster_train.go ROUNDS PARTITIONS CHECKPOINT [PIDS [COMPRESS]]")
	os.Exit(2)
}
rounds, _ := strconv.Atoi(os.Args[1])
parts, _ := strconv.Atoi(os.Args[2])
var prefix string = os.Args[3] // (a plain := of an index expression trips the interpreter)
if parts == 0 {
	parts = sc.Workers()
}
compress := sparknet.Compression{}
if len(os.Args) > 5 {
	c, err := sparknet.ParseCompression(os.Args[5])
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	compress = c
}
if len(os.Args) > 4 && os.Args[4] != "-" {
	host, _ := os.Hostname()
	os.WriteFile(filepath.Join(os.Args[4], fmt.Sprintf("pid-%d", sc.Rank())), []byte(fmt.Sprintf("%d %s", os.Getpid(), host)), 0o644)
}
here := filepath.Dir(os.Args[0])
solver, err := caffe.LoadSolverParameter(filepath.Join(here, "..", "..", "scripts", "lenet_solver.prototxt"))
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
train, err := sc.MNIST("", true, parts)
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
trainer, err := sparknet.Parallelize(sc, solver, train.Cache(), sparknet.Options{
	Tau: 5, Seed: 1, Checkpoint: prefix, CheckpointEvery: 1, Compress: compress,
})
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
fmt.Printf("%d replicas on %d workers (%s), compression %s\n", trainer.K(), sc.Workers(), sc.Master(), compress)
if done := trainer.RoundsDone(); done > 0 {
	fmt.Printf("resumed from the checkpoint of round %d\n", done)
}
for trainer.RoundsDone() < rounds {
	ev, err := trainer.Round(ctx)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Printf("round %d: loss %.4f\n", ev.Round, ev.TrainLoss)
}
weights, err := trainer.Weights().MarshalBinary()
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
fmt.Printf("final weights: %d values, sha256 %x\n", trainer.Weights().NumParams(), sha256.Sum256(weights))
