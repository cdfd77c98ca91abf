package data

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
)

// drawLabels draws batches and returns the labels seen, which in
// testSamples are the sample indices.
func drawLabels(t *testing.T, b *Batcher, batches int) []int {
	t.Helper()
	x := make([]float32, b.DataLen())
	y := make([]float32, b.Size())
	var seen []int
	for i := 0; i < batches; i++ {
		if err := b.Next(x, y); err != nil {
			t.Fatal(err)
		}
		for _, l := range y {
			seen = append(seen, int(l))
		}
	}
	return seen
}

func TestBatcherSequential(t *testing.T) {
	s := testSamples(t, 10, 1, 2, 2, false)
	b, err := NewBatcher(s, BatchOptions{Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	got := drawLabels(t, b, 5)
	var want []int
	for i := 0; i < 20; i++ {
		want = append(want, i%10)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	if b.Epoch() != 2 {
		t.Errorf("epoch %d after 20 of 10 samples, want 2", b.Epoch())
	}
	// The data must follow the labels.
	x := make([]float32, b.DataLen())
	y := make([]float32, b.Size())
	b.Next(x, y)
	for k, l := range y {
		want := values(s, int(l))
		if !reflect.DeepEqual(x[k*4:(k+1)*4], want) {
			t.Errorf("sample %d data %v, want %v", k, x[k*4:(k+1)*4], want)
		}
	}
}

func TestBatcherShuffle(t *testing.T) {
	s := testSamples(t, 12, 1, 1, 3, true)
	b, err := NewBatcher(s, BatchOptions{Size: 5, Order: Shuffle, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := drawLabels(t, b, 12) // 60 samples: 5 epochs
	for e := 0; e < 5; e++ {
		epoch := append([]int(nil), got[e*12:(e+1)*12]...)
		sort.Ints(epoch)
		for i, v := range epoch {
			if v != i {
				t.Fatalf("epoch %d is not a permutation: %v", e, got[e*12:(e+1)*12])
			}
		}
	}
	if reflect.DeepEqual(got[:12], got[12:24]) {
		t.Error("two epochs in the same order")
	}
	b2, _ := NewBatcher(s, BatchOptions{Size: 5, Order: Shuffle, Seed: 3})
	if again := drawLabels(t, b2, 12); !reflect.DeepEqual(again, got) {
		t.Error("equal seeds gave different orders")
	}
	b3, _ := NewBatcher(s, BatchOptions{Size: 5, Order: Shuffle, Seed: 4})
	if other := drawLabels(t, b3, 12); reflect.DeepEqual(other, got) {
		t.Error("different seeds gave the same order")
	}
}

func TestBatcherRandomWindows(t *testing.T) {
	s := testSamples(t, 11, 1, 1, 1, false)
	b, err := NewBatcher(s, BatchOptions{Size: 3, Order: RandomWindows, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := drawLabels(t, b, 60)
	windows := map[int]bool{}
	for k := 0; k < len(got); k += 3 {
		start := got[k]
		if start%3 != 0 || got[k+1] != start+1 || got[k+2] != start+2 {
			t.Fatalf("batch %v is not an aligned window", got[k:k+3])
		}
		windows[start/3] = true
	}
	if len(windows) != 3 {
		t.Errorf("saw windows %v, want all of 0, 1, 2 (the partial window 9..10 never)", windows)
	}
	if b.Epoch() != 20 {
		t.Errorf("epoch %d after 60 of 3 windows, want 20", b.Epoch())
	}
}

func TestBatcherTransform(t *testing.T) {
	s := testSamples(t, 4, 3, 4, 4, false)
	b, err := NewBatcher(s, BatchOptions{Size: 2, Transform: Transform{CropSize: 2, Scale: 0.5, MeanValues: []float32{1, 2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, c, h, w := b.Shape(); n != 2 || c != 3 || h != 2 || w != 2 {
		t.Errorf("shape %d×%d×%d×%d, want 2×3×2×2", n, c, h, w)
	}
	x := make([]float32, b.DataLen())
	if err := b.Next(x, nil); err != nil {
		t.Fatal(err)
	}
	want := append(refTransform(values(s, 0), 3, 4, 4, Transform{CropSize: 2, Scale: 0.5, MeanValues: []float32{1, 2, 3}}, 1, 1, false),
		refTransform(values(s, 1), 3, 4, 4, Transform{CropSize: 2, Scale: 0.5, MeanValues: []float32{1, 2, 3}}, 1, 1, false)...)
	if !reflect.DeepEqual(x, want) {
		t.Errorf("batch %v, want %v", x, want)
	}
}

func TestBatcherErrors(t *testing.T) {
	s := testSamples(t, 4, 1, 2, 2, false)
	tests := []struct {
		name string
		s    *Samples
		o    BatchOptions
	}{
		{"zero size", s, BatchOptions{}},
		{"empty", s.Slice(0, 0), BatchOptions{Size: 1}},
		{"window larger than data", s, BatchOptions{Size: 5, Order: RandomWindows}},
		{"unknown order", s, BatchOptions{Size: 1, Order: 9}},
		{"bad crop", s, BatchOptions{Size: 1, Transform: Transform{CropSize: 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewBatcher(tc.s, tc.o); err == nil {
				t.Error("no error")
			}
		})
	}
	b, _ := NewBatcher(s, BatchOptions{Size: 2})
	if err := b.Next(make([]float32, 3), nil); err == nil {
		t.Error("short buffer: no error")
	}
	if err := b.Next(make([]float32, 8), make([]float32, 1)); err == nil {
		t.Error("short labels: no error")
	}
}

func TestBatcherAllocations(t *testing.T) {
	s := testSamples(t, 1000, 1, 28, 28, false)
	for _, order := range []Order{Sequential, Shuffle, RandomWindows} {
		b, err := NewBatcher(s, BatchOptions{Size: 64, Order: order, Transform: Transform{Scale: 1.0 / 256, CropSize: 24, Mirror: true, Train: true}})
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float32, b.DataLen())
		y := make([]float32, b.Size())
		if n := testing.AllocsPerRun(100, func() { b.Next(x, y) }); n != 0 {
			t.Errorf("%v: %v allocations per batch, want 0", order, n)
		}
	}
}

func BenchmarkBatcher(b *testing.B) {
	for _, order := range []Order{Sequential, Shuffle} {
		b.Run(order.String(), func(b *testing.B) {
			s := testSamples(b, 10000, 1, 28, 28, false)
			bt, err := NewBatcher(s, BatchOptions{Size: 64, Order: order, Transform: Transform{Scale: 1.0 / 256}})
			if err != nil {
				b.Fatal(err)
			}
			x := make([]float32, bt.DataLen())
			y := make([]float32, bt.Size())
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := bt.Next(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestBatcherSkip(t *testing.T) {
	for _, order := range []Order{Sequential, Shuffle, RandomWindows} {
		s := testSamples(t, 11, 1, 1, 3, true)
		opts := BatchOptions{Size: 4, Order: order, Seed: 9, Transform: Transform{Mirror: true, Train: true, Seed: 4}}
		a, err := NewBatcher(s, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewBatcher(s, opts)
		drawLabels(t, a, 7)
		if err := b.Skip(7); err != nil {
			t.Fatal(err)
		}
		if got, want := drawLabels(t, b, 5), drawLabels(t, a, 5); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: after Skip(7) labels %v, want %v", order, got, want)
		}
	}
}

// TestBatcherShortBatch checks that a shorter buffer takes a short batch
// of the next samples, as a test pass over a partition needs at its end.
func TestBatcherShortBatch(t *testing.T) {
	s, err := NewSamples(7, 1, 1, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Floats {
		s.Floats[i] = float32(i)
	}
	for i := range s.Labels {
		s.Labels[i] = float32(i)
	}
	b, err := NewBatcher(s, BatchOptions{Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	var labels []float32
	for _, k := range []int{3, 3, 1} {
		d, l := make([]float32, 2*k), make([]float32, k)
		if err := b.Next(d, l); err != nil {
			t.Fatal(err)
		}
		if d[0] != 2*l[0] {
			t.Errorf("data %v for labels %v", d, l)
		}
		labels = append(labels, l...)
	}
	if fmt.Sprint(labels) != "[0 1 2 3 4 5 6]" || b.Epoch() != 1 {
		t.Errorf("one pass gave labels %v, epoch %d", labels, b.Epoch())
	}
	for _, n := range []int{0, 3, 8} {
		if err := b.Next(make([]float32, n), nil); err == nil {
			t.Errorf("a buffer of %d values: no error", n)
		}
	}
}

// TestBatcherPieces checks that in the Sequential and Shuffle orders a
// batch taken in consecutive pieces (short batches) is the batch taken
// whole, random crops and mirrors included, across epochs: what
// caffe.MemoryData.SetFeederInPieces asks of a feeder.
func TestBatcherPieces(t *testing.T) {
	s := testSamples(t, 7, 2, 4, 4, false)
	tr := Transform{CropSize: 3, Mirror: true, Train: true, Scale: 0.5, Seed: 3}
	for _, order := range []Order{Sequential, Shuffle} {
		whole, err := NewBatcher(s, BatchOptions{Size: 4, Order: order, Seed: 5, Transform: tr})
		if err != nil {
			t.Fatal(err)
		}
		pieces, err := NewBatcher(s, BatchOptions{Size: 4, Order: order, Seed: 5, Transform: tr})
		if err != nil {
			t.Fatal(err)
		}
		od := whole.DataLen() / 4
		for batch := range 5 {
			x, l := make([]float32, 4*od), make([]float32, 4)
			if err := whole.Next(x, l); err != nil {
				t.Fatal(err)
			}
			y, m := make([]float32, 4*od), make([]float32, 4)
			for _, cut := range [][2]int{{0, 1}, {1, 3}, {3, 4}} {
				if err := pieces.Next(y[cut[0]*od:cut[1]*od], m[cut[0]:cut[1]]); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(x, y) || !reflect.DeepEqual(l, m) {
				t.Errorf("%v batch %d: in pieces %v %v, whole %v %v", order, batch, y, m, x, l)
			}
		}
		if whole.Epoch() != pieces.Epoch() || whole.Epoch() == 0 {
			t.Errorf("%v: epoch %d in pieces, %d whole", order, pieces.Epoch(), whole.Epoch())
		}
	}
}
