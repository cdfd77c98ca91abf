package caffe

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// layerBenchCases are the layers of LeNet (batch 64) and CIFAR-10 quick
// (batch 100), and AlexNet's (batch 32) stride-1 convolutions,
// normalisation, pooling and fully connected layers and a rectifier and
// dropout of the fully connected part, with their input shapes.
var layerBenchCases = []struct {
	name string
	def  string
	in   []int
}{
	{"lenet/conv1", `type: "Convolution" convolution_param { num_output: 20 kernel_size: 5 weight_filler { type: "xavier" } }`, []int{64, 1, 28, 28}},
	{"lenet/pool1", `type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }`, []int{64, 20, 24, 24}},
	{"lenet/conv2", `type: "Convolution" convolution_param { num_output: 50 kernel_size: 5 weight_filler { type: "xavier" } }`, []int{64, 20, 12, 12}},
	{"lenet/pool2", `type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }`, []int{64, 50, 8, 8}},
	{"lenet/ip1", `type: "InnerProduct" inner_product_param { num_output: 500 weight_filler { type: "xavier" } }`, []int{64, 50, 4, 4}},
	{"lenet/ip2", `type: "InnerProduct" inner_product_param { num_output: 10 weight_filler { type: "xavier" } }`, []int{64, 500}},
	{"cifar/conv1", `type: "Convolution" convolution_param { num_output: 32 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.0001 } }`, []int{100, 3, 32, 32}},
	{"cifar/pool1", `type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }`, []int{100, 32, 32, 32}},
	{"cifar/conv2", `type: "Convolution" convolution_param { num_output: 32 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.01 } }`, []int{100, 32, 16, 16}},
	{"cifar/pool2", `type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 }`, []int{100, 32, 16, 16}},
	{"cifar/conv3", `type: "Convolution" convolution_param { num_output: 64 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.01 } }`, []int{100, 32, 8, 8}},
	{"cifar/pool3", `type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 }`, []int{100, 64, 8, 8}},
	{"cifar/ip1", `type: "InnerProduct" inner_product_param { num_output: 64 weight_filler { type: "gaussian" std: 0.1 } }`, []int{100, 64, 4, 4}},
	{"alexnet/conv2", `type: "Convolution" convolution_param { num_output: 256 pad: 2 kernel_size: 5 group: 2 weight_filler { type: "gaussian" std: 0.01 } }`, []int{32, 96, 27, 27}},
	{"alexnet/conv3", `type: "Convolution" convolution_param { num_output: 384 pad: 1 kernel_size: 3 weight_filler { type: "gaussian" std: 0.01 } }`, []int{32, 256, 13, 13}},
	{"alexnet/conv4", `type: "Convolution" convolution_param { num_output: 384 pad: 1 kernel_size: 3 group: 2 weight_filler { type: "gaussian" std: 0.01 } }`, []int{32, 384, 13, 13}},
	{"alexnet/conv5", `type: "Convolution" convolution_param { num_output: 256 pad: 1 kernel_size: 3 group: 2 weight_filler { type: "gaussian" std: 0.01 } }`, []int{32, 384, 13, 13}},
	{"alexnet/norm1", `type: "LRN" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }`, []int{32, 96, 55, 55}},
	{"alexnet/pool1", `type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }`, []int{32, 96, 55, 55}},
	{"alexnet/norm2", `type: "LRN" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }`, []int{32, 256, 27, 27}},
	{"alexnet/pool2", `type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }`, []int{32, 256, 27, 27}},
	{"alexnet/fc6", `type: "InnerProduct" inner_product_param { num_output: 4096 weight_filler { type: "gaussian" std: 0.005 } }`, []int{32, 256, 6, 6}},
	{"alexnet/fc7", `type: "InnerProduct" inner_product_param { num_output: 4096 weight_filler { type: "gaussian" std: 0.005 } }`, []int{32, 4096}},
	{"alexnet/fc8", `type: "InnerProduct" inner_product_param { num_output: 1000 weight_filler { type: "gaussian" std: 0.01 } }`, []int{32, 4096}},
	{"alexnet/pool5", `type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }`, []int{32, 256, 13, 13}},
	{"alexnet/relu6", `type: "ReLU"`, []int{32, 4096}},
	{"alexnet/drop6", `type: "Dropout" dropout_param { dropout_ratio: 0.5 }`, []int{32, 4096}},
}

// BenchmarkLayer times Forward+Backward of each layer on one and two
// threads, reporting images per second.
//
//	go test -run '^$' -bench Layer ./caffe
func BenchmarkLayer(b *testing.B) {
	for _, c := range layerBenchCases {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%dt", c.name, threads), func(b *testing.B) {
				benchLayer(b, c.def, c.in, threads)
			})
		}
	}
}

// benchLayer times Forward+Backward (with the bottom gradient) of the
// layer def on a random input of the given shape.
func benchLayer(b *testing.B, def string, in []int, threads int) {
	benchLayerDown(b, def, in, threads, true)
}

// benchLayerDown is benchLayer with the bottom gradient computed or not
// (as for a net's first layer).
func benchLayerDown(b *testing.B, def string, in []int, threads int, wantDown bool) {
	x, y := randBlob(1, -1, 1, in...), NewBlob()
	l := setupLayer(b, def, &LayerEnv{Phase: caffepb.Phase_TRAIN, Threads: threads}, blobs(x), blobs(y))
	copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
	bs, ts, down := blobs(x), blobs(y), []bool{wantDown}
	runBench(b, in[0], threads, layerFLOPs(l, bs, ts, down), func() {
		if err := l.Forward(bs, ts); err != nil {
			b.Fatal(err)
		}
		l.Backward(ts, down, bs)
	})
}

// runBench runs step, which handles batch images and makes flops
// floating-point operations, b.N times and reports images per second of
// wall time and, single-threaded, of the thread's CPU time (which other
// processes on the machine do not distort). On more threads it reports
// the process's CPU time over the wall time ("cores"): how many cores the
// run got, spinning included.
//
// With flops > 0 it also reports the FLOP rate as a share of the FMA peak
// measured by the kernels' probe before and after the loop and between
// its iterations about every probeEvery of wall time (the timers
// stopped, the probes' CPU time left out): per second of the thread's CPU
// time (%peak-cpu) on one thread, per second of wall time against the
// peak of threads cores (%peak) on more. The machine's rate drifts over
// seconds (a virtual machine's host, the clock's power limits), so that a
// probe at either end alone put the same AlexNet build at 67-77% of it.
func runBench(b *testing.B, batch, threads int, flops int64, step func()) {
	if threads == 1 {
		// The thread's CPU clock is read. With more threads the process's
		// is, and the goroutine is not locked: a locked goroutine that
		// waits for the other threads is woken by a hand-off between OS
		// threads, which training does not pay.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	b.ReportAllocs()
	step() // warm up: first-use buffers, worker goroutines
	var peak kernel.Peak
	probe := func() {
		if flops > 0 {
			p := kernel.MeasurePeak(20 * time.Millisecond)
			peak.FLOPs, peak.CPU, peak.Wall = peak.FLOPs+p.FLOPs, peak.CPU+p.CPU, peak.Wall+p.Wall
		}
	}
	probe()
	b.ResetTimer()
	cpu0, proc0 := threadCPUTime(), processCPUTime()
	var probeCPU, probeProc time.Duration
	last := time.Now()
	for b.Loop() {
		step()
		if flops > 0 && time.Since(last) >= probeEvery {
			b.StopTimer()
			c, p := threadCPUTime(), processCPUTime()
			probe()
			probeCPU += threadCPUTime() - c
			probeProc += processCPUTime() - p
			b.StartTimer()
			last = time.Now()
		}
	}
	cpu := threadCPUTime() - cpu0 - probeCPU
	proc := processCPUTime() - proc0 - probeProc
	wall := b.Elapsed()
	b.StopTimer()
	probe()
	images := float64(b.N) * float64(batch)
	b.ReportMetric(images/wall.Seconds(), "img/s")
	if threads == 1 && cpu > 0 {
		b.ReportMetric(images/cpu.Seconds(), "img/cpu-s")
	}
	if threads > 1 && proc > 0 {
		b.ReportMetric(proc.Seconds()/wall.Seconds(), "cores")
	}
	if flops <= 0 {
		return
	}
	ops := float64(flops) * float64(b.N)
	if threads == 1 && cpu > 0 {
		b.ReportMetric(ops/cpu.Seconds()/1e9, "GFLOP/cpu-s")
		b.ReportMetric(100*ops/cpu.Seconds()/1e9/peak.GFLOPS(), "%peak-cpu")
	} else {
		b.ReportMetric(ops/wall.Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(100*ops/wall.Seconds()/1e9/(float64(threads)*peak.GFLOPS()), "%peak")
	}
}

// probeEvery is about how often runBench measures the FMA peak between
// iterations: each probe runs 20 ms, 5% of it.
const probeEvery = 400 * time.Millisecond

// layerFLOPs returns the operations of a layer's Forward and of its
// Backward with the given propagate-down flags.
func layerFLOPs(l Layer, bottom, top []*Blob, down []bool) int64 {
	fc, ok := l.(flopCounter)
	if !ok {
		return 0
	}
	f, bw := fc.flops(bottom, top, down)
	return f + bw
}

// benchNet is a chain of layers, each reading the previous top.
type benchNet struct {
	layers []Layer
	bottom [][]*Blob
	top    [][]*Blob
	down   [][]bool
}

// newBenchNet builds the chain: defs are the layers after the data, the
// last being a loss with the labels as second bottom.
func newBenchNet(b *testing.B, threads int, in []int, classes int, defs ...string) *benchNet {
	env := &LayerEnv{Phase: caffepb.Phase_TRAIN, Threads: threads}
	data, labels := randBlob(1, 0, 1, in...), labelBlob(2, classes, in[0])
	n := &benchNet{}
	cur := data
	for i, d := range defs {
		var bottom []*Blob
		var down []bool
		top := NewBlob()
		switch {
		case i == len(defs)-1:
			bottom, down = blobs(cur, labels), []bool{true, false}
		default:
			bottom, down = blobs(cur), []bool{i > 0}
		}
		if d == `type: "ReLU"` {
			top = cur // in place, as Caffe nets do
		}
		l := setupLayer(b, d, env, bottom, blobs(top))
		n.layers = append(n.layers, l)
		n.bottom = append(n.bottom, bottom)
		n.top = append(n.top, blobs(top))
		n.down = append(n.down, down)
		cur = top
	}
	cur.DiffSlice()[0] = 1 // loss weight
	return n
}

func (n *benchNet) step(b *testing.B) {
	for i, l := range n.layers {
		if err := l.Forward(n.bottom[i], n.top[i]); err != nil {
			b.Fatal(err)
		}
	}
	for i := len(n.layers) - 1; i >= 0; i-- {
		n.layers[i].Backward(n.top[i], n.down[i], n.bottom[i])
	}
}

// BenchmarkLayerStack times a training step (Forward and Backward of
// every layer, no solver update) of LeNet (batch 64) and CIFAR-10 quick
// (batch 100) built from the layers directly, reporting images per second.
func BenchmarkLayerStack(b *testing.B) {
	nets := []struct {
		name    string
		in      []int
		classes int
		defs    []string
	}{
		{"lenet", []int{64, 1, 28, 28}, 10, []string{
			`type: "Convolution" convolution_param { num_output: 20 kernel_size: 5 weight_filler { type: "xavier" } }`,
			`type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }`,
			`type: "Convolution" convolution_param { num_output: 50 kernel_size: 5 weight_filler { type: "xavier" } }`,
			`type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }`,
			`type: "InnerProduct" inner_product_param { num_output: 500 weight_filler { type: "xavier" } }`,
			`type: "ReLU"`,
			`type: "InnerProduct" inner_product_param { num_output: 10 weight_filler { type: "xavier" } }`,
			`type: "SoftmaxWithLoss"`,
		}},
		{"cifar10-quick", []int{100, 3, 32, 32}, 10, []string{
			`type: "Convolution" convolution_param { num_output: 32 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.0001 } }`,
			`type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }`,
			`type: "ReLU"`,
			`type: "Convolution" convolution_param { num_output: 32 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.01 } }`,
			`type: "ReLU"`,
			`type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 }`,
			`type: "Convolution" convolution_param { num_output: 64 pad: 2 kernel_size: 5 weight_filler { type: "gaussian" std: 0.01 } }`,
			`type: "ReLU"`,
			`type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 }`,
			`type: "InnerProduct" inner_product_param { num_output: 64 weight_filler { type: "gaussian" std: 0.1 } }`,
			`type: "InnerProduct" inner_product_param { num_output: 10 weight_filler { type: "gaussian" std: 0.1 } }`,
			`type: "SoftmaxWithLoss"`,
		}},
	}
	for _, nt := range nets {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%dt", nt.name, threads), func(b *testing.B) {
				n := newBenchNet(b, threads, nt.in, nt.classes, nt.defs...)
				var flops int64
				for i, l := range n.layers {
					flops += layerFLOPs(l, n.bottom[i], n.top[i], n.down[i])
				}
				runBench(b, nt.in[0], threads, flops, func() { n.step(b) })
			})
		}
	}
}

// BenchmarkLayerConvChunks compares budgets for the column matrix of one
// chunk of images (convColBudget), with the columns of all chunks kept
// for Backward or rebuilt there (convKeepBudget), single-threaded.
func BenchmarkLayerConvChunks(b *testing.B) {
	for _, c := range layerBenchCases {
		if !strings.Contains(c.name, "conv") {
			continue
		}
		for _, keep := range []bool{false, true} {
			for _, budget := range []int{1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 20} {
				b.Run(fmt.Sprintf("%s/keep=%v/budget=%dk", c.name, keep, budget>>10), func(b *testing.B) {
					defer func(v, k int) { convColBudget, convKeepBudget = v, k }(convColBudget, convKeepBudget)
					convColBudget, convKeepBudget = budget, 0
					if keep {
						convKeepBudget = 1 << 40
					}
					benchLayer(b, c.def, c.in, 1)
				})
			}
		}
	}
}

// BenchmarkLayerConvPaths compares the column products with the direct
// convolution (convDirect) on the convolutions of the benchmark nets,
// single-threaded, each pair run one after the other; the nets' first
// convolutions compute no bottom gradient, as in the nets.
//
//	go test -run '^$' -bench LayerConvPaths ./caffe
func BenchmarkLayerConvPaths(b *testing.B) {
	defer func(v bool) { convDirect = v }(convDirect)
	for _, c := range layerBenchCases {
		if !strings.Contains(c.name, "conv") {
			continue
		}
		for _, direct := range []bool{false, true} {
			name := "columns"
			if direct {
				name = "direct"
			}
			b.Run(c.name+"/"+name, func(b *testing.B) {
				convDirect = direct
				benchLayerDown(b, c.def, c.in, 1, !strings.HasSuffix(c.name, "conv1"))
			})
		}
	}
}
