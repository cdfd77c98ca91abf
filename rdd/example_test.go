package rdd_test

import (
	"context"
	"fmt"

	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/rdd"
)

func Example() {
	sc, err := rdd.NewContext("local[2]")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sc.Close()
	squares := sc.Range(1, 11, 1, 4).Map(func(x any) any { return x.(int) * x.(int) }).Cache()
	n, _ := squares.Count()
	sum, _ := squares.Reduce(func(a, b any) any { return a.(int) + b.(int) })
	even, _ := squares.Filter(func(x any) bool { return x.(int)%2 == 0 }).Collect()
	fmt.Println(n, sum, even)
	// Output: 10 385 [4 16 36 64 100]
}

func ExampleRDD_RunPartitions() {
	sc, err := rdd.NewContext("local[2]")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sc.Close()
	// 8 samples of 1×2×2 with labels 0..7, in 4 partitions.
	s, _ := data.NewSamples(8, 1, 2, 2, false)
	for i := range s.Labels {
		s.Labels[i] = float32(i)
	}
	train := sc.ParallelizeSamples(s, 4).Cache()
	offset, _ := sc.Broadcast(float32(100))
	res, err := train.RunPartitions(context.Background(), func(tc *rdd.TaskContext) (any, error) {
		// Count the rounds this worker has run, in its store.
		v, _ := tc.Store().GetOrCreate("rounds", func() (any, error) { return new(int), nil })
		*v.(*int)++
		var sum float32
		for _, l := range tc.Samples().Labels {
			sum += l
		}
		return fmt.Sprintf("p%d on worker %d: %v", tc.Partition(), tc.Worker(), sum+offset.Value().(float32)), nil
	})
	fmt.Println(res, err)
	// Output: [p0 on worker 0: 101 p1 on worker 1: 105 p2 on worker 0: 109 p3 on worker 1: 113] <nil>
}

func ExampleRDD_Lineage() {
	sc, _ := rdd.NewContext("local[2]")
	defer sc.Close()
	r := sc.Range(0, 100, 1, 4).Filter(func(x any) bool { return x.(int)%7 == 0 }).Repartition(2)
	fmt.Println(r.Lineage())
	// Output:
	// (2) Repartition[3]
	//  +- (4) Filter[2]
	//      |  (4) Range[1]
}

func ExampleContext_Subscribe() {
	sc, _ := rdd.NewContext("local[2]")
	defer sc.Close()
	stop := sc.Subscribe(func(e rdd.Event) {
		if e.Kind == rdd.JobStart || e.Kind == rdd.StageStart {
			fmt.Println(e.Kind, e.Action, e.NumTasks)
		}
	})
	defer stop()
	sc.Range(0, 10, 1, 3).Count()
	// Output:
	// JobStart Count 3
	// StageStart Count 3
}
