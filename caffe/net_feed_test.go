package caffe

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// TestFedPiecesIdentical trains LeNet and CIFAR-10 quick a few steps on
// two threads with their batches fed whole and fed in pieces by the
// goroutines of the chained convolutions' run (feedInPieces), and checks
// that the feeder is called in pieces where it should be, and that the batches,
// the parameters, their gradients and the solver's history are the same
// bit for bit.
func TestFedPiecesIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two nets a few steps twice")
	}
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): no chained run to feed in")
	}
	defer func(v bool) { feedInPieces = v }(feedInPieces)
	nets := []struct {
		name, model string
		c, h, w     int
		pieces      bool // whether the batch is fed in pieces
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, true},
		// Its first convolution runs on the column path: the batch
		// is fed whole.
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, false},
	}
	const steps = 3
	for _, nt := range nets {
		t.Run(nt.name, func(t *testing.T) {
			run := func(pieces bool) (*Solver, int, []float32) {
				feedInPieces = pieces
				s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, 2)
				s.Net().SetKeepTops(false)
				md := s.Net().MemoryDataLayers()[0]
				batch, _, _, _ := md.BatchShape()
				state, pos, calls := uint32(1), 0, 0
				md.SetFeederInPieces(func(data, label []float32) error {
					calls++
					state = FillSynthetic(data, state)
					for i := range label {
						label[i] = float32((pos + i) % 10)
					}
					pos = (pos + len(label)) % batch
					return nil
				})
				var fed []float32
				for range steps {
					if err := s.Step(context.Background(), 1); err != nil {
						t.Fatal(err)
					}
					top := s.Net().tops[0]
					fed = append(fed, top[0].DataSlice()...)
					fed = append(fed, top[1].DataSlice()...)
				}
				return s, calls, fed
			}
			whole, wholeCalls, wholeFed := run(false)
			if wholeCalls != steps {
				t.Fatalf("fed whole: %d feeder calls in %d steps", wholeCalls, steps)
			}
			pieces, pieceCalls, piecesFed := run(true)
			if (pieceCalls > steps) != nt.pieces {
				t.Errorf("fed in pieces: %d feeder calls in %d steps, want pieces %v", pieceCalls, steps, nt.pieces)
			}
			if i, ok := sameBits(piecesFed, wholeFed); !ok {
				t.Fatalf("batch value %d: in pieces %v, whole %v", i, piecesFed[i], wholeFed[i])
			}
			sameSolvers(t, pieces, whole, "in pieces", "whole")
		})
	}
}

// TestFedPiecesError checks that an error and a panic of a feeder that
// fills a later piece of the batch come back from Forward.
func TestFedPiecesError(t *testing.T) {
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): no chained run to feed in")
	}
	boom := errors.New("boom")
	for _, panics := range []bool{false, true} {
		s := benchSolver(t, "mnist/lenet_train_test.prototxt", 1, 28, 28, 2)
		md := s.Net().MemoryDataLayers()[0]
		calls := 0
		md.SetFeederInPieces(func(data, label []float32) error {
			calls++
			if calls == 2 {
				if panics {
					panic("bad piece")
				}
				return boom
			}
			return nil
		})
		_, err := s.Net().Forward()
		want := "feeder: boom"
		if panics {
			want = "feeder panicked: bad piece"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("panics %v: Forward returned %v, want an error with %q", panics, err, want)
		}
		if calls != 2 {
			t.Errorf("panics %v: %d feeder calls, want 2", panics, calls)
		}
	}
}
