package rdd

// The compiled paths of ReduceByKey: for the common functions (such as
// func(a, b int) int) over keys of a common type, the values are combined
// unboxed in a typed map, which is several times faster than combining
// boxed values through the any-typed closure.

// fastReducer returns the compiled aggregation for f, or nil.
func fastReducer(f any) func(key any) fastAgg {
	switch f := f.(type) {
	case func(a, b int) int:
		return fastFor(f)
	case func(a, b int64) int64:
		return fastFor(f)
	case func(a, b float64) float64:
		return fastFor(f)
	case func(a, b float32) float32:
		return fastFor(f)
	}
	return nil
}

// fastFor picks the key type from a sample key.
func fastFor[V any](f func(V, V) V) func(key any) fastAgg {
	return func(key any) fastAgg {
		switch key.(type) {
		case int:
			return &typedAgg[int, V]{index: map[int]int32{}, f: f}
		case string:
			return &typedAgg[string, V]{index: map[string]int32{}, f: f}
		case int64:
			return &typedAgg[int64, V]{index: map[int64]int32{}, f: f}
		}
		return nil
	}
}

// typedAgg reduces pairs with keys of type K and values of type V.
type typedAgg[K comparable, V any] struct {
	index map[K]int32
	keys  []K
	vals  []V
	f     func(V, V) V
}

func (a *typedAgg[K, V]) add(elems []any) int {
	for i, x := range elems {
		kv, ok := x.(Pair)
		if !ok {
			return i
		}
		k, ok := kv.Key.(K)
		if !ok {
			return i
		}
		v, ok := kv.Value.(V)
		if !ok {
			return i
		}
		if j, ok := a.index[k]; ok {
			a.vals[j] = a.f(a.vals[j], v)
			continue
		}
		a.index[k] = int32(len(a.keys))
		a.keys = append(a.keys, k)
		a.vals = append(a.vals, v)
	}
	return len(elems)
}

func (a *typedAgg[K, V]) pairs() []any {
	out := make([]any, len(a.keys))
	for i, k := range a.keys {
		out[i] = Pair{Key: k, Value: a.vals[i]}
	}
	return out
}

func (a *typedAgg[K, V]) generic() *keyedAgg {
	g := &keyedAgg{index: make(map[any]int, len(a.keys)), keys: make([]any, len(a.keys)), vals: make([]any, len(a.keys))}
	for i, k := range a.keys {
		g.index[k] = i
		g.keys[i] = k
		g.vals[i] = a.vals[i]
	}
	return g
}
