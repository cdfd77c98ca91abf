package slices

import (
	"cmp"
	"iter"
)

// Sort sorts x in ascending order (NaNs first).
func Sort[S ~[]E, E cmp.Ordered](x S) {
	SortStableFunc[S, E](x, cmp.Compare[E])
}

// SortFunc sorts x in the order of cmp, which returns a negative number
// when a sorts before b, a positive one when after, and 0 when they are
// equal.
func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	SortStableFunc[S, E](x, cmp)
}

// SortStableFunc sorts x in the order of cmp, keeping equal elements in
// their order.
func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	if len(x) < 2 {
		return
	}
	buf := make([]E, len(x))
	mergeSort[E]([]E(x), buf, cmp)
}

// mergeSort sorts x stably, using buf (as long as x) as scratch space:
// runs of up to 12 elements by insertion, then merged pairwise.
func mergeSort[E any](x, buf []E, cmp func(a, b E) int) {
	const run = 12
	n := len(x)
	for lo := 0; lo < n; lo += run {
		hi := lo + run
		if hi > n {
			hi = n
		}
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && cmp(x[j], x[j-1]) < 0; j-- {
				x[j], x[j-1] = x[j-1], x[j]
			}
		}
	}
	src, dst := x, buf
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
				if cmp(src[j], src[i]) < 0 {
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
	if &src[0] != &x[0] {
		copy(x, src)
	}
}

// IsSorted reports whether x is in ascending order.
func IsSorted[S ~[]E, E cmp.Ordered](x S) bool {
	return IsSortedFunc[S, E](x, cmp.Compare[E])
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
	return BinarySearchFunc[S, E, E](x, target, cmp.Compare[E])
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
	s := Collect[E](seq)
	Sort[[]E, E](s)
	return s
}

// SortedFunc returns the values of seq in a new slice, sorted by cmp.
func SortedFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	s := Collect[E](seq)
	SortFunc[[]E, E](s, cmp)
	return s
}

// SortedStableFunc returns the values of seq in a new slice, sorted
// stably by cmp.
func SortedStableFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	s := Collect[E](seq)
	SortStableFunc[[]E, E](s, cmp)
	return s
}
