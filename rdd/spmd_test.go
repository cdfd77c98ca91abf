package rdd

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sparknet-go/sparknet/data"
)

// localGroup connects goroutine ranks of one process: every collective
// waits until all ranks have called it.
type localGroup struct {
	n      int
	mu     sync.Mutex
	cond   *sync.Cond
	gen    int
	slots  [][]byte
	count  int
	result [][]byte
}

// localComm is one rank of a localGroup.
type localComm struct {
	g    *localGroup
	rank int
}

func newLocalComms(n int) []Comm {
	g := &localGroup{n: n, slots: make([][]byte, n)}
	g.cond = sync.NewCond(&g.mu)
	out := make([]Comm, n)
	for r := range out {
		out[r] = &localComm{g: g, rank: r}
	}
	return out
}

func (c *localComm) Rank() int { return c.rank }
func (c *localComm) Size() int { return c.g.n }

// exchange deposits data and returns every rank's deposit.
func (c *localComm) exchange(data []byte) [][]byte {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	gen := g.gen
	g.slots[c.rank] = append([]byte(nil), data...)
	g.count++
	if g.count == g.n {
		g.result, g.slots, g.count = g.slots, make([][]byte, g.n), 0
		g.gen++
		g.cond.Broadcast()
	}
	for gen == g.gen {
		g.cond.Wait()
	}
	return append([][]byte(nil), g.result...)
}

func (c *localComm) Allgather(data []byte) ([][]byte, error) { return c.exchange(data), nil }

func (c *localComm) Broadcast(root int, data []byte) ([]byte, error) {
	return c.exchange(data)[root], nil
}

// spmdDriver is driver code that every rank runs; it describes what it
// computed in one string.
func spmdDriver(sc *Context) string {
	var b strings.Builder
	say := func(what string, v any, err error) { fmt.Fprintf(&b, "%s: %v %v\n", what, v, err) }
	xs := sc.Range(0, 50, 1, 5).Cache()
	sq := xs.Map(func(x any) any { return x.(int) * x.(int) })
	v1, err := sq.Collect()
	say("collect", v1, err)
	v2, err := sq.Filter(func(x any) bool { return x.(int)%3 == 0 }).Count()
	say("count", v2, err)
	v3, err := sq.Reduce(sumInts)
	say("reduce", v3, err)
	v4, err := xs.TreeAggregate("", func(a, x any) any { return a.(string) + fmt.Sprint(x) }, func(a, b any) any { return a.(string) + b.(string) }, 2)
	say("treeAggregate", v4, err)
	v5, err := xs.Repartition(3).MapPartitionsWithIndex(func(p int, it []any) []any { return []any{fmt.Sprint(p, it)} }).Collect()
	say("repartition", v5, err)
	v6, err := xs.Union(sc.Parallelize([]string{"a", "b", "c"}, 2)).Coalesce(2).Collect()
	say("union+coalesce", v6, err)
	v7, err := xs.Zip(sq).Sample(false, 0.4, 3).Take(4)
	say("zip+sample+take", v7, err)

	acc := sc.Accumulator("odd")
	bc, _ := sc.Broadcast(map[string]any{"offset": 1000})
	v8, err := xs.Map(func(x any) any {
		if x.(int)%2 == 1 {
			acc.Add(1)
		}
		return x.(int) + bc.Value().(map[string]any)["offset"].(int)
	}).Take(3)
	say("broadcast", v8, err)
	say("accumulator", acc.Value(), nil)

	s, _ := data.NewSamples(20, 1, 1, 2, true)
	for i := range s.Labels {
		s.Labels[i] = float32(i)
		s.Floats[2*i] = float32(i)
	}
	samples := sc.ParallelizeSamples(s, 4).Cache()
	v9, err := samples.RunPartitions(nil, func(tc *TaskContext) (any, error) {
		n := tc.Store().Get("runs")
		if n == nil {
			n = 0
		}
		tc.Store().Set("runs", n.(int)+1)
		var sum float32
		for _, l := range tc.Samples().Labels {
			sum += l
		}
		return []float32{sum, float32(tc.Worker())}, nil
	})
	say("runPartitions", v9, err)
	v10, err := samples.Filter(func(x any) bool { return x.(data.Sample).Label >= 15 }).Repartition(2).CollectSamples()
	if err == nil {
		say("samples", fmt.Sprint(v10.Labels, v10.Floats), err)
	}
	v11, err := sc.RunWorkers(nil, func(tc *TaskContext) (any, error) { return tc.Store().Get("runs"), nil })
	say("runWorkers", v11, err)
	_, err = xs.Map(func(x any) any {
		if x.(int) == 17 { // partition 1, on rank 1
			panic("seventeen")
		}
		return x
	}).Count()
	var te *TaskError
	say("error", errors.As(err, &te) && te.Partition == 1, err)
	_, err = sc.Parallelize([]int{}, 2).First()
	say("empty", errors.Is(err, ErrEmpty), err)
	return b.String()
}

// TestSPMD runs the same driver on goroutine ranks over an SPMD engine
// and on the local engine: every rank must print the same as local.
func TestSPMD(t *testing.T) {
	const n = 3
	want := spmdDriver(newTestContext(t, fmt.Sprintf("local[%d]", n)))
	got := make([]string, n)
	var wg sync.WaitGroup
	for r, c := range newLocalComms(n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, err := NewContextWith(Options{Engine: NewSPMDEngine(c)})
			if err != nil {
				got[r] = err.Error()
				return
			}
			defer sc.Close()
			got[r] = spmdDriver(sc)
		}()
	}
	wg.Wait()
	for r := range got {
		if got[r] != want {
			t.Errorf("rank %d printed\n%s\nlocal[%d] printed\n%s", r, got[r], n, want)
		}
	}
	if !strings.Contains(want, "partition 1 failed after 4 attempts") {
		t.Errorf("driver output lacks the task error:\n%s", want)
	}
}

func TestSPMDUnregisteredType(t *testing.T) {
	type secret struct{ X int }
	comms := newLocalComms(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, _ := NewContextWith(Options{Engine: NewSPMDEngine(c)})
			defer sc.Close()
			_, errs[r] = sc.Range(0, 4, 1, 2).Map(func(x any) any { return secret{x.(int)} }).Collect()
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rdd.Register") {
			t.Errorf("rank %d: error %v", r, err)
		}
	}
	if !reflect.DeepEqual(errs[0].Error(), errs[1].Error()) {
		t.Errorf("ranks disagree: %v / %v", errs[0], errs[1])
	}
}

// vec is a custom type that crosses ranks through its binary form, as a
// weight collection does.
type vec struct{ xs []float32 }

func (v *vec) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 4*len(v.xs))
	for _, x := range v.xs {
		b = fmt.Appendf(b, "%g;", x)
	}
	return b, nil
}

func (v *vec) UnmarshalBinary(b []byte) error {
	v.xs = nil
	for _, f := range strings.Split(strings.TrimSuffix(string(b), ";"), ";") {
		var x float32
		if _, err := fmt.Sscan(f, &x); err != nil {
			return err
		}
		v.xs = append(v.xs, x)
	}
	return nil
}

func TestSPMDCustomType(t *testing.T) {
	if err := Register(&vec{}); err != nil {
		t.Fatal(err)
	}
	comms := newLocalComms(2)
	got := make([]string, 2)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, _ := NewContextWith(Options{Engine: NewSPMDEngine(c)})
			defer sc.Close()
			// Only rank 0's value counts.
			bc, err := sc.Broadcast(&vec{[]float32{float32(10 * (r + 1))}})
			if err != nil {
				got[r] = err.Error()
				return
			}
			res, err := sc.Range(0, 4, 1, 4).RunPartitions(nil, func(tc *TaskContext) (any, error) {
				return &vec{[]float32{bc.Value().(*vec).xs[0], float32(tc.Partition())}}, nil
			})
			var parts []string
			for _, v := range res {
				parts = append(parts, fmt.Sprint(v.(*vec).xs))
			}
			got[r] = fmt.Sprint(parts, err, sc.Master())
		}()
	}
	wg.Wait()
	want := "[[10 0] [10 1] [10 2] [10 3]] <nil>spmd[rank %d of 2]"
	for r := range got {
		if got[r] != fmt.Sprintf(want, r) {
			t.Errorf("rank %d: %s", r, got[r])
		}
	}
}
