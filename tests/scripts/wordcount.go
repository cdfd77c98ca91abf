//go:build ignore

// Word count as a Spark user types it: typed callbacks, pairs and a
// shuffle, then the most frequent words and the words grouped by length.
lines := sc.Parallelize([]string{
	"to be or not to be",
	"that is the question",
	"whether tis nobler in the mind to suffer",
}, 2)
counts := lines.FlatMap(strings.Fields).
	Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).
	ReduceByKey(func(a, b int) int { return a + b })
top, err := counts.SortBy(func(p rdd.Pair) int { return -p.Value.(int) }, true).Take(3)
fmt.Println(top, err)
n, _ := counts.Count()
fmt.Println(n, "distinct words")
fmt.Println(lines.FlatMap(strings.Fields).CountByValue())

byLength, _ := lines.FlatMap(strings.Fields).
	KeyBy(func(w string) int { return len(w) }).
	GroupByKey().
	SortByKey(false).
	Take(2)
fmt.Println(byLength)

// A function of the wrong type says which types it saw.
_, err = counts.Map(func(w string) string { return w }).Count()
fmt.Println(err.(*rdd.TaskError).Err)

// Output:
// [(to, 3) (be, 2) (the, 2)] <nil>
// 14 distinct words
// map[be:2 in:1 is:1 mind:1 nobler:1 not:1 or:1 question:1 suffer:1 that:1 the:2 tis:1 to:3 whether:1] <nil>
// [(8, [question]) (7, [whether])]
// rdd: Map: the function takes string, but element 0 of partition 0 is rdd.Pair ((to, 3))
