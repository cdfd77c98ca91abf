package slices

import (
	"cmp"
	"iter"
)

// Sort sorts x in ascending order (NaNs first).
func Sort[S ~[]E, E cmp.Ordered](x S) {
	o := order(len(x), func(i, j int) bool {
		a, b := x[i], x[j]
		return (a != a && b == b) || a < b
	})
	sorted := make([]E, len(x))
	for k, i := range o {
		sorted[k] = x[i]
	}
	copy(x, sorted)
}

// SortFunc sorts x in the order of cmp, which returns a negative number
// when a sorts before b, a positive one when after, and 0 when they are
// equal.
func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	o := order(len(x), func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
	sorted := make([]E, len(x))
	for k, i := range o {
		sorted[k] = x[i]
	}
	copy(x, sorted)
}

// SortStableFunc sorts x in the order of cmp, keeping equal elements in
// their order.
func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	o := order(len(x), func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
	sorted := make([]E, len(x))
	for k, i := range o {
		sorted[k] = x[i]
	}
	copy(x, sorted)
}

// order returns the indexes 0..n-1 sorted stably by less: runs of up to
// 12 by insertion, then merged pairwise.
func order(n int, less func(i, j int) bool) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	const run = 12
	for lo := 0; lo < n; lo += run {
		hi := lo + run
		if hi > n {
			hi = n
		}
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && less(idx[j], idx[j-1]); j-- {
				idx[j], idx[j-1] = idx[j-1], idx[j]
			}
		}
	}
	src, dst := idx, make([]int, n)
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := lo+width, lo+2*width
			if mid > n {
				mid = n
			}
			if hi > n {
				hi = n
			}
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if less(src[j], src[i]) {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	return src
}

// IsSorted reports whether x is in ascending order.
func IsSorted[S ~[]E, E cmp.Ordered](x S) bool {
	for i := len(x) - 1; i > 0; i-- {
		a, b := x[i], x[i-1]
		if (a != a && b == b) || a < b {
			return false
		}
	}
	return true
}

// IsSortedFunc reports whether x is in the order of cmp.
func IsSortedFunc[S ~[]E, E any](x S, cmp func(a, b E) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

// BinarySearch finds target in the sorted x: it returns where target is,
// or where it would be inserted, and whether it is there.
func BinarySearch[S ~[]E, E cmp.Ordered](x S, target E) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a := x[mid]; (a != a && target == target) || a < target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	found := lo < len(x) && (x[lo] == target || (x[lo] != x[lo] && target != target))
	return lo, found
}

// BinarySearchFunc is BinarySearch with cmp comparing an element with
// the target.
func BinarySearchFunc[S ~[]E, E, T any](x S, target T, cmp func(E, T) int) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cmp(x[mid], target) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(x) && cmp(x[lo], target) == 0
}

// Sorted returns the values of seq in a new slice, sorted.
func Sorted[E cmp.Ordered](seq iter.Seq[E]) []E {
	var s []E
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	o := order(len(s), func(i, j int) bool {
		a, b := s[i], s[j]
		return (a != a && b == b) || a < b
	})
	sorted := make([]E, len(s))
	for k, i := range o {
		sorted[k] = s[i]
	}
	copy(s, sorted)
	return s
}

// SortedFunc returns the values of seq in a new slice, sorted by cmp.
func SortedFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	var s []E
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	o := order(len(s), func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
	sorted := make([]E, len(s))
	for k, i := range o {
		sorted[k] = s[i]
	}
	copy(s, sorted)
	return s
}

// SortedStableFunc returns the values of seq in a new slice, sorted
// stably by cmp.
func SortedStableFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	var s []E
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	o := order(len(s), func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
	sorted := make([]E, len(s))
	for k, i := range o {
		sorted[k] = s[i]
	}
	copy(s, sorted)
	return s
}
