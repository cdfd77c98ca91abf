package caffe

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/internal/alloctest"
)

// benchSolver builds a solver training one of the shared example nets with
// synthetic batches of c×h×w samples fed to MemoryData layers, and the
// settings of Caffe's LeNet example: SGD, lr 0.01, momentum 0.9, weight
// decay 5e-4 (what the PyTorch peer benchmark runs too).
func benchSolver(tb testing.TB, model string, c, h, w, threads int) *Solver {
	tb.Helper()
	path := filepath.FromSlash(model)
	if !strings.HasPrefix(model, "testdata/") {
		path = filepath.Join(sharedModels(tb), path)
	}
	np, err := LoadNetParameter(path)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := ReplaceDataLayers(np, c, h, w); err != nil {
		tb.Fatal(err)
	}
	sp := &caffepb.SolverParameter{
		NetParam: np, Type: proto.String("SGD"), BaseLr: proto.Float32(0.01), Momentum: proto.Float32(0.9),
		WeightDecay: proto.Float32(5e-4), LrPolicy: proto.String("fixed"),
	}
	s, err := NewSolver(sp, SolverOptions{Threads: threads, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	feedSynthetic(s, 7, 0, 1000)
	return s
}

// feedSynthetic gives the solver's net synthetic batches: its input
// blobs (AlexNet's) one fixed batch from seed, values in [offset,
// offset+1) and labels below classes, and its MemoryData layers
// FillSynthetic's stream with labels 0-9.
func feedSynthetic(s *Solver, seed uint32, offset float32, classes uint32) {
	state := seed
	for _, name := range s.Net().Inputs() {
		v := s.Net().Blob(name).DataSlice()
		for i := range v {
			state = state*1664525 + 1013904223
			v[i] = float32(state>>8)/(1<<24) + offset
			if name == "label" {
				v[i] = float32(state % classes)
			}
		}
	}
	for _, md := range s.Net().MemoryDataLayers() {
		state, pos := uint32(1), 0 // pos: the next image's place in its batch
		md.SetFeederInPieces(func(data, label []float32) error {
			state = FillSynthetic(data, state)
			for i := range label {
				label[i] = float32((pos + i) % 10)
			}
			batch, _, _, _ := md.BatchShape()
			pos = (pos + len(label)) % batch
			return nil
		})
	}
}

// benchTrain reports training images/s: forward, loss, backward and the
// SGD update, per iteration. Single-threaded, it also reports images per
// second of the thread's CPU time (img/cpu-s), which other processes on
// the machine do not distort.
func benchTrain(b *testing.B, model string, c, h, w int) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) { benchTrainOn(b, model, c, h, w, threads) })
	}
}

func benchTrainOn(b *testing.B, model string, c, h, w, threads int) {
	s := benchSolver(b, model, c, h, w, threads)
	// As the trainer's replicas train (Net.SetKeepTops).
	s.Net().SetKeepTops(false)
	ctx := context.Background()
	if err := s.Step(ctx, 1); err != nil {
		b.Fatal(err)
	}
	fwd, bwd := s.Net().FLOPs()
	runBench(b, s.Net().Blob("data").Dim(0), threads, fwd+bwd, func() {
		if err := s.Step(ctx, 1); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkTrainFusion trains LeNet and CIFAR-10 quick with the
// convolution, ReLU and pooling groups run layer by layer and fused
// (fuseLayers), one after the other in the same run:
//
//	go test -run '^$' -bench TrainFusion -count 3 ./caffe
func BenchmarkTrainFusion(b *testing.B) {
	defer func(v bool) { fuseLayers = v }(fuseLayers)
	nets := []struct {
		name, model string
		c, h, w     int
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28},
		{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32},
	}
	for _, nt := range nets {
		for _, threads := range []int{1, 2} {
			for _, fuse := range []bool{false, true} {
				name := "layers"
				if fuse {
					name = "fused"
				}
				b.Run(fmt.Sprintf("%s/threads=%d/%s", nt.name, threads, name), func(b *testing.B) {
					fuseLayers = fuse
					benchTrainOn(b, nt.model, nt.c, nt.h, nt.w, threads)
				})
			}
		}
	}
}

// BenchmarkTrainInPass trains LeNet and AlexNet with two solvers side by
// side, one taking the plain iteration (clear the gradients, forward,
// backward, update) and one the iteration that clears and updates within
// the backward pass (solver_step.go), alternating blocks of iterations so
// that both see the same load on the machine. It reports each one's time
// per iteration (the thread's CPU time on one thread, wall time on more)
// and their ratio:
//
//	go test -run '^$' -bench 'TrainInPass/lenet' -benchtime 200x ./caffe
//	go test -run '^$' -bench 'TrainInPass/alexnet/threads=1' -benchtime 4x ./caffe
func BenchmarkTrainInPass(b *testing.B) {
	defer func(v bool) { inPassSteps = v }(inPassSteps)
	nets := []struct {
		name, model string
		c, h, w     int
		block       int // iterations in a row of one solver
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, 5},
		{"alexnet", "testdata/bench/alexnet_train.prototxt", 3, 227, 227, 1},
	}
	for _, nt := range nets {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", nt.name, threads), func(b *testing.B) {
				clock := func() time.Duration { return time.Duration(time.Now().UnixNano()) }
				if threads == 1 {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					clock = threadCPUTime
				}
				ctx := context.Background()
				var solvers [2]*Solver
				for m := range solvers {
					solvers[m] = benchSolver(b, nt.model, nt.c, nt.h, nt.w, threads)
				}
				step := func(m int) {
					inPassSteps = m == 1
					if err := solvers[m].Step(ctx, 1); err != nil {
						b.Fatal(err)
					}
				}
				step(0)
				step(1)
				var spent [2]time.Duration
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					for o := range 2 {
						m := (i + o) % 2
						t0 := clock()
						for range nt.block {
							step(m)
						}
						spent[m] += clock() - t0
					}
				}
				iters := float64(b.N * nt.block)
				b.ReportMetric(spent[0].Seconds()*1e3/iters, "plain-ms")
				b.ReportMetric(spent[1].Seconds()*1e3/iters, "inpass-ms")
				b.ReportMetric(spent[0].Seconds()/spent[1].Seconds(), "speedup")
			})
		}
	}
}

// BenchmarkTrainRunsBest trains LeNet (batch 64) on one thread and on
// two with the solver's work on the convolutions' weights and the inner
// product's input gradient blocks in the layers' runs (layerParamWork) and
// without, in one process, the three solvers taking turns iteration by
// iteration, and reports each one's best and first-quartile wall time per
// iteration, and two threads' speedups over one from the best: on a
// machine that other processes use now and then, the best iterations are
// those that ran undisturbed, where mean wall times measure the load (on
// one that they keep busy, no iteration runs undisturbed). It also reports
// the speedups of the merged two-thread mode from the median and the mean
// iterations, which, the modes taking turns, a machine whose speed drifts
// slows alike:
//
//	go test -run '^$' -bench TrainRunsBest -benchtime 2000x ./caffe
func BenchmarkTrainRunsBest(b *testing.B) {
	defer func(v bool) { layerParamWork = v }(layerParamWork)
	merged := []bool{true, false, true}
	times := stepsInTurn(b, "mnist/lenet_train_test.prototxt", 1, 28, 28, []int{1, 2, 2}, 1, func(m int) { layerParamWork = merged[m] })
	var best, quart, median, total [3]time.Duration
	for m := range times {
		for _, d := range times[m] {
			total[m] += d
		}
		slices.Sort(times[m])
		best[m], quart[m], median[m] = times[m][0], times[m][len(times[m])/4], times[m][len(times[m])/2]
	}
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	b.ReportMetric(us(best[0]), "1t-best-µs")
	b.ReportMetric(us(best[1]), "2t-old-best-µs")
	b.ReportMetric(us(best[2]), "2t-new-best-µs")
	b.ReportMetric(us(quart[1]), "2t-old-q1-µs")
	b.ReportMetric(us(quart[2]), "2t-new-q1-µs")
	b.ReportMetric(float64(best[0])/float64(best[1]), "old-2t/1t")
	b.ReportMetric(float64(best[0])/float64(best[2]), "new-2t/1t")
	b.ReportMetric(float64(median[0])/float64(median[2]), "new-2t/1t-median")
	b.ReportMetric(float64(total[0])/float64(total[2]), "new-2t/1t-mean")
}

// BenchmarkTrainLeNet trains Caffe's MNIST LeNet, batch 64.
func BenchmarkTrainLeNet(b *testing.B) { benchTrain(b, "mnist/lenet_train_test.prototxt", 1, 28, 28) }

// BenchmarkTrainAlexNet trains AlexNet (Caffe's bvlc_alexnet), batch 32,
// on one fixed synthetic batch; a few iterations suffice:
//
//	go test -run '^$' -bench TrainAlexNet -benchtime 5x ./caffe
func BenchmarkTrainAlexNet(b *testing.B) {
	benchTrain(b, "testdata/bench/alexnet_train.prototxt", 3, 227, 227)
}

// BenchmarkTrainCIFAR10Quick trains Caffe's CIFAR-10 quick net, batch 100.
func BenchmarkTrainCIFAR10Quick(b *testing.B) {
	benchTrain(b, "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32)
}

// TestTrainNoAllocs checks that a training iteration of LeNet (forward,
// backward, update) allocates nothing once the solver is running, on one
// goroutine and on two, also after garbage collections.
func TestTrainNoAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet for a few iterations")
	}
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			s := benchSolver(t, "mnist/lenet_train_test.prototxt", 1, 28, 28, threads)
			ctx := context.Background()
			if err := s.Step(ctx, 2); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.GC()
			var err error
			allocs, sites := alloctest.Count(5, func() {
				if e := s.Step(ctx, 1); e != nil {
					err = e
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if allocs != 0 {
				t.Errorf("a training iteration on %d goroutines allocates %v times, want 0:%s", threads, allocs, alloctest.String(sites))
			}
		})
	}
}

// BenchmarkTrainOffers trains LeNet and CIFAR-10 quick on one thread and
// on two with and without the weight gradients that a chained backward
// run's parts offer to a goroutine without parts (offerWeightGrads), as
// benchSwitch does:
//
//	go test -run '^$' -bench TrainOffers -benchtime 40x ./caffe
func BenchmarkTrainOffers(b *testing.B) {
	defer func(v bool) { offerWeightGrads = v }(offerWeightGrads)
	benchSwitch(b, func(on bool) { offerWeightGrads = on })
}

// BenchmarkTrainChainWeightsEarly trains LeNet and CIFAR-10 quick on one
// thread and on two with and without a chained backward run's parts
// computing the weight gradient they offered before the chained
// convolution's part (chainWeightsEarly), the adding of the first
// convolution's ranges waiting for those alone, as benchSwitch does:
//
//	go test -run '^$' -bench TrainChainWeightsEarly -benchtime 40x ./caffe
func BenchmarkTrainChainWeightsEarly(b *testing.B) {
	defer func(v bool) { chainWeightsEarly = v }(chainWeightsEarly)
	benchSwitch(b, func(on bool) { chainWeightsEarly = on })
}

// BenchmarkTrainChainAdds trains LeNet and CIFAR-10 quick on one thread
// and on two with a chained backward run adding its parts' weight
// gradients in the run itself and in a run of its own (chainAdds), as
// benchSwitch does:
//
//	go test -run '^$' -bench TrainChainAdds -benchtime 40x ./caffe
func BenchmarkTrainChainAdds(b *testing.B) {
	defer func(v bool) { chainAdds = v }(chainAdds)
	benchSwitch(b, func(on bool) { chainAdds = on })
}

// BenchmarkTrainFirstDW trains LeNet and CIFAR-10 quick on one thread and
// on two with and without a buffer of its own for the weight gradient of
// a convolution's first backward part (ownFirstDW), as benchSwitch does:
//
//	go test -run '^$' -bench TrainFirstDW -benchtime 40x ./caffe
func BenchmarkTrainFirstDW(b *testing.B) {
	defer func(v bool) { ownFirstDW = v }(ownFirstDW)
	benchSwitch(b, func(on bool) { ownFirstDW = on })
}

// BenchmarkTrainTopByImages trains LeNet and CIFAR-10 quick on one thread
// and on two with and without an inner product's top written by images
// after its product parts (topByImages), as benchSwitch does:
//
//	go test -run '^$' -bench TrainTopByImages -benchtime 40x ./caffe
func BenchmarkTrainTopByImages(b *testing.B) {
	defer func(v bool) { topByImages = v }(topByImages)
	benchSwitch(b, func(on bool) { topByImages = on })
}

// BenchmarkTrainFedPieces trains LeNet and CIFAR-10 quick on one thread
// and on two with and without their batches fed in pieces by the
// goroutines that convolve them (feedInPieces), as benchSwitch does:
//
//	go test -run '^$' -bench TrainFedPieces -benchtime 40x ./caffe
func BenchmarkTrainFedPieces(b *testing.B) {
	defer func(v bool) { feedInPieces = v }(feedInPieces)
	benchSwitch(b, func(on bool) { feedInPieces = on })
}

// switchNets are the nets that benchSwitch, benchPaired and sameWithSwitch
// train.
var switchNets = []struct {
	name, model string
	c, h, w     int
	block       int // benchSwitch's and benchPaired's iterations in a row of one setting
}{
	{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28, 20},
	{"cifar10_quick", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32, 5},
}

// benchSwitch trains LeNet and CIFAR-10 quick on one thread (the switch
// on) and on two with a switch set off and on, in one process, the three
// solvers taking turns a block of iterations at a time, and reports the
// median wall time per iteration of each block and the two-thread
// speedups over one thread from those medians.
func benchSwitch(b *testing.B, set func(on bool)) {
	for _, nt := range switchNets {
		b.Run(nt.name, func(b *testing.B) {
			on := []bool{true, false, true}
			times := stepsInTurn(b, nt.model, nt.c, nt.h, nt.w, []int{1, 2, 2}, nt.block, func(m int) { set(on[m]) })
			var median [3]time.Duration
			for m := range times {
				slices.Sort(times[m])
				median[m] = times[m][len(times[m])/2]
			}
			us := func(d time.Duration) float64 { return float64(d) / 1e3 }
			b.ReportMetric(us(median[0]), "1t-µs")
			b.ReportMetric(us(median[1]), "2t-off-µs")
			b.ReportMetric(us(median[2]), "2t-on-µs")
			b.ReportMetric(float64(median[0])/float64(median[1]), "off-2t/1t")
			b.ReportMetric(float64(median[0])/float64(median[2]), "on-2t/1t")
		})
	}
}

// pairedSwitches are the switches BenchmarkTrainPaired and
// BenchmarkTrainPairedOneThread set on and off in turn.
var pairedSwitches = []struct {
	name string
	v    *bool
}{
	{"offers", &offerWeightGrads},
	{"firstDW", &ownFirstDW},
	{"topByImages", &topByImages},
	{"fedPieces", &feedInPieces},
	{"chainWeightsEarly", &chainWeightsEarly},
	{"chainAdds", &chainAdds},
	{"chainTakeRanges", &chainTakeRanges},
	{"ipWholeShares", &ipWholeShares},
	{"ipBalanceRows", &ipBalanceRows},
	{"sharePieces", &sharePieces},
	{"ipCrossBlocks", &ipCrossBlocks},
	{"ipTopInRun", &ipTopInRun},
	{"ipCrossEarlyRows", &ipCrossEarlyRows},
	{"ipNextInRun", &ipNextInRun},
	{"earlyPreps", &earlyPreps},
	{"pooledBiasInTiles", &pooledBiasInTiles},
}

// BenchmarkTrainPaired trains LeNet and CIFAR-10 quick on two threads
// with each of the switches that benchSwitch's benchmarks compare set on
// and off in turn on one solver, as benchPaired does:
//
//	go test -run '^$' -bench 'TrainPaired/topByImages' -benchtime 300x ./caffe
func BenchmarkTrainPaired(b *testing.B) { benchPairedSwitches(b, 2) }

// BenchmarkTrainPairedOneThread is BenchmarkTrainPaired on one thread:
//
//	go test -run '^$' -bench 'TrainPairedOneThread/pooledBiasInTiles' -benchtime 300x ./caffe
func BenchmarkTrainPairedOneThread(b *testing.B) { benchPairedSwitches(b, 1) }

func benchPairedSwitches(b *testing.B, threads int) {
	for _, sw := range pairedSwitches {
		b.Run(sw.name, func(b *testing.B) {
			defer func(v bool) { *sw.v = v }(*sw.v)
			benchPaired(b, threads, func(on bool) { *sw.v = on })
		})
	}
}

// benchPaired trains LeNet and CIFAR-10 quick on threads threads with a
// switch set on and off in turn, a block of iterations each, on one
// solver, the order of the two blocks alternating from one pair to the
// next, a pair per round of b.Loop. It reports the median wall time per
// iteration of each setting and the median of the pairs' differences (on
// − off), from which the machine's drifts in speed, slower than a pair,
// drop out. benchSwitch's solvers, one per setting, differ in where their
// memory lies, which moves their times apart by itself: with a switch
// that changes nothing (both settings the same), LeNet's two two-thread
// medians differed by 8-141 µs in eight runs of 30 rounds.
func benchPaired(b *testing.B, threads int, set func(on bool)) {
	for _, nt := range switchNets {
		b.Run(nt.name, func(b *testing.B) {
			ctx := context.Background()
			s := benchSolver(b, nt.model, nt.c, nt.h, nt.w, threads)
			s.Net().SetKeepTops(false)
			if err := s.Step(ctx, 2); err != nil {
				b.Fatal(err)
			}
			var on, off, diff []float64
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				var t [2]float64 // per iteration, µs: off, on
				for o := range 2 {
					m := (i + o) % 2
					set(m == 1)
					t0 := time.Now()
					if err := s.Step(ctx, nt.block); err != nil {
						b.Fatal(err)
					}
					t[m] = float64(time.Since(t0)) / 1e3 / float64(nt.block)
				}
				off, on, diff = append(off, t[0]), append(on, t[1]), append(diff, t[1]-t[0])
			}
			median := func(x []float64) float64 {
				slices.Sort(x)
				return x[len(x)/2]
			}
			b.ReportMetric(median(on), "on-µs")
			b.ReportMetric(median(off), "off-µs")
			b.ReportMetric(median(diff), "on−off-µs")
		})
	}
}

// stepsInTurn trains a solver of the model (SetKeepTops(false)) per
// entry of threads, on that many threads, taking turns a block of
// iterations at a time while b.Loop runs, set(m) before each of solver
// m's, and returns each solver's wall time per iteration of each block.
func stepsInTurn(b *testing.B, model string, c, h, w int, threads []int, block int, set func(m int)) [][]time.Duration {
	ctx := context.Background()
	solvers := make([]*Solver, len(threads))
	for m, th := range threads {
		set(m)
		solvers[m] = benchSolver(b, model, c, h, w, th)
		solvers[m].Net().SetKeepTops(false)
		if err := solvers[m].Step(ctx, 2); err != nil {
			b.Fatal(err)
		}
	}
	times := make([][]time.Duration, len(threads))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for o := range solvers {
			m := (i + o) % len(solvers)
			set(m)
			t0 := time.Now()
			if err := solvers[m].Step(ctx, block); err != nil {
				b.Fatal(err)
			}
			times[m] = append(times[m], time.Since(t0)/time.Duration(block))
		}
	}
	return times
}
