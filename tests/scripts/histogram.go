//go:build ignore

// The label histogram of MNIST's training set, with a mutable zero value:
// every partition gets its own copy, so the counts are exact.
train, err := sc.MNIST("", true, 4)
fmt.Println(train.NumPartitions(), err)
hist, err := train.Aggregate(make([]int, 10),
	func(h []int, s data.Sample) []int { h[int(s.Label)]++; return h },
	func(a, b []int) []int {
		for i := range a {
			a[i] += b[i]
		}
		return a
	})
fmt.Println(hist, err)

// The same with a pair per sample and a shuffle.
counts, err := train.Map(func(s data.Sample) rdd.Pair { return rdd.Pair{Key: int(s.Label), Value: 1} }).
	ReduceByKey(func(a, b int) int { return a + b }).
	SortByKey(true).
	Values().
	Collect()
fmt.Println(counts, err)

// First and Take compute only what they return.
computed := sc.Accumulator("computed")
slow := train.Map(func(s data.Sample) float32 {
	computed.Add(1)
	return s.Label
})
first, _ := slow.Take(2)
fmt.Println(first, computed.Value())

// Output:
// 4 <nil>
// [5923 6742 5958 6131 5842 5421 5918 6265 5851 5949] <nil>
// [5923 6742 5958 6131 5842 5421 5918 6265 5851 5949] <nil>
// [5 0] 2
