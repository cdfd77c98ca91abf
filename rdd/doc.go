// Package rdd provides Spark-style resilient distributed datasets whose
// partitions live in the memory of a Context's workers across jobs, so
// that data parallel training can run round after round over cached
// partitions.
//
// # Contexts and engines
//
// A Context owns the workers. Its master says how they run:
//
//	sc, err := rdd.NewContext("local[4]") // "local", "local[N]", "local[*]" (one per core)
//	defer sc.Close()
//
// Partition p lives on worker p mod sc.Workers(): its tasks run there and
// its cached copy stays there. Beneath the Context an Engine runs tasks.
// The local engine runs each worker as a goroutine that executes one task
// at a time. An SPMD engine runs one worker per process, such as an MPI
// rank (see SPMD jobs below).
//
// # RDDs
//
// Transformations are lazy and record lineage; actions run jobs.
// Elements are of type any, and callbacks are plain functions, so the
// interpreted shell can call everything:
//
//	r := sc.Range(0, 1000, 1, 8).
//		Map(func(x any) any { return x.(int) * x.(int) }).
//		Filter(func(x any) bool { return x.(int)%3 == 0 }).
//		Cache()
//	n, err := r.Count()
//	sum, err := r.Reduce(func(a, b any) any { return a.(int) + b.(int) })
//	first, err := r.Take(5)
//
// The transformations are Map, Filter, FlatMap, MapPartitions,
// MapPartitionsWithIndex, Sample, RandomSplit, Union, Zip, Repartition,
// Coalesce, and Cache, Persist and Unpersist; the actions are Collect,
// Count, Take, First, Reduce, Fold, Aggregate, TreeAggregate, Foreach,
// ForeachPartition, CollectSamples and RunPartitions. Every action
// returns its result and an error, last. A transformation given bad
// arguments returns an RDD whose actions report the problem (see
// RDD.Err), so calls chain. Lineage describes how an RDD is computed.
//
// Sample, RandomSplit and Repartition draw from random sources seeded by
// the seed and the partition index alone, so the same seed gives the same
// partitions whatever the number of workers and the order tasks run in.
//
// # Samples
//
// Data sources read files through package data into RDDs of samples,
// whose partitions are typed *data.Samples (views of one array, without
// copying, and no boxing per sample):
//
//	train, err := sc.MNIST("", true, 4) // "" finds the files with data.MNISTDir
//	train.Cache()
//
// The sources are MNIST, IDX, CIFAR10, ImageFolder, CSV, TextFile (lines)
// and ParallelizeSamples. Filter, Sample, RandomSplit, Union, Coalesce
// and Repartition keep an RDD of samples typed; other transformations see
// each sample as a data.Sample.
//
// # Running compiled code on every partition
//
// RunPartitions runs a function on every partition, on the worker that
// holds it, and returns one value per partition in partition order. Its
// TaskContext gives the partition's samples without copying, the worker's
// Store (which keeps values across jobs, such as a net replica) and a
// context canceled when the job is abandoned. With a Broadcast for the
// weights, one round of SparkNet-style training reads:
//
//	bc, err := sc.Broadcast(weights)
//	for round := 0; round < rounds; round++ {
//		if err := bc.Update(weights); err != nil { // the old weights are released
//			return err
//		}
//		res, err := train.RunPartitions(ctx, func(tc *rdd.TaskContext) (any, error) {
//			// One net per worker and one batcher per partition, kept
//			// in the worker's store from round to round.
//			net, err := tc.Store().GetOrCreate("net", newNet)
//			if err != nil {
//				return nil, err
//			}
//			b, err := tc.Store().GetOrCreate(fmt.Sprint("batches", tc.Partition()), func() (any, error) {
//				return data.NewBatcher(tc.Samples(), data.BatchOptions{Size: 64})
//			})
//			if err != nil {
//				return nil, err
//			}
//			n := net.(*Net)
//			n.SetWeights(bc.Value().(Weights))
//			if err := n.Train(tc.Context(), tau, b.(*data.Batcher)); err != nil {
//				return nil, err
//			}
//			return n.Weights(), nil
//		})
//		if err != nil {
//			return err
//		}
//		weights = average(res) // res[p] came from partition p
//	}
//	bc.Destroy()
//
// RunWorkers runs a function once on every worker, to set up or tear down
// what the stores hold.
//
// # Failures
//
// A task that returns an error or panics is tried again on its worker,
// up to Options.MaxAttempts times (DefaultMaxAttempts, 4). Cached
// partitions that are lost (see Context.ResetWorker) are rebuilt from
// lineage. When a task's last attempt fails, its action returns a
// *TaskError that names the partition, the attempts and the cause; when
// several fail, the first in partition order is reported. Every callback
// runs through a guard that turns a panic into a *PanicError naming the
// function, the partition and the element, so a bug in interpreted code
// fails the action instead of the program. CancelJobs stops running jobs.
//
// # SPMD jobs
//
// Under the master "mpi" (in binaries built with -tags mpi; see package
// rdd/mpi) or an engine made by NewSPMDEngine over a Comm, every process
// (rank) runs the same driver code: it records the same lineage,
// computes the partitions its worker owns (p mod size = rank) and learns
// every task's result through collectives, so every rank gets the same
// answer from every action. Only the driver, rank 0, prints:
//
//	sc, err := rdd.NewContext("mpi") // started by mpirun -np 4
//	defer sc.Close()                 // on every rank
//	n, err := r.Count()              // on every rank
//	if sc.IsDriver() {
//		fmt.Println(n, err)
//	}
//
// Context.Comm is the job's communicator (nil under a local master); a
// trainer sums the weights of its ranks with AllreduceWeights. The ranks
// check at every collective that all of them make the same call: when
// they diverge (one rank closes its Context, or fails alone and says so
// with Context.Agree, while the others run a job), the job is aborted
// with a message saying what each rank was doing, instead of hanging.
// NewLocalComms makes a communicator whose ranks are goroutines, to run
// SPMD code in one process.
//
// # Shared variables
//
// A Broadcast holds a read-only value for all workers; Update replaces it
// and Destroy drops it, and nothing keeps earlier values alive. An
// Accumulator sums float64 values added by tasks.
//
// # Events
//
// Subscribe delivers an Event at the start and end of every job, stage
// and task attempt, with timings and errors, for progress displays and
// logs. Nothing in the package prints.
//
// # Rules for callbacks
//
// Callbacks run on worker goroutines, several at once, so they must be
// safe for concurrent use. They must not modify the elements they are
// given (partitions may be cached and shared) nor the zero value of Fold
// and Aggregate, and they must not run actions themselves.
package rdd
