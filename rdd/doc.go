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
// Callbacks are plain Go functions of the elements' own types, passed as
// any so that the interpreted shell (which cannot call generic
// functions) passes its own functions the same way:
//
//	r := sc.Range(0, 1000, 1, 8).
//		Map(func(x int) int { return x * x }).
//		Filter(func(x int) bool { return x%3 == 0 }).
//		Cache()
//	n, err := r.Count()
//	sum, err := r.Reduce(func(a, b int) int { return a + b })
//	first, err := r.Take(5)
//
// A function of the wrong shape is an error when the transformation or
// action is called; an element the function cannot take fails its task
// at once, with an error naming the element, its partition, and both
// types (see ErrType). func(x any) any works for any element. Common
// signatures are called directly; others by reflection.
//
// The transformations are Map, Filter, FlatMap, MapPartitions,
// MapPartitionsWithIndex, KeyBy, Sample, RandomSplit, Union, Zip,
// Repartition, Coalesce, Distinct, SortBy, and Cache, Persist and
// Unpersist; the actions are Collect, Count, Take, First, IsEmpty, Top,
// TakeOrdered, Reduce, Fold, Aggregate, TreeAggregate, Foreach,
// ForeachPartition, CollectSamples and RunPartitions. Every action
// returns its result and an error, last. A transformation given bad
// arguments returns an RDD whose actions report the problem (see
// RDD.Err), so calls chain. Lineage describes how an RDD is computed.
//
// Take and First compute only what they return: the element-wise
// transformations run one element at a time for them, and partitions are
// scanned a few at a time. Fold, Aggregate and the ByKey aggregations
// give every partition (and every key) its own copy of the zero value,
// deep-copied, or made by calling zero when it is a function with no
// arguments, so callbacks may update it in place:
//
//	hist, err := train.Aggregate(make([]int, 10),
//		func(h []int, s data.Sample) []int { h[int(s.Label)]++; return h },
//		func(a, b []int) []int { for i := range a { a[i] += b[i] }; return a })
//
// Sample, RandomSplit and Repartition draw from random sources seeded by
// the seed and the partition index alone, so the same seed gives the same
// partitions whatever the number of workers and the order tasks run in.
//
// # Pairs and shuffles
//
// An RDD of Pair{Key, Value} elements has Spark's key-value operations:
// ReduceByKey, FoldByKey, AggregateByKey, CombineByKey, GroupByKey,
// GroupBy, MapValues, FlatMapValues, Keys, Values, Join, LeftOuterJoin,
// RightOuterJoin, FullOuterJoin, Cogroup, SubtractByKey, SortByKey and
// PartitionBy, and the actions CountByKey, CountByValue, CollectAsMap and
// Lookup. A word count:
//
//	counts := lines.FlatMap(strings.Fields).
//		Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).
//		ReduceByKey(func(a, b int) int { return a + b })
//
// The operations that group by key shuffle: every map task splits its
// partition by the partitioner (HashPartitioner by default; SortByKey
// samples the keys for a RangePartitioner) and keeps its buckets on its
// worker, combining the values of each key first where it can; a reduce
// task reads its bucket of every map output. An optional last argument
// sets the number of partitions (ReduceByKey(f, 8)); by default the input's
// partitioner decides, else its partition count. RDDs that share a
// partitioner join without a shuffle. Results come in an order fixed by
// the input (keys in order of first appearance), the same on every run
// and every engine.
//
// Shuffle output beyond Options.ShuffleMemory goes to files in
// Options.LocalDir, which Close removes. It stays until the RDD that
// reads it is garbage; output lost with a worker (ResetWorker) is
// computed again from lineage, and the tasks that missed it run again.
// Under an SPMD engine the ranks exchange the buckets each one reads with
// an all-to-all exchange on the communicator, so no process holds a
// whole shuffle.
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
// Read opens any data set of package data's registry of formats, the one
// Caffe's Data layer reads through:
//
//	train, err := sc.Read("parquet:out/train", 0)  // a folder of part files
//	test, err := sc.ReadWith("mnist:DIR", data.ReadOptions{Split: "test"}, 0)
//	lines, err := sc.Read("text:notes.txt", 0)    // an RDD of strings
//
// and SaveAsParquet and SaveAsTextFile write an RDD as a folder of part
// files, one per partition, as Spark does. The sources MNIST, IDX,
// CIFAR10, LMDB, LevelDB, ImageFolder, ImageList, CSV, TextFile and
// ParallelizeSamples remain as shortcuts. Filter, Sample, RandomSplit,
// Union, Coalesce and Repartition keep an RDD of samples typed; other
// transformations see each sample as a data.Sample.
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
// # Summing weights
//
// SumWeights is that loop's reduce as one action, and what package
// sparknet's trainer runs every round: every partition's task returns its
// replica's weight collections (and a small value, such as its loss), and
// the action returns their sums, added in partition order so that the
// result depends on the partitioning alone. Under an SPMD engine each
// process adds the partitions it holds and the processes' sums meet in an
// allreduce, so only sums cross processes and every process gets the same
// bits; the caller does not know which engine runs. BroadcastReplicated
// and SetReplicated share a value that every process already holds alike
// (one computed from actions' results), without sending it:
//
//	bc := sc.BroadcastReplicated(weights)
//	sums, err := train.SumWeights(ctx, func(tc *rdd.TaskContext) (rdd.PartitionWeights, error) {
//		n := replicaOf(tc)                        // from the worker's store
//		n.SetWeights(bc.Value().(*ndarray.WeightCollection))
//		loss, err := n.Train(tc.Context(), tau)
//		return rdd.PartitionWeights{Weights: []*ndarray.WeightCollection{n.Weights()}, Value: loss}, err
//	})
//	weights = sums.Sums[0].Scale(1 / float32(train.NumPartitions()))
//	err = bc.SetReplicated(weights)
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
// Context.Comm is the job's communicator (nil under a local master), for
// collectives of one's own (AllreduceWeights sums weight collections
// across ranks); SumWeights uses it for the sums of training, and
// SumEncoded, for replicas that send compressed changes, moves them
// encoded (bfloat16, float16, sparse) and sums them in partition order on
// any number of ranks. The ranks check at every collective that all of
// them make the same call: when they diverge (one rank closes its
// Context, or fails alone and says so with Context.Agree, while the
// others run a job), the job is aborted with a message saying what each
// rank was doing, instead of hanging.
// NewLocalComms makes a communicator whose ranks are goroutines, to run
// SPMD code in one process.
//
// # Shared variables
//
// A Broadcast holds a read-only value for all workers; Update replaces it
// and Destroy drops it, and nothing keeps earlier values alive. An
// Accumulator sums float64 values added by tasks; what a failed attempt
// added is dropped, so a retried task counts once.
//
// # Events
//
// Subscribe delivers an Event at the start and end of every job, stage
// and task attempt, with timings and errors, and after every shuffle's
// map stage (ShuffleWritten: records, bytes, bytes spilled) and exchange
// between ranks (ShuffleFetched), for progress displays and logs.
// Nothing in the package prints. Under an SPMD engine each rank sends its
// task attempts with its results, and every rank delivers the other
// ranks' as Remote events when the stage ends.
//
// # Status
//
// WorkerStatus reports what every worker holds (cached partitions and
// their memory, the keys and memory of its Store) and StorageStatus the
// persisted RDDs with their cached partitions, as Spark's executor and
// storage tabs show them; under an SPMD engine the other ranks' workers
// are as of the last stage. Memory is estimated once per cached partition
// and stored value; a value with a SizeBytes method (Sizer) reports its
// own.
//
// # Rules for callbacks
//
// Callbacks run on worker goroutines, several at once, so they must be
// safe for concurrent use. They must not modify the elements they are
// given (partitions may be cached and shared), though they may modify
// the running value of Fold, Aggregate and the ByKey aggregations, which
// is their own; and they must not run actions themselves.
package rdd

// BUG(rdd): A reduce task holds the combined values of its partition (and
// the groups of GroupByKey, and the partition SortByKey sorts) in memory;
// only the map outputs and the buckets fetched from other ranks go to
// disk beyond Options.ShuffleMemory.
