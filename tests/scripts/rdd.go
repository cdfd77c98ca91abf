//go:build ignore

// RDDs with interpreted callbacks; a panic in a callback on a worker
// comes back as the action's error.
r := sc.Range(1, 11, 1, 4)
squares := r.Map(func(v any) any { return v.(int) * v.(int) })
sum, err := squares.Reduce(func(a, b any) any { return a.(int) + b.(int) })
fmt.Println(sum, err)

even, _ := r.Filter(func(v any) bool { return v.(int)%2 == 0 }).Collect()
fmt.Println(even)

_, err = r.Map(func(v any) any {
	if v.(int) == 7 {
		panic("seven")
	}
	return v
}).Count()
fmt.Println(err != nil, strings.Contains(err.Error(), "panicked"), strings.Contains(err.Error(), "seven"))

// The panic's value as it was passed to panic, and an error value
// found in the chain by errors.As.
var pe *rdd.PanicError
fmt.Println(errors.As(err, &pe), pe.Value, errors.Is(err, io.EOF))
s, isString := pe.Value.(string)
fmt.Printf("%T %q %v\n", pe.Value, s, isString)

type BadRecord struct{ N int }
func (b *BadRecord) Error() string { return fmt.Sprint("bad record ", b.N) }
_, err = r.Map(func(x int) int {
	if x == 3 {
		panic(&BadRecord{x})
	}
	return x
}).Collect()
var br *BadRecord
fmt.Println(errors.As(err, &br), br)

// Pairs print their keys and values by those values' methods.
type Stat struct{ Count int }
func (s Stat) String() string { return fmt.Sprintf("n=%d", s.Count) }
pairs, _ := sc.Parallelize([]any{rdd.Pair{Key: "a", Value: Stat{1}}, rdd.Pair{Key: "b", Value: Stat{2}}}, 2).Collect()
fmt.Println(pairs)
p := pairs[1].(rdd.Pair)
fmt.Printf("%v %s %T %v\n", p, p, p, p.Value)

// Output:
// 385 <nil>
// [2 4 6 8 10]
// true true true
// true seven false
// string "seven" true
// true bad record 3
// [(a, n=1) (b, n=2)]
// (b, n=2) (b, n=2) rdd.Pair n=2
