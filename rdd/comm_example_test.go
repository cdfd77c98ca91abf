package rdd_test

import (
	"fmt"
	"sync"

	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// Two goroutine ranks run the same driver code; only the driver prints.
func ExampleNewLocalComms() {
	comms, err := rdd.NewLocalComms(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	var wg sync.WaitGroup
	for _, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, err := rdd.NewContextWith(rdd.Options{Engine: rdd.NewSPMDEngine(c)})
			if err != nil {
				fmt.Println(err)
				return
			}
			defer sc.Close()
			sum, err := sc.Range(1, 101, 1, 4).Reduce(func(a, b any) any { return a.(int) + b.(int) })
			if sc.IsDriver() {
				fmt.Println(sum, err, sc.Master())
			}
		}()
	}
	wg.Wait()
	// Output: 5050 <nil> spmd[rank 0 of 2]
}

// Every rank holds its own weights; after AllreduceWeights every rank
// holds their sum, which a trainer scales to the average.
func ExampleAllreduceWeights() {
	comms, err := rdd.NewLocalComms(3)
	if err != nil {
		fmt.Println(err)
		return
	}
	avg := make([]*ndarray.WeightCollection, len(comms))
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := ndarray.NewWeightCollection()
			w.Set("ip", ndarray.FromValues(float32(r), 10*float32(r)))
			if err := rdd.AllreduceWeights(c, w); err != nil {
				fmt.Println(err)
				return
			}
			avg[r] = w.ScaleInPlace(1 / float32(c.Size()))
		}()
	}
	wg.Wait()
	fmt.Println(avg[0].Get("ip")[0].Data(), avg[2].Get("ip")[0].Data())
	// Output: [1 10] [1 10]
}
