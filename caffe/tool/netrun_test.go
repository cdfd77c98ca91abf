package tool

import (
	"slices"
	"testing"

	"github.com/sparknet-go/sparknet/caffe"
)

// TestSyntheticFeeder checks the batches of the synthetic inputs: the
// stream of caffe.FillSynthetic, made ahead and handed out in turn (the
// first batches repeating), labels 0..9, and a batch of another size
// made as it is asked for.
func TestSyntheticFeeder(t *testing.T) {
	const n, size = 12, 12 * 5
	feed := syntheticFeeder(n, size)
	want := make([][]float32, syntheticBatches)
	state := uint32(12345)
	for i := range want {
		want[i] = make([]float32, size)
		state = caffe.FillSynthetic(want[i], state)
	}
	data, label := make([]float32, size), make([]float32, n)
	for it := range 2*syntheticBatches + 1 {
		clear(data)
		if err := feed(data, label); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(data, want[it%syntheticBatches]) {
			t.Fatalf("batch %d: %v, want the stream's batch %d %v", it, data[:4], it%syntheticBatches, want[it%syntheticBatches][:4])
		}
		for i, v := range label {
			if v != float32(i%10) {
				t.Fatalf("batch %d: label %d = %v, want %d", it, i, v, i%10)
			}
		}
	}
	// A batch of another size continues the stream after the ring.
	other := make([]float32, 7)
	if err := feed(other, make([]float32, 3)); err != nil {
		t.Fatal(err)
	}
	next := make([]float32, 7)
	caffe.FillSynthetic(next, state)
	if !slices.Equal(other, next) {
		t.Fatalf("a batch of another size: %v, want %v", other, next)
	}
	// Large batches: fewer in the ring, at least one.
	if got := len(syntheticRing(syntheticBytes)); got != 1 {
		t.Errorf("a batch of %d bytes: %d in the ring, want 1", 4*syntheticBytes, got)
	}
}
