package caffe

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// TestWorkOfStack classifies call stacks as ProfileTraining does: the
// innermost kernel of a known kind, else the innermost layer, solver or
// net, else the runtime.
func TestWorkOfStack(t *testing.T) {
	k := "github.com/sparknet-go/sparknet/ndarray/kernel."
	c := caffePath
	for _, tc := range []struct {
		stack []string
		want  Work
	}{
		// A pooling kernel inside a convolution's fused pass is pooling.
		{[]string{k + "dunpoolAVX512.abi0", k + "(*DirectConv).unpoolTiles", c + "(*Convolution).directBackwardPart", c + "(*Solver).Step"}, WorkPooling},
		{[]string{k + "directTileAVX512x10.abi0", k + "(*DirectConv).tileRow", c + "(*convFusion).forwardBlock", c + "(*Net).forwardFed"}, WorkConvFC},
		// The SGD step inside an inner product's backward pass.
		{[]string{k + "sgdAheadAVX512.abi0", k + "SGDStepAhead", c + "(*Solver).updateSpanFrom", c + "(*InnerProduct).backwardFused.func1", k + "(*gemmImpl).fcBackward"}, WorkSolver},
		// General kernels and the runtime count as their callers'.
		{[]string{k + "copyRowsAVX512.abi0", k + "CopyRows", c + "(*Concat).Forward", c + "(*Net).forwardLayer"}, WorkOtherLayers},
		{[]string{"runtime.memclrNoHeapPointers", c + "(*Solver).clearPart", c + "(*parallelRunner).run"}, WorkSolver},
		{[]string{k + "expF32AVX512.abi0", c + "softmaxForward", c + "(*SoftmaxWithLoss).Forward"}, WorkLoss},
		{[]string{"runtime.memmove", "github.com/sparknet-go/sparknet/caffe/tool.syntheticFeeder.func1", c + "(*MemoryData).fill"}, WorkData},
		{[]string{"runtime.memmove", "github.com/sparknet-go/sparknet/data.(*Batch).Next"}, WorkData},
		{[]string{k + "reluGradAVX512.abi0", c + "(*ReLU).backwardPart", c + "(*parallelRunner).run"}, WorkActivation},
		{[]string{k + "lrnStep75XReLUAVX512.abi0", c + "(*LRN).acrossBackward", c + "(*lrnPool).backwardImageTo"}, WorkNormalization},
		// The net's own code between layers is not the solver's.
		{[]string{c + "(*Net).ipNextAbove", c + "(*Net).backwardFrom", c + "(*Solver).stepInPass"}, WorkRuntime},
		{[]string{"runtime.futex", "runtime.notesleep", "runtime.schedule"}, WorkRuntime},
		{[]string{k + "fmaPeakAVX512.abi0", k + "(*Peak).probe"}, WorkRuntime},
		{nil, WorkRuntime},
	} {
		if got := workOfStack(tc.stack); got != tc.want {
			t.Errorf("workOfStack(%q) = %v, want %v", tc.stack, got, tc.want)
		}
	}
}

// TestProfileTraining profiles LeNet's training for a second: the
// convolutions and inner products take most of the samples, pooling some,
// the shares add up, and every kind's top function is of its kind.
func TestProfileTraining(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet for a second under a CPU profile")
	}
	s := benchSolver(t, "mnist/lenet_train_test.prototxt", 1, 28, 28, 1)
	p, err := ProfileTraining(context.Background(), s, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if p.Iterations < 1 || p.Wall < time.Second || p.Samples < 20 {
		t.Fatalf("%d iterations in %v, %d samples: want at least one in a second, and 20 samples", p.Iterations, p.Wall, p.Samples)
	}
	sum := 0.0
	for i, sh := range p.Shares {
		sum += sh.Share
		if i > 0 && sh.Samples > p.Shares[i-1].Samples {
			t.Errorf("shares not largest first: %v after %v", sh.Work, p.Shares[i-1].Work)
		}
		if len(sh.Top) == 0 {
			t.Errorf("%v: no top function", sh.Work)
		}
		var top int64
		for _, f := range sh.Top {
			top += f.Samples
		}
		if top > sh.Samples {
			t.Errorf("%v: top functions %d samples of %d", sh.Work, top, sh.Samples)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares add up to %v", sum)
	}
	if c := p.Share(WorkConvFC); c < 0.6 || p.Shares[0].Work != WorkConvFC {
		t.Errorf("convolution and inner product %.1f%% (largest: %v), want the largest, over 60%%", 100*c, p.Shares[0].Work)
	}
	for _, sh := range p.Shares {
		if sh.Work == WorkPooling && !strings.Contains(strings.ToLower(sh.Top[0].Func), "pool") {
			t.Errorf("pooling's top function %q", sh.Top[0].Func)
		}
	}
	t.Logf("%d iterations, %d samples: %+v", p.Iterations, p.Samples, p.Shares)
}
