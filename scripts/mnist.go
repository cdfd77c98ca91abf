//go:build ignore

// LeNet on MNIST with SparkNet's model averaging on local workers: the
// README's main job.
//
//	go run ./cmd/sparknet-shell scripts/mnist.go [rounds [tau [checkpoint-prefix]]]
//
// The 60,000 training images are split into one cached partition per worker
// (sc, the shell's context, has one worker per core). Each worker keeps a
// LeNet replica; every round broadcasts the averaged weights, runs tau local
// SGD iterations on every replica and averages their weights again. The
// 10,000 test images are classified every 10 rounds and at the end. On two
// cores it takes about a minute and reaches 0.99 test accuracy.
//
// With a checkpoint prefix (such as checkpoints/lenet) the trainer writes a
// checkpoint every 10 rounds and at the end; run again with --resume after
// a failure and it continues from the latest one to the weights an
// uninterrupted run reaches:
//
//	sparknet-shell --resume scripts/mnist.go 100 50 checkpoints/lenet
//
// The checkpoints belong to the run that wrote them: a new run with the same
// prefix is refused unless it resumes them, or is told to replace them:
//
//	sparknet-shell --overwrite scripts/mnist.go 100 50 checkpoints/lenet
//
// Under MPI every rank runs the script and only rank 0 prints:
//
//	mpirun -np 2 sparknet-shell --master mpi scripts/mnist.go

import (
	"crypto/sha256"
	"path/filepath"
)

rounds, tau, checkpoint := 100, 50, ""
if len(os.Args) > 1 {
	rounds, _ = strconv.Atoi(os.Args[1])
}
if len(os.Args) > 2 {
	tau, _ = strconv.Atoi(os.Args[2])
}
if len(os.Args) > 3 {
	checkpoint = os.Args[3]
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
fmt.Printf("LeNet on MNIST: %d replicas (%s), %d rounds of %d local iterations\n", train.NumPartitions(), sc.Master(), rounds, tau)

trainer, err := sparknet.Parallelize(sc, solver, train.Cache(), sparknet.Options{
	Tau:        tau,
	Seed:       1,
	Test:       test.Cache(),
	TestEvery:  10,
	Checkpoint: checkpoint, // "": no checkpoints
})
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
if done := trainer.RoundsDone(); done > 0 {
	fmt.Printf("resumed from the checkpoint of round %d (%s)\n", done, trainer.ResumedFrom())
}
progress, stop := display.TrackTrainer(trainer, rounds-trainer.RoundsDone())
start := time.Now()
err = trainer.RunTo(ctx, rounds)
stop()
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
result, err := trainer.Test(ctx, test)
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
fmt.Println(progress)
fmt.Printf("test accuracy %.4f on %d images after %d iterations per replica (%s)\n",
	result.Accuracy, result.N, trainer.Iter(), time.Since(start).Round(time.Second))
// The weights' digest tells runs apart: runs with the same seed and
// partitions reach the same bits.
weights, err := trainer.Weights().MarshalBinary()
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
fmt.Printf("final weights: %d values, sha256 %x\n", trainer.Weights().NumParams(), sha256.Sum256(weights))
