package rdd

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// BenchmarkReduceByKey sums 10M int pairs by key (1,000 or 100,000
// distinct keys) with ReduceByKey on local[2], over a cached RDD of two
// partitions, and with a hand-written Go map-merge over the same pairs as
// a slice of structs (two goroutines each summing half into a
// map[int]int, then one map merged into the other), side by side:
//
//	go test -run='^$' -bench=ReduceByKey -benchtime=5x ./rdd/
//
// The goal is ReduceByKey within 3× of the map-merge.
func BenchmarkReduceByKey(b *testing.B) {
	for _, keys := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) { benchReduceByKey(b, keys) })
	}
}

func benchReduceByKey(b *testing.B, keys int) {
	const n = 10_000_000
	type kv struct{ k, v int }
	rng := rand.New(rand.NewPCG(1, 2))
	plain := make([]kv, n)
	pairs := make([]Pair, n)
	for i := range plain {
		plain[i] = kv{rng.IntN(keys), rng.IntN(100)}
		pairs[i] = Pair{Key: plain[i].k, Value: plain[i].v}
	}
	b.Run("go-map-merge", func(b *testing.B) {
		for b.Loop() {
			parts := make([]map[int]int, 2)
			var wg sync.WaitGroup
			for p := range parts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					m := map[int]int{}
					lo, hi := partitionBounds(n, 2, p)
					for _, x := range plain[lo:hi] {
						m[x.k] += x.v
					}
					parts[p] = m
				}()
			}
			wg.Wait()
			for k, v := range parts[1] {
				parts[0][k] += v
			}
			if len(parts[0]) != keys {
				b.Fatalf("%d keys", len(parts[0]))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/pair")
	})
	b.Run("rdd-local2", func(b *testing.B) {
		sc, err := NewContext("local[2]")
		if err != nil {
			b.Fatal(err)
		}
		defer sc.Close()
		r := sc.Parallelize(pairs, 2).Cache()
		if _, err := r.Count(); err != nil {
			b.Fatal(err)
		}
		add := func(a, b int) int { return a + b }
		for b.Loop() {
			m, err := r.ReduceByKey(add).CollectAsMap()
			if err != nil || len(m) != keys {
				b.Fatalf("%d keys, %v", len(m), err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/pair")
	})
}
