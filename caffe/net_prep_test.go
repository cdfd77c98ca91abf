package caffe

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// TestPrepAheadIdentical trains LeNet and CIFAR-10 quick a few steps on
// two threads with the convolutions' weights packed ahead of each pass
// (net_prep.go) and packed by the layers themselves: every blob's values
// and gradients and every weight must be the same bit for bit (the
// weights change at every step, so a packing left over from an earlier
// pass would show).
func TestPrepAheadIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two nets a few steps twice")
	}
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): nothing is packed ahead")
	}
	defer func(v bool) { prepAhead = v }(prepAhead)
	nets := []struct {
		name, model string
		c, h, w     int
		preps       int // layers prepared ahead of the forward pass
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, 2},
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, 3},
	}
	for _, nt := range nets {
		t.Run(nt.name, func(t *testing.T) {
			run := func(ahead bool) *Solver {
				prepAhead = ahead
				s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, 2)
				if err := s.Step(context.Background(), 3); err != nil {
					t.Fatal(err)
				}
				return s
			}
			ahead, alone := run(true), run(false)
			if got := len(ahead.Net().preps.layers); got != nt.preps {
				t.Errorf("%d layers prepared ahead, want %d", got, nt.preps)
			}
			for _, name := range ahead.Net().BlobNames() {
				a, b := ahead.Net().Blob(name), alone.Net().Blob(name)
				if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
					t.Errorf("blob %s value %d: ahead %v, alone %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
				}
				if i, ok := sameBits(a.DiffSlice(), b.DiffSlice()); !ok {
					t.Errorf("blob %s gradient %d: ahead %v, alone %v", name, i, a.DiffSlice()[i], b.DiffSlice()[i])
				}
			}
			pa, pb := ahead.Net().LearnableParams(), alone.Net().LearnableParams()
			for k := range pa {
				if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
					t.Errorf("parameter %d value %d: ahead %v, alone %v", k, i, pa[k].DataSlice()[i], pb[k].DataSlice()[i])
				}
			}
		})
	}
}

// TestChainedGroupsIdentical trains LeNet and CIFAR-10 quick a few steps
// on two threads with consecutive fused groups chained into one run per
// pass (LeNet's conv1 and conv2 groups, CIFAR-10 quick's conv2 and conv3)
// and the parts' weight gradients added by both threads, and with the
// groups run one after the other and those gradients added by one: every
// blob's values and gradients and every weight must be the same bit for
// bit. The chained runs go once as they come and once with every weight
// gradient that a part offers taken by the other thread (helpForced).
func TestChainedGroupsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two nets a few steps twice")
	}
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): no groups to chain")
	}
	defer func(v, w, h bool) { chainGroups, shareGradAdds, helpForced = v, w, h }(chainGroups, shareGradAdds, helpForced)
	nets := []struct {
		name, model string
		c, h, w     int
		chain       [2]string // the groups chained, by convolution
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, [2]string{"conv1", "conv2"}},
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, [2]string{"conv2", "conv3"}},
	}
	for _, nt := range nets {
		for _, forced := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/forced=%v", nt.name, forced), func(t *testing.T) {
				testChainedGroups(t, nt.model, nt.c, nt.h, nt.w, nt.chain, forced)
			})
		}
	}
}

// testChainedGroups is TestChainedGroupsIdentical for one net, the
// weight gradients that parts offer taken by the other thread if forced.
func testChainedGroups(t *testing.T, model string, c, h, w int, chain [2]string, forced bool) {
	run := func(chained bool) *Solver {
		chainGroups, shareGradAdds, helpForced = chained, chained, chained && forced
		s := benchSolver(t, model, c, h, w, 2)
		s.Net().SetKeepTops(false)
		if err := s.Step(context.Background(), 3); err != nil {
			t.Fatal(err)
		}
		return s
	}
	chained, alone := run(true), run(false)
	chainGroups, helpForced = true, false
	n := chained.Net()
	for _, name := range chain {
		if !oneBlockParts(n, name) {
			t.Skipf("%s: not one block a backward part with the kernels in use (%s): no chain to test", name, kernel.Implementation())
		}
	}
	var got [][2]string
	for _, f := range n.fusions {
		if f == nil {
			continue
		}
		if g := n.chainNext(f); g != nil && chainFits(f, g) && n.backwardChains(g, f) {
			got = append(got, [2]string{n.def.Layers[f.first].Name, n.def.Layers[g.first].Name})
		}
	}
	if len(got) != 1 || got[0] != chain {
		t.Errorf("chained groups %v, want %v", got, chain)
	}
	for _, name := range n.BlobNames() {
		a, b := n.Blob(name), alone.Net().Blob(name)
		if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
			t.Errorf("blob %s value %d: chained %v, alone %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
		}
		if i, ok := sameBits(a.DiffSlice(), b.DiffSlice()); !ok {
			t.Errorf("blob %s gradient %d: chained %v, alone %v", name, i, a.DiffSlice()[i], b.DiffSlice()[i])
		}
	}
	pa, pb := n.LearnableParams(), alone.Net().LearnableParams()
	for k := range pa {
		if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
			t.Errorf("parameter %d value %d: chained %v, alone %v", k, i, pa[k].DataSlice()[i], pb[k].DataSlice()[i])
		}
	}
}

// TestMergedPartsIdentical trains LeNet and CIFAR-10 quick a few steps on
// two threads with a goroutine's consecutive backward parts adding their
// weight gradients into the first part's (mergeParts) and each into its
// own buffer, with the weight gradients that the parts offer taken by the
// other thread or not: every weight, history and gradient must be the
// same bit for bit. It checks that parts merged.
func TestMergedPartsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two nets a few steps four times")
	}
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): no parts to merge")
	}
	defer func(v, h bool) { mergeParts, helpForced = v, h }(mergeParts, helpForced)
	nets := []struct {
		name, model string
		c, h, w     int
		conv        string // a convolution whose parts merge
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, "conv2"},
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, "conv3"},
	}
	for _, nt := range nets {
		for _, forced := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/forced=%v", nt.name, forced), func(t *testing.T) {
				merges := 0
				run := func(merge bool) *Solver {
					mergeParts, helpForced = merge, forced
					s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, 2)
					s.Net().SetKeepTops(false)
					for range 3 {
						if err := s.Step(context.Background(), 1); err != nil {
							t.Fatal(err)
						}
						conv := s.Net().layers[s.Net().layerByName[nt.conv]].(*Convolution)
						for _, g := range conv.grads {
							merges += btoi(g.merged)
						}
					}
					return s
				}
				alone := run(false)
				if merges != 0 {
					t.Fatalf("%d parts merged with mergeParts off", merges)
				}
				merged := run(true)
				if !oneBlockParts(merged.Net(), nt.conv) {
					t.Skipf("%s: not one block a backward part with the kernels in use (%s): no parts to merge", nt.conv, kernel.Implementation())
				}
				if merges == 0 {
					t.Errorf("no part of %s merged", nt.conv)
				}
				sameSolvers(t, merged, alone, "merged", "alone")
			})
		}
	}
}

// TestChainWeightsEarlyIdentical trains LeNet and CIFAR-10 quick a few
// steps on two threads with a chained backward run's parts computing the
// weight gradient they offered before the chained convolution's part
// (chainWeightsEarly), the adding of the first convolution's ranges
// waiting for those alone, and after it, as sameWithSwitch does.
func TestChainWeightsEarlyIdentical(t *testing.T) {
	defer func(v bool) { chainWeightsEarly = v }(chainWeightsEarly)
	sameWithSwitch(t, func(on bool) { chainWeightsEarly = on })
}

// TestChainAddsIdentical trains LeNet and CIFAR-10 quick a few steps on
// two threads with a chained backward run adding its parts' weight
// gradients in the run itself (chainAdds) and in a run of its own, as
// sameWithSwitch does.
func TestChainAddsIdentical(t *testing.T) {
	defer func(v bool) { chainAdds = v }(chainAdds)
	sameWithSwitch(t, func(on bool) { chainAdds = on })
}

// TestChainTakeRangesIdentical trains LeNet and CIFAR-10 quick a few
// steps on two threads with a chained backward run's goroutine that
// waits for every part running meanwhile the first convolution's ranges
// of the adding that no goroutine has begun (chainTakeRanges) and not, as
// sameWithSwitch does.
func TestChainTakeRangesIdentical(t *testing.T) {
	defer func(v bool) { chainTakeRanges = v }(chainTakeRanges)
	sameWithSwitch(t, func(on bool) { chainTakeRanges = on })
}

// TestSharePiecesIdentical trains LeNet and CIFAR-10 quick a few steps
// on two threads with a chained forward run's goroutine left without
// parts computing pieces of the other's block (sharePieces) and not, as
// sameWithSwitch does; with the offers taken by force, some of LeNet's
// blocks must have been shared.
func TestSharePiecesIdentical(t *testing.T) {
	defer func(v bool) { sharePieces = v }(sharePieces)
	before := piecesHelped.Load()
	sameWithSwitch(t, func(on bool) { sharePieces = on })
	if kernel.DirectConvLanes() == 0 || testing.Short() || piecesHelped.Load() != before {
		return
	}
	// Whether the other goroutine comes in time to take an offer is up
	// to the scheduler (under a loaded CI machine, now and then, not in
	// those few steps): LeNet trains on, forced, until one does.
	defer func(h bool) { helpForced = h }(helpForced)
	sharePieces, helpForced = true, true
	nt := switchNets[0]
	s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, 2)
	s.Net().SetKeepTops(false)
	for i := 0; i < 200 && piecesHelped.Load() == before; i++ {
		if err := s.Step(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
	}
	if piecesHelped.Load() == before {
		t.Error("no goroutine computed pieces of another's block in 200 more steps")
	}
}

// sameWithSwitch trains LeNet and CIFAR-10 quick, whose backward passes
// run chained, three steps on two threads with a switch set off and on,
// with the weight gradients that the parts offer taken by the other
// thread or not: every weight, history and gradient must be the same bit
// for bit.
func sameWithSwitch(t *testing.T, set func(on bool)) {
	if testing.Short() {
		t.Skip("trains two nets a few steps four times")
	}
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): no chained runs")
	}
	defer func(h bool) { helpForced = h }(helpForced)
	for _, nt := range switchNets {
		for _, forced := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/forced=%v", nt.name, forced), func(t *testing.T) {
				run := func(on bool) *Solver {
					set(on)
					helpForced = forced
					s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, 2)
					s.Net().SetKeepTops(false)
					if err := s.Step(context.Background(), 3); err != nil {
						t.Fatal(err)
					}
					return s
				}
				off, on := run(false), run(true)
				sameSolvers(t, on, off, "on", "off")
			})
		}
	}
}

// sameSolvers reports where solvers a and b (named an and bn) differ in
// their parameters' values, gradients or first history.
func sameSolvers(t *testing.T, a, b *Solver, an, bn string) {
	t.Helper()
	pa, pb := a.Net().LearnableParams(), b.Net().LearnableParams()
	for k := range pa {
		if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
			t.Errorf("parameter %d value %d: %s %v, %s %v", k, i, an, pa[k].DataSlice()[i], bn, pb[k].DataSlice()[i])
		}
		if i, ok := sameBits(pa[k].DiffSlice(), pb[k].DiffSlice()); !ok {
			t.Errorf("parameter %d gradient %d: %s %v, %s %v", k, i, an, pa[k].DiffSlice()[i], bn, pb[k].DiffSlice()[i])
		}
		if i, ok := sameBits(a.histSlices[k][0], b.histSlices[k][0]); !ok {
			t.Errorf("parameter %d history %d: %s %v, %s %v", k, i, an, a.histSlices[k][0][i], bn, b.histSlices[k][0][i])
		}
	}
}

// TestEarlyPrepsIdentical trains LeNet and CIFAR-10 quick a few steps on
// two threads with the work ahead of each backward pass begun within the
// forward pass before it (earlyPreps) and at the start of the backward
// pass: every blob's values and gradients and every weight must be the
// same bit for bit (the weights change at every step, so a packing of
// the weights before their update would show). It checks where the
// forward pass begins that work too: at the first of the last layers that
// leave the other threads idle.
func TestEarlyPrepsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two nets a few steps twice")
	}
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): nothing is packed ahead")
	}
	defer func(v bool) { earlyPreps = v }(earlyPreps)
	nets := []struct {
		name, model string
		c, h, w     int
		start       string // the layer at which the forward pass begins the work
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, "relu1"},
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, "ip2"},
	}
	for _, nt := range nets {
		t.Run(nt.name, func(t *testing.T) {
			run := func(early bool) *Solver {
				earlyPreps = early
				s := benchSolver(t, nt.model, nt.c, nt.h, nt.w, 2)
				if err := s.Step(context.Background(), 3); err != nil {
					t.Fatal(err)
				}
				return s
			}
			early, late := run(true), run(false)
			n := early.Net()
			if at := n.earlyStart(); at < 0 || n.LayerNames()[at] != nt.start {
				t.Errorf("the forward pass begins the backward pass's work ahead at layer %d, want %s", at, nt.start)
			}
			if n.earlyRunning || len(n.early.todo) != 0 {
				t.Errorf("work ahead left over after the steps: running %v, %d layers", n.earlyRunning, len(n.early.todo))
			}
			for _, name := range n.BlobNames() {
				a, b := n.Blob(name), late.Net().Blob(name)
				if i, ok := sameBits(a.DataSlice(), b.DataSlice()); !ok {
					t.Errorf("blob %s value %d: early %v, late %v", name, i, a.DataSlice()[i], b.DataSlice()[i])
				}
				if i, ok := sameBits(a.DiffSlice(), b.DiffSlice()); !ok {
					t.Errorf("blob %s gradient %d: early %v, late %v", name, i, a.DiffSlice()[i], b.DiffSlice()[i])
				}
			}
			pa, pb := n.LearnableParams(), late.Net().LearnableParams()
			for k := range pa {
				if i, ok := sameBits(pa[k].DataSlice(), pb[k].DataSlice()); !ok {
					t.Errorf("parameter %d value %d: early %v, late %v", k, i, pa[k].DataSlice()[i], pb[k].DataSlice()[i])
				}
			}
		})
	}
}

// TestConvPrepPieces checks the convolution's packing ahead in pieces
// (passPreparer): the packing is marked ready only once every piece is
// done, in whatever order they run; a piece that fails leaves it
// unmarked; and forgetting one pass's packing leaves the other's.
func TestConvPrepPieces(t *testing.T) {
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution (noasm build): nothing is packed ahead")
	}
	x, y := randBlob(1, -1, 1, 16, 20, 12, 12), NewBlob()
	l := setupLayer(t, `type: "Convolution" convolution_param { num_output: 50 kernel_size: 5 weight_filler { type: "xavier" } }`,
		&LayerEnv{Threads: 2}, blobs(x), blobs(y)).(*Convolution)
	plan := l.direct.plan
	for _, backward := range []bool{false, true} {
		ready := func() bool {
			if backward {
				return l.prepB == plan
			}
			return l.prepF == plan
		}
		pieces := l.prepPieces(backward, 3)
		if pieces < 2 || pieces > 3 {
			t.Fatalf("backward %v: %d pieces, want 2 or 3", backward, pieces)
		}
		for p := pieces - 1; p >= 0; p-- {
			if ready() {
				t.Fatalf("backward %v: ready before piece %d", backward, p)
			}
			l.prepare(backward, p)
		}
		if !ready() {
			t.Fatalf("backward %v: not ready after every piece", backward)
		}
		l.unprepare(!backward)
		if !ready() {
			t.Fatalf("backward %v: the other pass's unprepare forgot the packing", backward)
		}
		l.unprepare(backward)
		if ready() {
			t.Fatalf("backward %v: ready after unprepare", backward)
		}
		// A failed piece (unprepare in its stead) leaves it unmarked.
		l.prepPieces(backward, 2)
		l.prepare(backward, 0)
		l.unprepare(backward)
		l.prepare(backward, 1)
		if ready() {
			t.Fatalf("backward %v: ready after a failed piece", backward)
		}
	}
}

// BenchmarkPrepsAhead times, on two threads, LeNet's work ahead of a
// forward pass (its convolutions' packing) from its start to the moment
// the pass has it, the pass's goroutine spending 5 µs on serial layers
// in between (about LeNet's data layer), and reports the best, the first
// quartile and the median of that time, and the median of the pass's
// wait at its end:
//
//	go test -run '^$' -bench PrepsAhead -benchtime 4000x ./caffe
func BenchmarkPrepsAhead(b *testing.B) {
	s := benchSolver(b, "mnist/lenet_train_test.prototxt", 1, 28, 28, 2)
	n := s.Net()
	beginPass()
	defer endPass()
	var total, wait []time.Duration
	for b.Loop() {
		t0 := time.Now()
		n.startPreps(false)
		for time.Since(t0) < 5*time.Microsecond {
		}
		t1 := time.Now()
		n.waitPreps()
		t2 := time.Now()
		n.endPreps()
		total, wait = append(total, t2.Sub(t0)), append(wait, t2.Sub(t1))
		// The pass's layers: the other goroutine keeps polling.
		for time.Since(t2) < 30*time.Microsecond {
		}
	}
	slices.Sort(total)
	slices.Sort(wait)
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	b.ReportMetric(us(total[0]), "best-µs")
	b.ReportMetric(us(total[len(total)/4]), "q1-µs")
	b.ReportMetric(us(total[len(total)/2]), "median-µs")
	b.ReportMetric(us(wait[len(wait)/2]), "wait-median-µs")
}

// TestIPWholeSharesIdentical trains LeNet and CIFAR-10 quick a few steps
// on two threads with each goroutine's share of an inner product's
// backward run (input gradient blocks and weight gradient parts) run as
// one part (ipWholeShares) and not, as sameWithSwitch does.
func TestIPWholeSharesIdentical(t *testing.T) {
	defer func(v bool) { ipWholeShares = v }(ipWholeShares)
	sameWithSwitch(t, func(on bool) { ipWholeShares = on })
}

// oneBlockParts reports whether convolution name of n computes its
// backward pass one block a part on the direct path. Chained groups need
// it (Net.backwardChains), and only parts of one block merge
// (Convolution.partBlocks): AVX2's blocks of 8 images give CIFAR-10
// quick's batch of 100 more blocks (13) than a backward run has parts (8),
// and its conv3 then merged none.
func oneBlockParts(n *Net, name string) bool {
	c, ok := n.layers[n.layerByName[name]].(*Convolution)
	if !ok || c.direct == nil {
		return false
	}
	return c.direct.bwdParts == c.direct.nblocks
}
