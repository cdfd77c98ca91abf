package repl

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// point is declared in the session too (see TestSourcePackages).
type point struct{ X, Y int }

func byX(a, b point) int { return cmp.Compare(a.X, b.X) }

// TestSourcePackages calls the generic functions of the shell's slices,
// maps, cmp and iter, on a predeclared and on a declared element type,
// and compares what they print with what Go's own functions print.
func TestSourcePackages(t *testing.T) {
	ints := func() []int { return []int{5, 2, 8, 2, 1} }
	pts := func() []point { return []point{{3, 0}, {1, 1}, {2, 2}, {1, 3}} }
	m := func() map[string]int { return map[string]int{"b": 2, "a": 1, "c": 3} }
	pm := func() map[point]string { return map[point]string{{1, 2}: "x", {0, 0}: "o"} }
	sortedPM := func(m map[point]string) []point {
		return slices.SortedFunc(maps.Keys(m), func(a, b point) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y)) })
	}
	tests := []struct {
		expr string
		want any
	}{
		{"slices.Sorted(slices.Values(ints()))", slices.Sorted(slices.Values(ints()))},
		{"func() []int { s := ints(); slices.Sort(s); return s }()", func() []int { s := ints(); slices.Sort(s); return s }()},
		{"func() []point { s := pts(); slices.SortFunc(s, byX); return s }()", func() []point { s := pts(); slices.SortFunc(s, byX); return s }()},
		{"func() []point { s := pts(); slices.SortStableFunc(s, byX); return s }()", func() []point { s := pts(); slices.SortStableFunc(s, byX); return s }()},
		{"slices.SortedFunc(slices.Values(pts()), byX)", slices.SortedFunc(slices.Values(pts()), byX)},
		{"slices.SortedStableFunc(slices.Values(pts()), byX)", slices.SortedStableFunc(slices.Values(pts()), byX)},
		{"slices.IsSorted(ints())", slices.IsSorted(ints())},
		{"slices.IsSortedFunc(pts(), byX)", slices.IsSortedFunc(pts(), byX)},
		{"fmt.Sprint(slices.BinarySearch([]int{1, 3, 5}, 3))", fmt.Sprint(slices.BinarySearch([]int{1, 3, 5}, 3))},
		{"fmt.Sprint(slices.BinarySearchFunc(pts(), 2, func(p point, x int) int { return cmp.Compare(p.X, x) }))", fmt.Sprint(slices.BinarySearchFunc(pts(), 2, func(p point, x int) int { return cmp.Compare(p.X, x) }))},
		{"slices.Collect(slices.Values(pts()))", slices.Collect(slices.Values(pts()))},
		{"slices.AppendSeq([]point{{9, 9}}, slices.Values(pts()))", slices.AppendSeq([]point{{9, 9}}, slices.Values(pts()))},
		{"fmt.Sprint(slices.Collect(slices.Chunk(ints(), 2)))", fmt.Sprint(slices.Collect(slices.Chunk(ints(), 2)))},
		{"func() string { var b strings.Builder; for i, p := range slices.All(pts()) { fmt.Fprint(&b, i, p) }; return b.String() }()", func() string {
			var b strings.Builder
			for i, p := range slices.All(pts()) {
				fmt.Fprint(&b, i, p)
			}
			return b.String()
		}()},
		{"func() string { var b strings.Builder; for i, p := range slices.Backward(pts()) { fmt.Fprint(&b, i, p) }; return b.String() }()", func() string {
			var b strings.Builder
			for i, p := range slices.Backward(pts()) {
				fmt.Fprint(&b, i, p)
			}
			return b.String()
		}()},
		{"slices.Equal(pts(), pts())", slices.Equal(pts(), pts())},
		{"slices.EqualFunc(ints(), pts(), func(a int, b point) bool { return a == b.X })", slices.EqualFunc(ints(), pts(), func(a int, b point) bool { return a == b.X })},
		{"slices.Compare([]int{1, 2}, []int{1, 3})", slices.Compare([]int{1, 2}, []int{1, 3})},
		{"slices.CompareFunc(pts(), pts()[:2], byX)", slices.CompareFunc(pts(), pts()[:2], byX)},
		{"slices.Index(pts(), point{2, 2})", slices.Index(pts(), point{2, 2})},
		{"slices.IndexFunc(pts(), func(p point) bool { return p.Y == 3 })", slices.IndexFunc(pts(), func(p point) bool { return p.Y == 3 })},
		{"slices.Contains(pts(), point{1, 1})", slices.Contains(pts(), point{1, 1})},
		{"slices.ContainsFunc(ints(), func(v int) bool { return v > 7 })", slices.ContainsFunc(ints(), func(v int) bool { return v > 7 })},
		{"slices.Insert(pts(), 1, point{7, 7}, point{8, 8})", slices.Insert(pts(), 1, point{7, 7}, point{8, 8})},
		{"slices.Delete(pts(), 1, 3)", slices.Delete(pts(), 1, 3)},
		{"slices.DeleteFunc(ints(), func(v int) bool { return v == 2 })", slices.DeleteFunc(ints(), func(v int) bool { return v == 2 })},
		{"slices.Replace(pts(), 0, 2, point{5, 5})", slices.Replace(pts(), 0, 2, point{5, 5})},
		{"slices.Clone(pts())", slices.Clone(pts())},
		{"slices.Compact([]int{1, 1, 2, 2, 2, 3})", slices.Compact([]int{1, 1, 2, 2, 2, 3})},
		{"slices.CompactFunc(pts(), func(a, b point) bool { return a.X == b.X })", slices.CompactFunc(pts(), func(a, b point) bool { return a.X == b.X })},
		{"cap(slices.Grow(pts(), 10)) >= 14", cap(slices.Grow(pts(), 10)) >= 14},
		{"len(slices.Clip(pts()))", len(slices.Clip(pts()))},
		{"slices.Concat(pts(), pts()[:1])", slices.Concat(pts(), pts()[:1])},
		{"slices.Repeat(pts()[:1], 3)", slices.Repeat(pts()[:1], 3)},
		{"func() []point { s := pts(); slices.Reverse(s); return s }()", func() []point { s := pts(); slices.Reverse(s); return s }()},
		{"fmt.Sprint(slices.Max(ints()), slices.Min(ints()))", fmt.Sprint(slices.Max(ints()), slices.Min(ints()))},
		{"fmt.Sprint(slices.MaxFunc(pts(), byX), slices.MinFunc(pts(), byX))", fmt.Sprint(slices.MaxFunc(pts(), byX), slices.MinFunc(pts(), byX))},
		{"slices.Sorted(maps.Keys(m()))", slices.Sorted(maps.Keys(m()))},
		{"slices.Sorted(maps.Values(m()))", slices.Sorted(maps.Values(m()))},
		{"sortedPM(pm())", sortedPM(pm())},
		{"sortedPM(maps.Clone(pm()))", sortedPM(maps.Clone(pm()))},
		{"sortedPM(maps.Collect(maps.All(pm())))", sortedPM(maps.Collect(maps.All(pm())))},
		{"func() []point { d := map[point]string{{9, 9}: \"n\"}; maps.Copy(d, pm()); return sortedPM(d) }()", func() []point { d := map[point]string{{9, 9}: "n"}; maps.Copy(d, pm()); return sortedPM(d) }()},
		{"func() []point { d := pm(); maps.DeleteFunc(d, func(k point, v string) bool { return v == \"x\" }); return sortedPM(d) }()", func() []point {
			d := pm()
			maps.DeleteFunc(d, func(k point, v string) bool { return v == "x" })
			return sortedPM(d)
		}()},
		{"func() []point { d := pm(); maps.Insert(d, maps.All(map[point]string{{4, 4}: \"f\"})); return sortedPM(d) }()", func() []point {
			d := pm()
			maps.Insert(d, maps.All(map[point]string{{4, 4}: "f"}))
			return sortedPM(d)
		}()},
		{"maps.Equal(pm(), pm())", maps.Equal(pm(), pm())},
		{"maps.EqualFunc(m(), m(), func(a, b int) bool { return a == b })", maps.EqualFunc(m(), m(), func(a, b int) bool { return a == b })},
		{"fmt.Sprint(cmp.Compare(1.5, 2), cmp.Less(\"b\", \"a\"), cmp.Or(point{}, point{1, 2}))", fmt.Sprint(cmp.Compare(1.5, 2), cmp.Less("b", "a"), cmp.Or(point{}, point{1, 2}))},
		{"func() string { next, stop := iter.Pull(slices.Values(pts())); defer stop(); a, _ := next(); b, ok := next(); return fmt.Sprint(a, b, ok) }()", "{3 0} {1 1} true"},
		{"func() string { next, stop := iter.Pull2(maps.All(map[string]point{\"k\": {1, 2}})); k, v, ok := next(); _, _, more := next(); stop(); return fmt.Sprint(k, v, ok, more) }()", "k{1 2} true false"},
	}
	s, out, _ := newTestSession(t)
	setup := "import (\"cmp\"; \"iter\"; \"maps\"; \"slices\")\n" +
		"type point struct{ X, Y int }\n" +
		"func byX(a, b point) int { return cmp.Compare(a.X, b.X) }\n" +
		"func ints() []int { return []int{5, 2, 8, 2, 1} }\n" +
		"func pts() []point { return []point{{3, 0}, {1, 1}, {2, 2}, {1, 3}} }\n" +
		"func m() map[string]int { return map[string]int{\"b\": 2, \"a\": 1, \"c\": 3} }\n" +
		"func pm() map[point]string { return map[point]string{{1, 2}: \"x\", {0, 0}: \"o\"} }\n" +
		"func sortedPM(m map[point]string) []point { return slices.SortedFunc(maps.Keys(m), func(a, b point) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y)) }) }\n"
	if err := s.Eval(context.Background(), setup); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		out.Reset()
		if err := s.Eval(context.Background(), "fmt.Print("+tc.expr+")"); err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		var want bytes.Buffer
		fmt.Fprint(&want, tc.want)
		if out.String() != want.String() {
			t.Errorf("%s printed %q, Go prints %q", tc.expr, out.String(), want.String())
		}
	}
}
