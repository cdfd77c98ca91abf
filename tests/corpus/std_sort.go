//go:build ignore

// sort.Slice, sort.SliceStable and searching a sorted slice.
package main

import (
	"fmt"
	"sort"
)

type entry struct {
	name  string
	score int
}

func main() {
	es := []entry{{"d", 2}, {"a", 3}, {"c", 2}, {"b", 1}}
	sort.SliceStable(es, func(i, j int) bool { return es[i].score > es[j].score })
	fmt.Println(es)
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	fmt.Println(es)
	xs := []int{1, 3, 5, 7, 9}
	i := sort.SearchInts(xs, 6)
	j := sort.Search(len(xs), func(k int) bool { return xs[k] >= 9 })
	fmt.Println(i, j)
	fs := []float64{2.5, -1, 0}
	sort.Float64s(fs)
	ss := []string{"b", "A", "a"}
	sort.Sort(sort.Reverse(sort.StringSlice(ss)))
	fmt.Println(fs, ss)
}
