package caffe

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/internal/cpuprofile"
	"github.com/sparknet-go/sparknet/internal/cputime"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// Work is a kind of work in a training iteration, as ProfileTraining
// splits its CPU time.
type Work uint8

const (
	// WorkConvFC is the convolutions and inner products: their products,
	// packing, layouts, biases, and their parameters' gradients.
	WorkConvFC Work = iota
	WorkPooling
	// WorkNormalization is LRN, BatchNorm and MVN.
	WorkNormalization
	// WorkActivation is the neurons (ReLU, sigmoid, …) and Dropout.
	WorkActivation
	// WorkLoss is the losses, Softmax and Accuracy.
	WorkLoss
	// WorkData is the data layers, their feeders and the data package.
	WorkData
	// WorkSolver is the solver: the update of the parameters (the SGD
	// step, inside the backward pass or after it), clearing gradients,
	// the learning rate and the loss's bookkeeping.
	WorkSolver
	// WorkOtherLayers is the other layers (Concat, Eltwise, Split, …).
	WorkOtherLayers
	// WorkRuntime is the time no layer or solver accounts for: the net's
	// own code between the layers (the order of a pass, the hand-offs
	// of its parallel runs), goroutines polling for work between them,
	// and the Go runtime (scheduling, garbage collection).
	WorkRuntime
	numWork
)

var workNames = [numWork]string{"convolution and inner product", "pooling", "normalization", "activation",
	"loss", "data", "solver update", "other layers", "net, runtime and waiting"}

func (w Work) String() string {
	if w < numWork {
		return workNames[w]
	}
	return "unknown"
}

// WorkShare is one kind of work's part of a TrainingProfile.
type WorkShare struct {
	Work    Work
	Samples int64
	Share   float64 // of all the samples
	// Top are the functions that ran in most of the kind's samples (the
	// innermost frame of each), at most three, largest first.
	Top []FuncShare
}

// FuncShare is a function's part of a TrainingProfile.
type FuncShare struct {
	Func    string // as the profile names it, without the module's path
	Samples int64
	Share   float64 // of all the samples
}

// TrainingProfile is where a solver's training iterations spent their
// CPU time, from a CPU profile of the iterations (every thread's CPU time,
// sampled at 100 Hz).
type TrainingProfile struct {
	Iterations int
	Threads    int
	Wall       time.Duration // the iterations' wall time
	Samples    int64         // the profile's samples, 10 ms of CPU time each
	// Shares are the kinds of work with samples, largest first.
	Shares []WorkShare
}

// Share returns w's share of the samples.
func (p *TrainingProfile) Share(w Work) float64 {
	for _, s := range p.Shares {
		if s.Work == w {
			return s.Share
		}
	}
	return 0
}

// ProfileTraining runs the solver's training iterations under a CPU
// profile for at least d of wall time (at least one iteration, after one
// untimed iteration that sizes the buffers, and profileMinCPU of the
// process's CPU time), as Step runs them: the layers
// fused where the net fuses them, the update inside the backward pass
// where the solver takes it there. It then splits the samples by kind of
// work: each sample goes to its innermost kernel of a known kind (a
// pooling kernel inside a convolution's fused pass is pooling; see
// kernel.WorkOf), else to its innermost layer or solver function, else to
// the runtime. It fails where a CPU profile is already being recorded.
func ProfileTraining(ctx context.Context, s *Solver, d time.Duration) (*TrainingProfile, error) {
	if err := s.Step(ctx, 1); err != nil {
		return nil, err
	}
	p := &TrainingProfile{Threads: s.net.Threads()}
	samples, err := cpuprofile.Record(func() error {
		start, cpu0 := time.Now(), cputime.Process()
		for p.Iterations == 0 || time.Since(start) < d || cputime.Supported() && cputime.Process()-cpu0 < profileMinCPU {
			if err := s.Step(ctx, 1); err != nil {
				return err
			}
			p.Iterations++
		}
		p.Wall = time.Since(start)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var counts [numWork]int64
	var funcs [numWork]map[string]int64
	for _, smp := range samples {
		w := workOfStack(smp.Stack)
		counts[w] += smp.Count
		p.Samples += smp.Count
		if len(smp.Stack) > 0 {
			if funcs[w] == nil {
				funcs[w] = map[string]int64{}
			}
			funcs[w][strings.TrimPrefix(smp.Stack[0], modulePath)] += smp.Count
		}
	}
	for w, n := range counts {
		if n == 0 {
			continue
		}
		sh := WorkShare{Work: Work(w), Samples: n, Share: float64(n) / float64(p.Samples)}
		for fn, k := range funcs[w] {
			sh.Top = append(sh.Top, FuncShare{Func: fn, Samples: k, Share: float64(k) / float64(p.Samples)})
		}
		slices.SortFunc(sh.Top, func(a, b FuncShare) int {
			if a.Samples != b.Samples {
				return int(b.Samples - a.Samples)
			}
			return strings.Compare(a.Func, b.Func)
		})
		sh.Top = sh.Top[:min(3, len(sh.Top))]
		p.Shares = append(p.Shares, sh)
	}
	slices.SortStableFunc(p.Shares, func(a, b WorkShare) int { return int(b.Samples - a.Samples) })
	return p, nil
}

// profileMinCPU is the least CPU time ProfileTraining profiles, whatever
// its duration: about 30 samples, on a machine so busy that the
// iterations get little of the time.
const profileMinCPU = 300 * time.Millisecond

const (
	modulePath = "github.com/sparknet-go/sparknet/"
	caffePath  = modulePath + "caffe."
	dataPath   = modulePath + "data."
)

// workOfStack returns the kind of work of a sample's call stack, innermost
// frame first.
func workOfStack(stack []string) Work {
	for _, fn := range stack {
		if w, ok := kernel.WorkOf(fn); ok {
			if w != kernel.WorkGeneral {
				return workOfKernel(w)
			}
			continue
		}
		if strings.HasPrefix(fn, dataPath) {
			return WorkData
		}
		if name, ok := strings.CutPrefix(fn, caffePath); ok {
			if w, ok := workOfReceiver(name); ok {
				return w
			}
		}
	}
	return WorkRuntime
}

// workOfKernel is a kernel's kind of work among a training step's.
func workOfKernel(w kernel.Work) Work {
	switch w {
	case kernel.WorkPooling:
		return WorkPooling
	case kernel.WorkNormalization:
		return WorkNormalization
	case kernel.WorkActivation:
		return WorkActivation
	case kernel.WorkSolver:
		return WorkSolver
	case kernel.WorkData:
		return WorkData
	case kernel.WorkProbe:
		return WorkRuntime
	}
	return WorkConvFC
}

// receiverWork is the kind of work of the methods of the package's
// layers, solver and their helpers, by receiver; a layer type not listed
// here is one of the other layers.
var receiverWork = map[string]Work{
	"Convolution": WorkConvFC, "Deconvolution": WorkConvFC, "InnerProduct": WorkConvFC, "Embed": WorkConvFC,
	"convFusion": WorkConvFC, "convGrads": WorkConvFC, "convDirectState": WorkConvFC, "blockPieces": WorkConvFC,
	"ipRowSplit": WorkConvFC,
	"Pooling":    WorkPooling, "SPP": WorkPooling,
	"LRN": WorkNormalization, "lrnPool": WorkNormalization, "BatchNorm": WorkNormalization, "MVN": WorkNormalization,
	"ReLU": WorkActivation, "PReLU": WorkActivation, "ELU": WorkActivation, "Sigmoid": WorkActivation,
	"TanH": WorkActivation, "AbsVal": WorkActivation, "BNLL": WorkActivation, "Power": WorkActivation,
	"Exp": WorkActivation, "Log": WorkActivation, "Threshold": WorkActivation, "Swish": WorkActivation,
	"Clip": WorkActivation, "Dropout": WorkActivation, "neuron": WorkActivation, "neuronNotInPlace": WorkActivation,
	"SoftmaxWithLoss": WorkLoss, "Softmax": WorkLoss, "EuclideanLoss": WorkLoss, "HingeLoss": WorkLoss,
	"InfogainLoss": WorkLoss, "MultinomialLogisticLoss": WorkLoss, "SigmoidCrossEntropyLoss": WorkLoss,
	"ContrastiveLoss": WorkLoss, "Accuracy": WorkLoss, "ArgMax": WorkLoss,
	"DataLayer": WorkData, "MemoryData": WorkData, "DummyData": WorkData, "Input": WorkData, "pieceFeed": WorkData,
	"Solver": WorkSolver,
	// The net's passes and their parallel runs: a frame of theirs ends
	// the search, so that a sample in the net's own code, between the
	// layers, does not count as the solver's, which runs the net.
	"Net": WorkRuntime, "parallelRunner": WorkRuntime,
}

// workOfReceiver returns the kind of work of a function of this package
// (its name without the package path) by its receiver, and whether the
// receiver tells it: a layer, the solver or one of their helpers.
func workOfReceiver(name string) (Work, bool) {
	recv, _, ok := strings.Cut(strings.TrimPrefix(name, "(*"), ".")
	if !ok {
		return 0, false
	}
	recv = strings.TrimSuffix(recv, ")")
	if w, ok := receiverWork[recv]; ok {
		return w, true
	}
	registry.RLock()
	_, layer := registry.m[recv]
	registry.RUnlock()
	if layer {
		return WorkOtherLayers, true
	}
	return 0, false
}
