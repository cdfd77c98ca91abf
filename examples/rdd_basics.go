//go:build ignore

// # RDD basics
//
// An RDD is a dataset split into partitions that live on the workers of
// a Context, as in Spark. The shell starts one for you as `sc`, with the
// master given by `--master` (`local[*]`: one worker per core).
// Transformations (`Map`, `Filter`, ...) are lazy and only record
// lineage; actions (`Collect`, `Count`, `Reduce`, ...) run jobs. Callbacks
// are plain Go functions on `any` values, so they can be typed at the
// prompt.
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
squares := nums.Map(func(v any) any { return v.(int) * v.(int) })
odd := squares.Filter(func(v any) bool { return v.(int)%2 == 1 })
fmt.Print(odd.Lineage())

// %% Actions run jobs
// `Collect` brings the elements back in partition order; `Reduce`
// combines them on the workers first.
fmt.Println(odd.Collect())
odd.Reduce(func(a, b any) any { return a.(int) + b.(int) })

// %% Caching
// `Cache` keeps computed partitions in their workers' memory, so later
// jobs skip the computation: what SparkNet does with training data.
slow := nums.Map(func(v any) any { time.Sleep(time.Millisecond); return v })
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
scaled := nums.Map(func(v any) any {
	seen.Add(1)
	return v.(int) * scale.Value().(int)
})
total, _ := scaled.Reduce(func(a, b any) any { return a.(int) + b.(int) })
fmt.Println("total:", total, "elements seen:", seen.Value())

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
sc.Range(0, 1000, 1, 8).Map(func(v any) any { return v }).Count()
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
bad := nums.Map(func(v any) any {
	if v.(int) == 13 {
		panic("unlucky number")
	}
	return v
})
_, err := bad.Count()
fmt.Println(err)
