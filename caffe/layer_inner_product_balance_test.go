package caffe

import (
	"slices"
	"testing"
	"time"
)

// TestIPBalanceRowsIdentical trains LeNet and CIFAR-10 quick a few steps
// on two threads with the inner products' weight-gradient rows cut
// between the goroutines' shares where their times put them, the cuts
// swung between their bounds at every step (ipSplitSwing), and in equal
// shares, as sameWithSwitch does: the same values, bit for bit.
func TestIPBalanceRowsIdentical(t *testing.T) { sameWithSwitchSwung(t, &ipBalanceRows) }

// TestIPCrossBlocksIdentical trains LeNet and CIFAR-10 quick a few steps
// on two threads with the input gradient's two depth blocks computed
// crossed (crossTask) and added after, the weight-gradient cuts swung
// between their bounds at every step (ipSplitSwing), so that a share's
// rows reach into the other's block: the same values, bit for bit.
func TestIPCrossBlocksIdentical(t *testing.T) { sameWithSwitchSwung(t, &ipCrossBlocks) }

// TestIPTopInRunIdentical trains LeNet and CIFAR-10 quick a few steps on
// two threads with ip2's backward pass (and relu1's) taken into ip1's run
// (ipTopInRun) and in runs of their own, the weight-gradient cuts swung
// between their bounds at every step (ipSplitSwing), so that a share's
// rows need the other's columns of the output gradient: the same values,
// bit for bit.
func TestIPTopInRunIdentical(t *testing.T) { sameWithSwitchSwung(t, &ipTopInRun) }

// TestIPCrossEarlyRowsIdentical trains LeNet and CIFAR-10 quick a few
// steps on two threads with a crossed run's first rows of the weight
// gradient computed between its blocks' tasks (ipCrossEarlyRows) and
// after them, the weight-gradient cuts swung between their bounds at
// every step (ipSplitSwing): the same values, bit for bit.
func TestIPCrossEarlyRowsIdentical(t *testing.T) { sameWithSwitchSwung(t, &ipCrossEarlyRows) }

// sameWithSwitchSwung runs sameWithSwitch on the switch v with the
// weight-gradient cuts swung between their bounds at every step
// (ipSplitSwing).
func sameWithSwitchSwung(t *testing.T, v *bool) {
	defer func(on, w bool) { *v, ipSplitSwing = on, w }(*v, ipSplitSwing)
	ipSplitSwing = true
	sameWithSwitch(t, func(on bool) { *v = on })
}

// TestIPRowSplitLearn feeds an ipRowSplit the ends of runs on two shares
// and checks where its cut goes: towards the share that ends first when
// the other ends later by more than ipSplitMove tiles' time on average
// (the median) over a window, never beyond its bounds, and nowhere for
// differences within that, for a few runs that end much later, or for
// runs in which a goroutine ran the other's share.
func TestIPRowSplitLearn(t *testing.T) {
	const tiles, fixed = 36, 36
	tileT := 10 * time.Microsecond
	var s ipRowSplit
	if most := s.setup(tiles, 2, 2); most != (18+tiles/2/ipSplitReach+1)/2 {
		t.Fatalf("setup: most tiles a part %d", most)
	}
	even := s.cut[1]
	// run records a run whose share 1 ends d after share 0, both busy
	// for their tiles' time, goroutine w1 running share 1.
	run := func(d time.Duration, w1 int) {
		busy := time.Duration(tiles+fixed) * tileT / 2
		s.end[0], s.busy[0], s.ran[0] = busy, busy-d/2, 0
		s.end[1], s.busy[1], s.ran[1] = busy+d, busy+d/2, w1
		s.learn(fixed)
	}
	window := func(d time.Duration, w1 int) {
		for range ipSplitWindow {
			run(d, w1)
		}
	}
	window(tileT, 1) // within the noise
	window(-tileT, 1)
	if s.cut[1] != even {
		t.Fatalf("cut %d after differences of one tile, want %d", s.cut[1], even)
	}
	for r := range ipSplitWindow {
		run(time.Duration(100*(r%3/2))*tileT, 1) // a third of the runs stretched
	}
	if s.cut[1] != even {
		t.Fatalf("cut %d after a few runs stretched, want %d", s.cut[1], even)
	}
	window(3*tileT, 0) // another goroutine's run: nothing said
	if s.cut[1] != even {
		t.Fatalf("cut %d after runs of one goroutine, want %d", s.cut[1], even)
	}
	window(3*tileT, 1)
	if s.cut[1] != even+1 {
		t.Fatalf("cut %d after share 1 ended 3 tiles later, want %d", s.cut[1], even+1)
	}
	for range ipSplitWindow * tiles {
		run(100*tileT, 1) // the cut bounded
	}
	if s.cut[1] != s.most[1] || s.most[1] != even+tiles/2/ipSplitReach {
		t.Fatalf("cut %d after share 1 ended much later, want its bound %d", s.cut[1], s.most[1])
	}
	for range ipSplitWindow * tiles {
		run(-3*tileT, 1)
	}
	if s.cut[1] != s.least[1] {
		t.Fatalf("cut %d after share 0 ended later, want its bound %d", s.cut[1], s.least[1])
	}
	for c := range s.chunks {
		lo, hi := s.rows(1, c, 14, 500)
		if want, _ := span(c, 2, tiles-s.cut[1]); lo != (s.cut[1]+want)*14 || c == 1 && hi != 500 {
			t.Errorf("share 1 part %d: rows [%d, %d)", c, lo, hi)
		}
	}
}

// TestIPNextInRunIdentical trains LeNet and CIFAR-10 quick a few steps on
// two threads with ip2's forward pass taken into ip1's run (ipNextInRun)
// and run after it: the same values, bit for bit.
func TestIPNextInRunIdentical(t *testing.T) { sameWithSwitch(t, func(on bool) { ipNextInRun = on }) }

// TestIPNextInRunBatches runs LeNet's forward pass on two threads with
// batches whose images cut into parts of other sizes (a last part of 8
// images, of 1, which takes the run after ip1's, and 2), with ip2 in ip1's
// run and after it, and on one thread: ip2's top is the same, bit for
// bit, and the two-thread run took it in where it should.
func TestIPNextInRunBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("builds LeNet eight times")
	}
	defer func(v bool) { ipNextInRun = v }(ipNextInRun)
	for _, batch := range []uint32{64, 40, 33, 34} {
		run := func(threads int, on bool) (top []float32, took bool) {
			ipNextInRun = on
			s := batchSolver(t, "mnist/lenet_train_test.prototxt", batch, 1, 28, 28, threads, nil)
			feedSynthetic(s, 7, 0, 1000)
			if _, err := s.Net().Forward(); err != nil {
				t.Fatal(err)
			}
			return slices.Clone(s.Net().Blob("ip2").DataSlice()), s.Net().Layer("ip1").(*InnerProduct).fwdNextRan
		}
		want, _ := run(1, true)
		off, tookOff := run(2, false)
		on, tookOn := run(2, true)
		if tookOff || tookOn != (batch%pairImages != 1) {
			t.Errorf("batch %d: ip2 in ip1's run: off %v, on %v", batch, tookOff, tookOn)
		}
		for name, got := range map[string][]float32{"off": off, "on": on} {
			if i, ok := sameBits(got, want); !ok {
				t.Errorf("batch %d, two threads, ip2 in ip1's run %s: ip2's top %d is %v, one thread %v", batch, name, i, got[i], want[i])
			}
		}
	}
}
