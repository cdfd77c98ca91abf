package caffe

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// TestPooledBiasInTiles trains LeNet and CIFAR-10 quick with batches of
// whole blocks and with a last short block, on one thread and two, with
// the bias gradients of the pooled convolution groups taken from their
// lanes (pooledBiasInTiles) and from the output gradient in Caffe's
// layout, and checks that every blob and every parameter, values and
// gradients, are the same bit for bit after two steps; and that with the
// switch on the groups' buffers for that layout went unwritten.
func TestPooledBiasInTiles(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet and CIFAR-10 quick twelve times each")
	}
	defer func(v bool) { pooledBiasInTiles = v }(pooledBiasInTiles)
	nets := []struct {
		name, model string
		c, h, w     int
		batches     []uint32
		convs       []string // the groups whose buffers go unwritten
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, []uint32{64, 50, 17}, []string{"conv1", "conv2"}},
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, []uint32{100, 32, 21}, []string{"conv2", "conv3"}},
	}
	for _, nt := range nets {
		for _, batch := range nt.batches {
			for _, threads := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/batch=%d/threads=%d", nt.name, batch, threads), func(t *testing.T) {
					run := func(on bool) *Solver {
						pooledBiasInTiles = on
						s := batchSolver(t, nt.model, batch, nt.c, nt.h, nt.w, threads, func(sp *caffepb.SolverParameter) {
							sp.Momentum, sp.WeightDecay = proto.Float32(0.9), proto.Float32(5e-4)
						})
						feedSynthetic(s, 7, 0, 10)
						s.Net().SetKeepTops(false)
						if err := s.Step(context.Background(), 1); err != nil {
							t.Fatal(err)
						}
						for _, name := range nt.convs {
							if d := s.Net().Layer(name).(*Convolution).direct; d != nil {
								for _, b := range d.dyBuf {
									fillFloats(b, 7)
								}
							}
						}
						if err := s.Step(context.Background(), 1); err != nil {
							t.Fatal(err)
						}
						return s
					}
					off, on := run(false), run(true)
					for _, name := range on.Net().BlobNames() {
						a, b := on.Net().Blob(name), off.Net().Blob(name)
						if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
							t.Errorf("blob %s value %d: %v, want %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
						}
					}
					for i, p := range on.Net().LearnableParams() {
						q := off.Net().LearnableParams()[i]
						if j, ok := sameBits(p.DataSlice(), q.DataSlice()); !ok {
							t.Errorf("parameter %d value %d: %v, want %v", i, j, p.DataSlice()[j], q.DataSlice()[j])
						}
						if j, ok := sameBits(p.DiffSlice(), q.DiffSlice()); !ok {
							t.Errorf("parameter %d gradient %d: %v, want %v", i, j, p.DiffSlice()[j], q.DiffSlice()[j])
						}
					}
					for _, name := range nt.convs {
						c := on.Net().Layer(name).(*Convolution)
						d := c.direct
						if d == nil || d.plan.Lanes() > int(batch) {
							continue // no block pooled in lanes
						}
						for w, b := range d.dyBuf {
							if slices.ContainsFunc(b, func(v float32) bool { return v != 7 }) {
								t.Errorf("%s: worker %d's buffer for the output gradient written", name, w)
							}
						}
					}
				})
			}
		}
	}
}

// batchSolver returns an SGD solver (learning rate 0.01, fixed, seed 1)
// of the shared model with batches of batch images of c×h×w, its data
// layers replaced by inputs that feedSynthetic fills, on threads threads;
// set, if not nil, changes the solver's parameters first.
func batchSolver(t testing.TB, model string, batch uint32, c, h, w, threads int, set func(*caffepb.SolverParameter)) *Solver {
	t.Helper()
	np, err := LoadNetParameter(filepath.Join(sharedModels(t), model))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range np.Layer {
		if p := l.GetDataParam(); p != nil {
			p.BatchSize = proto.Uint32(batch)
		}
	}
	if _, err := ReplaceDataLayers(np, c, h, w); err != nil {
		t.Fatal(err)
	}
	sp := &caffepb.SolverParameter{NetParam: np, Type: proto.String("SGD"), BaseLr: proto.Float32(0.01), LrPolicy: proto.String("fixed")}
	if set != nil {
		set(sp)
	}
	s, err := NewSolver(sp, SolverOptions{Threads: threads, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
