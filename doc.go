// Package sparknet trains Caffe nets data-parallel by model averaging, as
// SparkNet ("Training Deep Networks in Spark", Moritz et al., ICLR 2016):
// every worker runs τ local SGD iterations on its own partition of the
// data, then the weights are averaged and broadcast for the next round.
// The scheme needs no tuning beyond τ and tolerates slow networks, since
// workers talk only once per τ iterations.
//
// # Training
//
// A Trainer joins an RDD of samples (package rdd) and a Caffe solver
// (package caffe). The solver's train net reads its data through Data
// layers; the trainer feeds them from each replica's partition:
//
//	sc, _ := rdd.NewContext("local[*]")
//	train, _ := sc.MNIST("", true, sc.Workers()) // one partition per worker
//	test, _ := sc.MNIST("", false, sc.Workers())
//	solver, _ := caffe.LoadSolverParameter("lenet_solver.prototxt")
//	t, _ := sparknet.Parallelize(sc, solver, train.Cache(), sparknet.Options{Tau: 50})
//	for r := 0; r < 40; r++ {
//		ev, err := t.Round(ctx) // broadcast, τ local iterations, average
//		...
//	}
//	res, _ := t.Test(ctx, test.Cache())
//	fmt.Println(res.Accuracy)
//	t.Net().SaveWeights("lenet_sparknet.caffemodel")
//
// The replicas build their nets through caffe's registry of layer types,
// so a net naming a layer that the program or shell session registered
// (caffe.RegisterLayer, or a Python layer mapped to a registered Go layer)
// trains like any other; its parameters are averaged with the rest.
//
// There is one model replica per partition, kept in the store of the worker
// that holds the partition; K, the number of replicas, is the number of
// partitions. The weights are summed in partition order, so results depend
// on the seed and the partitioning only, not on scheduling or the number of
// workers. Close gives the replicas back; a trainer that is not closed gives
// them back once nothing refers to it and the garbage collector has run.
//
// # What is averaged
//
// Options.Average chooses between averaging the weights only (SparkNet:
// every replica keeps its momentum and other solver history) and averaging
// the solver history as well. The learning-rate policy of every replica is
// driven by the global iteration count, the iterations each replica has run
// (Trainer.Iter), which grows by τ per round.
//
// Options.Outer chooses the outer optimizer, which turns the sum of the
// replicas' weights into the next global weights: PlainAverage (SparkNet),
// ElasticAveraging (EASGD) or OuterNesterov (Nesterov momentum on the
// averaged change, as DiLoCo), one file each, or an Outer of your own.
// Outer is an interface: a driver-side Step that reads and updates an
// OuterState the trainer keeps (and snapshots), an optional replica-side
// Pull (OuterPuller) for optimizers whose replicas keep their weights:
//
//	type halfway struct{}
//
//	func (halfway) Step(w, sum *ndarray.WeightCollection, k int, _ *sparknet.OuterState) error {
//		w.ScaleInPlace(0.5).Axpy(0.5/float32(k), sum) // halfway to the average
//		return nil
//	}
//	func (halfway) String() string { return "halfway" }
//
// Options.WarmupRounds gives post-local SGD: τ = 1 for the first rounds,
// then τ. Options.Compress (CompressBFloat16, CompressFloat16,
// CompressTopK) makes replicas send their change of the weights
// compressed, with error feedback, and get the compressed sum back;
// between processes it travels compressed (rdd.SumEncoded).
//
// # One round
//
// A round is one job: the round's message (the global weights and
// counters) is broadcast, every replica runs its τ iterations, and
// rdd.RDD.SumWeights sums the replicas' weights in partition order — under
// an SPMD engine each process sums its own replicas and the processes'
// sums meet in an allreduce — before the outer step; with compression,
// rdd.RDD.SumEncoded sums their compressed changes instead, and the outer
// step gets the sum of the weights they stand for. The trainer does not
// know which engine runs it.
//
// # Observing and slowing down
//
// Subscribe receives a RoundEvent after each round: the round, the global
// iteration, the train loss, compute and communication seconds and the
// bytes moved. Nothing in the package prints; SetWatcher lets a front end
// (sparknet-shell) show the runs nobody subscribed to. OnParallelize lets
// a tool that watches a whole context, such as the web UI (package ui),
// observe every trainer made on it; what its hooks subscribe does not
// count as a subscriber for SetWatcher. Options.Latency and
// Options.Bandwidth add a simulated network cost to every broadcast and
// collection, to show on one machine why a larger τ tolerates a slow
// network.
//
// # Snapshots
//
// Snapshot writes the averaged weights as a Caffe model, every replica's
// solver state and the trainer's counters; Resume continues from them to
// the weights an uninterrupted run would have reached, also on another
// number of processes or workers (the state is per replica). With
// Options.Checkpoint the trainer writes them every CheckpointEvery rounds.
// The checkpoints under a prefix belong to one run: Parallelize resumes them
// (Options.Resume; ResumedFrom names the file), refuses them, or replaces
// them (Options.Overwrite).
//
// # Clusters
//
// Under an SPMD context (master "mpi"), every process runs the same driver
// code; each owns some partitions and their replicas, and the rounds'
// results are exchanged with collectives, so every process holds the same
// global weights.
package sparknet
