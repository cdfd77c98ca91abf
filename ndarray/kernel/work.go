package kernel

import (
	"strings"
)

// Work is the kind of work a kernel does for a net, as a profile of a
// training step splits its time (caffe.ProfileTraining): the products of
// convolutions and inner products and everything else they do, pooling,
// normalization, activations, the solver's update, data, the FMA peak
// probe, or general work (element-wise arithmetic, copies, fills,
// workspaces), which counts as the work of whoever calls it.
type Work uint8

const (
	WorkGeneral Work = iota
	// WorkConvFC is the work of convolutions and inner products: their
	// products (GEMMs, direct and Winograd convolutions), the packing,
	// layouts (im2col, interleaving) and the biases and their gradients.
	WorkConvFC
	WorkPooling
	WorkNormalization
	WorkActivation
	WorkSolver
	WorkData
	WorkProbe
)

var workNames = [...]string{"general", "convolution and inner product", "pooling", "normalization", "activation",
	"solver update", "data", "peak probe"}

func (w Work) String() string {
	if int(w) < len(workNames) {
		return workNames[w]
	}
	return "unknown"
}

// kernelPath is the prefix of this package's functions' names in a
// profile.
const kernelPath = "github.com/sparknet-go/sparknet/ndarray/kernel."

// WorkOf returns the kind of work of a function named as in a CPU profile
// (the package path, the receiver, the name: "…/ndarray/kernel.
// (*DirectConv).tileRow", "…/ndarray/kernel.sgdAVX512.abi0"), and whether
// it is one of this package's functions.
//
// Functions are known by the family names the kernels use (maxPool…,
// lrn…, sgd…, direct…; the tests check every assembly kernel), methods
// of the convolutions' and GEMM's plans that are not of a family by their
// receiver (a DirectConv's poolChannels is pooling, its tileRow a
// convolution's).
func WorkOf(fn string) (Work, bool) {
	name, ok := strings.CutPrefix(fn, kernelPath)
	if !ok {
		return WorkGeneral, false
	}
	name = strings.TrimSuffix(name, ".abi0")
	recv := ""
	if rest, ok := strings.CutPrefix(name, "(*"); ok {
		recv, name, _ = strings.Cut(rest, ").")
	} else if r, method, ok := strings.Cut(name, "."); ok {
		if _, known := receiverWork[r]; known {
			recv, name = r, method // a value receiver: "convGeom.outSize"
		}
	}
	name, _, _ = strings.Cut(name, ".") // a closure: "tileRows.func1"
	if w := workOfName(name); w != WorkGeneral || recv == "" {
		return w, true
	}
	return receiverWork[recv], true
}

// receiverWork is the kind of work of the methods of this package's types.
var receiverWork = map[string]Work{
	"DirectConv": WorkConvFC, "DirectTail": WorkConvFC, "DirectBlocks": WorkConvFC, "RowConv": WorkConvFC,
	"convGeom": WorkConvFC, "convCase": WorkConvFC, "gradBlocking": WorkConvFC,
	"gemmImpl": WorkConvFC, "gemmCall": WorkConvFC, "gemmCase": WorkConvFC,
	"DirectPool":    WorkPooling,
	"Peak":          WorkProbe,
	"workspacePool": WorkGeneral, "workspace": WorkGeneral, "freeList": WorkGeneral,
}

// workFamilies are the kinds of work of the kernels' families, by the
// start of their names (lower case), tried in order.
var workFamilies = []struct {
	prefix string
	work   Work
}{
	// Pooling, also inside the direct convolutions (dpool…, dunpool…,
	// dspreadAve, dputRows: the pooled gradient's rows).
	{"maxpool", WorkPooling}, {"avepool", WorkPooling}, {"avesmall", WorkPooling}, {"dpool", WorkPooling},
	{"dunpool", WorkPooling}, {"dspreadave", WorkPooling}, {"dputrows", WorkPooling}, {"unpool", WorkPooling},
	{"pool", WorkPooling},
	{"lrn", WorkNormalization},
	{"relu", WorkActivation}, {"drelu", WorkActivation}, {"dbiasrelu", WorkActivation},
	{"sgd", WorkSolver}, {"adam", WorkSolver}, {"nesterov", WorkSolver}, {"rmsprop", WorkSolver},
	{"adagrad", WorkSolver}, {"adadelta", WorkSolver},
	{"lcgfill", WorkData},
	{"fma", WorkProbe},
	// The convolutions' and inner products' own kernels.
	{"direct", WorkConvFC}, {"conv", WorkConvFC}, {"wino", WorkConvFC}, {"fc", WorkConvFC}, {"sgemm", WorkConvFC},
	{"gemm", WorkConvFC}, {"pack", WorkConvFC}, {"im2col", WorkConvFC}, {"col2im", WorkConvFC},
	{"interleave", WorkConvFC}, {"deinterleave", WorkConvFC}, {"deint", WorkConvFC}, {"lanesums", WorkConvFC},
	{"planesums", WorkConvFC},
}

// workOfName returns the kind of work of a function of this package by
// its name (without receiver): its family's, or WorkGeneral.
func workOfName(name string) Work {
	l := strings.ToLower(name)
	for _, f := range workFamilies {
		if strings.HasPrefix(l, f.prefix) {
			return f.work
		}
	}
	return WorkGeneral
}
