//go:build ignore

// Joins of two RDDs of pairs, as a Spark user types them.
type order struct {
	Item  string
	Price float64
}
users := sc.Parallelize([]rdd.Pair{
	{Key: 1, Value: "ada"}, {Key: 2, Value: "bob"}, {Key: 3, Value: "cy"},
}, 2)
orders := sc.Parallelize([]rdd.Pair{
	{Key: 1, Value: order{"tea", 3.5}}, {Key: 3, Value: order{"cake", 4}},
	{Key: 1, Value: order{"jam", 2.25}}, {Key: 4, Value: order{"pie", 5}},
}, 3)

joined, _ := users.Join(orders).SortByKey(true).Collect()
for _, x := range joined {
	p := x.(rdd.Pair)
	uo := p.Value.(rdd.Pair)
	fmt.Println(p.Key, uo.Key, uo.Value.(order).Item)
}

// What each user spent, users without orders included.
spent := orders.MapValues(func(o order) float64 { return o.Price }).
	ReduceByKey(func(a, b float64) float64 { return a + b })
totals, _ := users.LeftOuterJoin(spent).
	Map(func(p rdd.Pair) string {
		uo := p.Value.(rdd.Pair)
		if uo.Value == nil {
			return fmt.Sprintf("%s: nothing", uo.Key)
		}
		return fmt.Sprintf("%s: %.2f", uo.Key, uo.Value)
	}).
	SortBy(func(s string) string { return s }, true).
	Collect()
fmt.Println(totals)

// Orders of unknown users, and users who ordered nothing.
strays, _ := orders.SubtractByKey(users).Keys().Collect()
idle, _ := users.SubtractByKey(orders).Values().Collect()
fmt.Println(strays, idle)
full, _ := users.FullOuterJoin(orders).CountByKey()
fmt.Println(full)

// Output:
// 1 ada tea
// 1 ada jam
// 3 cy cake
// [ada: 5.75 bob: nothing cy: 4.00]
// [4] [bob]
// map[1:2 2:1 3:1 4:1]
