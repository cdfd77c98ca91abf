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

// Output:
// 385 <nil>
// [2 4 6 8 10]
// true true true
