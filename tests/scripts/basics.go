//go:build ignore

// Top-level statements, declarations between them, closures, maps,
// methods on interpreted types, and a range over an integer.
type point struct{ X, Y int }

func (p point) Add(q point) point { return point{p.X + q.X, p.Y + q.Y} }

sum := point{1, 2}.Add(point{3, 4})
fmt.Println(sum.X, sum.Y)

counts := map[string]int{}
for _, w := range strings.Fields("a b a c b a") {
	counts[w]++
}
keys := make([]string, 0, len(counts))
for k := range counts {
	keys = append(keys, k)
}
sort.Strings(keys)
for _, k := range keys {
	fmt.Printf("%s=%d ", k, counts[k])
}
fmt.Println()

next := func() func() int {
	n := 0
	return func() int { n++; return n }
}()
next()
fmt.Println(next(), next())

total := 0
for i := range 5 {
	total += i
}
fmt.Println("total", total, math.Sqrt(16))

// Output:
// 4 6
// a=3 b=2 c=1
// 2 3
// total 10 4
