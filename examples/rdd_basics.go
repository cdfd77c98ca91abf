//go:build ignore

// # RDD basics
//
// An RDD is a dataset split into partitions that live on the workers of
// a Context, as in Spark. The shell starts one for you as `sc`, with the
// master given by `--master` (`local[*]`: one worker per core).
// Transformations (`Map`, `Filter`, ...) are lazy and only record
// lineage; actions (`Collect`, `Count`, `Reduce`, ...) run jobs. Callbacks
// are plain Go functions of the elements' types, such as
// `func(x int) int`, typed at the prompt.
//
//     go run ./cmd/sparknet-shell --notebook examples/rdd_basics.go --out rdd_basics.md

// %% The context
// Printing `sc` shows its master and its number of workers.
sc

// %% Making RDDs
// `Range` and `Parallelize` split their elements into partitions.
nums := sc.Range(0, 20, 1, 4)
words := sc.Parallelize([]string{"spark", "net", "go", "shell", "caffe", "rdd"}, 2)
fmt.Println(nums.NumPartitions(), "partitions:", nums)
words.Collect()

// %% Transformations are lazy
// `Map` and `Filter` return new RDDs at once; nothing runs until an
// action. `Lineage` shows the recorded steps.
squares := nums.Map(func(v int) int { return v * v })
odd := squares.Filter(func(v int) bool { return v%2 == 1 })
fmt.Print(odd.Lineage())

// %% Actions run jobs
// `Collect` brings the elements back in partition order; `Reduce`
// combines them on the workers first.
fmt.Println(odd.Collect())
odd.Reduce(func(a, b int) int { return a + b })

// %% Caching
// `Cache` keeps computed partitions in their workers' memory, so later
// jobs skip the computation: what SparkNet does with training data.
slow := nums.Map(func(v int) int { time.Sleep(time.Millisecond); return v })
slow.Cache()
start := time.Now()
slow.Count()
first := time.Since(start)
start = time.Now()
slow.Count()
fmt.Printf("cached partitions: %d; first count %v, second %v\n", slow.CachedPartitions(), first.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

// %% Broadcast variables and accumulators
// A broadcast value is shared read-only with every worker (SparkNet
// broadcasts the weights each round); an accumulator sums values that
// tasks add.
scale, _ := sc.Broadcast(10)
seen := sc.Accumulator("elements seen")
scaled := nums.Map(func(v int) int {
	seen.Add(1)
	return v * scale.Value().(int)
})
total, _ := scaled.Reduce(func(a, b int) int { return a + b })
fmt.Println("total:", total, "elements seen:", seen.Value())

// %% Pairs and shuffles
// An RDD of `rdd.Pair{Key, Value}` has Spark's key-value operations:
// `ReduceByKey`, `GroupByKey`, `Join`, `SortByKey` and more. They
// shuffle: every element moves to the partition that holds its key.
// A word count:
counts := words.Union(sc.Parallelize([]string{"go", "spark", "go"}, 1)).
	Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).
	ReduceByKey(func(a, b int) int { return a + b })
counts.SortByKey(true).Collect()

// %% Joins
// Joining two RDDs of pairs pairs up the values of equal keys.
lengths := words.KeyBy(func(w string) string { return w }).MapValues(func(w string) int { return len(w) })
counts.Join(lengths).SortByKey(true).Take(3)

// %% Watching jobs
// A Context reports the start and end of jobs, stages and tasks to its
// subscribers; progress displays are built on this. Here we count the
// tasks each worker ran. Packages other than the common ones need an
// import line, as in Go.
import "sync"

perWorker := make([]int, sc.Workers())
var mu sync.Mutex
unsubscribe := sc.Subscribe(func(e rdd.Event) {
	if e.Kind == rdd.TaskEnd {
		mu.Lock()
		perWorker[e.Worker]++
		mu.Unlock()
	}
})
sc.Range(0, 1000, 1, 8).Map(func(v int) int { return v }).Count()
unsubscribe()
t := display.NewTable("worker", "tasks")
for w, n := range perWorker {
	t.Add(w, n)
}
t

// %% Failures are reported, not fatal
// A panic in a callback fails its task; the task is retried, and when
// every attempt fails the action returns an error naming the partition
// and the element. The session goes on.
bad := nums.Map(func(v int) int {
	if v == 13 {
		panic("unlucky number")
	}
	return v
})
_, err := bad.Count()
fmt.Println(err)
