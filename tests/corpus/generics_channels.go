//go:build ignore

// Generic functions over channels: a generator, a merge of several
// channels ranged over in turn, and a labelled range over a slice of them.
package main

import "fmt"

func Gen[T any](vs ...T) <-chan T {
	ch := make(chan T, len(vs))
	for _, v := range vs {
		ch <- v
	}
	close(ch)
	return ch
}

func Merge[T any](chs ...<-chan T) []T {
	var out []T
	for _, ch := range chs {
		for v := range ch {
			out = append(out, v)
		}
	}
	return out
}

func FirstBig[T int | float64](limit T, chs [2]<-chan T) (int, T) {
	var i int
	var ch <-chan T
outer:
	for i, ch = range chs {
		for v := range ch {
			if v > limit {
				return i, v
			}
			if v < 0 {
				continue outer
			}
		}
	}
	return -1, 0
}

func main() {
	fmt.Println(Merge(Gen(1, 2), Gen(3), Gen[int]()))
	fmt.Println(Merge(Gen("a"), Gen("b", "c")))
	fmt.Println(FirstBig(5, [2]<-chan int{Gen(1, -1, 9), Gen(2, 7)}))
	fmt.Println(FirstBig(0.5, [2]<-chan float64{Gen(0.25), Gen(0.75)}))
}
