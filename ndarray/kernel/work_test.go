package kernel

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// generalKernels are the assembly kernels that do general work, counted
// as their callers' (element-wise arithmetic, copies, fills, fences).
var generalKernels = []string{"add", "addRows", "axpby", "axpy", "copyChunks", "copyRows", "div", "dot", "exp", "expF32",
	"max", "mul", "prefetchRowsT1", "scale", "sqrt", "storeFence", "streamFill", "streamFillNT", "sum", "sumRows"}

// TestWorkOfKernels gives every assembly kernel of the package a kind of
// work: a new kernel must join a family (workFamilies) or the general
// ones above, so that a profile of a training step does not count, say, a
// new pooling kernel as its caller's.
func TestWorkOfKernels(t *testing.T) {
	files, _ := filepath.Glob("*.s")
	if len(files) == 0 {
		t.Skip("no assembly here")
	}
	text := regexp.MustCompile(`(?m)^TEXT ·([A-Za-z0-9_]+)\(SB\)`)
	isa := regexp.MustCompile(`(AVX512|AVX2)[A-Za-z0-9_]*$`)
	seen := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range text.FindAllStringSubmatch(string(src), -1) {
			seen++
			fn := kernelPath + m[1] + ".abi0"
			w, ok := WorkOf(fn)
			if !ok {
				t.Fatalf("WorkOf(%q): not this package's", fn)
			}
			base := isa.ReplaceAllString(m[1], "")
			if general := slices.Contains(generalKernels, base); general != (w == WorkGeneral) {
				t.Errorf("%s (%s): %v, but general is %v", m[1], f, w, general)
			}
		}
	}
	if seen < 100 {
		t.Errorf("found only %d kernels", seen)
	}
}

// TestWorkOf checks the names a profile gives: methods by receiver,
// closures by their function, other packages not this one's.
func TestWorkOf(t *testing.T) {
	for fn, want := range map[string]Work{
		kernelPath + "(*DirectConv).tileRows.func1": WorkConvFC,
		kernelPath + "(*DirectConv).poolChannels":   WorkPooling,
		kernelPath + "(*DirectConv).tileRow":        WorkConvFC,
		kernelPath + "(*DirectPool).forward":        WorkPooling,
		kernelPath + "(*workspacePool).put":         WorkGeneral,
		kernelPath + "convGeom.outSize":             WorkConvFC,
		kernelPath + "sgdAVX512.abi0":               WorkSolver,
		kernelPath + "SGDStep":                      WorkSolver,
		kernelPath + "maxPoolPlanes":                WorkPooling,
		kernelPath + "LRNStep75X":                   WorkNormalization,
		kernelPath + "Relu":                         WorkActivation,
		kernelPath + "FCBackward":                   WorkConvFC,
		kernelPath + "Add":                          WorkGeneral,
		kernelPath + "init.4.func2":                 WorkGeneral,
		kernelPath + "fmaPeakAVX512.abi0":           WorkProbe,
		kernelPath + "lcgFillAVX512.abi0":           WorkData,
		kernelPath + "winoIn6AVX512.abi0":           WorkConvFC,
		kernelPath + "dunpoolAddAVX512.abi0":        WorkPooling,
		kernelPath + "directGradWinAVX512x2.abi0":   WorkConvFC,
	} {
		if w, ok := WorkOf(fn); !ok || w != want {
			t.Errorf("WorkOf(%q) = %v, %v; want %v, true", fn, w, ok, want)
		}
	}
	if _, ok := WorkOf("github.com/sparknet-go/sparknet/caffe.(*Pooling).Forward"); ok {
		t.Error("a caffe function counted as the kernel package's")
	}
	if _, ok := WorkOf("runtime.memmove"); ok {
		t.Error("runtime.memmove counted as the kernel package's")
	}
}
