package kernel

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/ndarray/kernel/internal/openblas"
)

// gemmShapes are the M×N×K products benchmarked: two squares and the
// products the convolutions of LeNet, CIFAR-10 quick and AlexNet make
// (output channels × output pixels × channels·kernel area).
var gemmShapes = []struct{ m, n, k int }{
	{256, 256, 256},
	{1024, 1024, 1024},
	{20, 36864, 25},
	{50, 4096, 500},
	{64, 500, 800},
	{96, 3025, 363},
	{128, 729, 1200},
	{32, 4096, 9216},
}

// BenchmarkSgemm runs every shape through benchGemm. With the openblas
// build tag, OpenBLAS's cblas_sgemm runs beside ours on the same operands:
//
//	go test -tags openblas -run '^$' -bench Sgemm ./ndarray/kernel
func BenchmarkSgemm(b *testing.B) {
	for _, s := range gemmShapes {
		b.Run(fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k), func(b *testing.B) {
			benchGemm(b, s.m, s.n, s.k)
		})
	}
}

// BenchmarkSgemmTrans runs the transposed cases (the products of fully
// connected layers and of the backward passes) on one thread.
func BenchmarkSgemmTrans(b *testing.B) {
	const m, n, k = 128, 1024, 1024
	for _, tr := range []struct{ a, b bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		b.Run(fmt.Sprintf("%dx%dx%d/%s", m, n, k, transName(tr.a, tr.b)), func(b *testing.B) {
			benchGemmOp(b, tr.a, tr.b, m, n, k, 1)
		})
	}
}

// benchGemm times C = A*B (no transposes, beta 0) for an m×k A and k×n B,
// ours and, when built in, OpenBLAS's, on one and two threads, and reports
// GFLOP/s. OpenBLAS's thread count is set per variant, so leave
// OPENBLAS_NUM_THREADS unset (or at least 2).
func benchGemm(b *testing.B, m, n, k int) { benchGemmOp(b, false, false, m, n, k, 2) }

// benchGemmOp times C = op(A)*op(B) on 1..maxThreads threads.
func benchGemmOp(b *testing.B, transA, transB bool, m, n, k, maxThreads int) {
	rng := newRand(1)
	x, y, z := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	lda, ldb := k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	type variant struct {
		name    string
		threads int
		run     func()
	}
	var variants []variant
	for threads := 1; threads <= maxThreads; threads++ {
		variants = append(variants, variant{fmt.Sprintf("ours-%dt", threads), threads, func() {
			SgemmParallel(threads, transA, transB, m, n, k, 1, x, lda, y, ldb, 0, z, n)
		}})
		if openblas.Available {
			variants = append(variants, variant{fmt.Sprintf("openblas-%dt", threads), threads, func() {
				openblas.SetThreads(threads)
				openblas.Sgemm(transA, transB, m, n, k, 1, x, lda, y, ldb, 0, z, n)
			}})
		}
	}
	flop := 2 * float64(m) * float64(n) * float64(k)
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			// On one thread, the CPU time of this thread gives a second
			// figure that time stolen by other processes does not skew.
			// On more, the CPU time of the process over the wall time
			// tells how many cores the product got (for OpenBLAS it also
			// counts the time its idle threads spend spinning).
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			v.run()
			thread0, proc0 := threadCPUTime(), processCPUTime()
			for b.Loop() {
				v.run()
			}
			wall := b.Elapsed().Seconds()
			b.ReportMetric(flop*float64(b.N)/wall/1e9, "GFLOP/s")
			if v.threads == 1 {
				if cpu := threadCPUTime() - thread0; cpu > 0 {
					b.ReportMetric(flop*float64(b.N)/cpu.Seconds()/1e9, "cpu-GFLOP/s")
				}
			} else if cpu := processCPUTime() - proc0; cpu > 0 {
				b.ReportMetric(cpu.Seconds()/wall, "cores")
			}
		})
	}
}

// BenchmarkSgemmImpl compares the implementations this CPU runs on one
// square product, single-threaded.
func BenchmarkSgemmImpl(b *testing.B) {
	const n = 256
	rng := newRand(1)
	x, y, z := randSlice(rng, n*n), randSlice(rng, n*n), make([]float32, n*n)
	for _, name := range Implementations() {
		b.Run(name, func(b *testing.B) {
			prev, err := SetImplementation(name)
			if err != nil {
				b.Fatal(err)
			}
			defer SetImplementation(prev)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0 := threadCPUTime()
			for b.Loop() {
				Sgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := threadCPUTime() - cpu0; cpu > 0 {
				b.ReportMetric(2*n*n*n*float64(b.N)/cpu.Seconds()/1e9, "cpu-GFLOP/s")
			}
		})
	}
}

// convShapes are convolution layers of LeNet, CIFAR-10 quick and AlexNet
// (AlexNet's grouped layers per group).
var convShapes = []struct {
	name                   string
	c, h, w, k, pad, strid int
}{
	{"lenet-conv1", 1, 28, 28, 5, 0, 1},
	{"lenet-conv2", 20, 12, 12, 5, 0, 1},
	{"cifar-conv1", 3, 32, 32, 5, 2, 1},
	{"cifar-conv2", 32, 16, 16, 5, 2, 1},
	{"cifar-conv3", 32, 8, 8, 5, 2, 1},
	{"alexnet-conv1", 3, 227, 227, 11, 0, 4},
	{"alexnet-conv2", 48, 27, 27, 5, 2, 1},
	{"alexnet-conv3", 256, 13, 13, 3, 1, 1},
}

// BenchmarkIm2col times Im2col and Col2im against the reference loops and
// reports the column matrix bandwidth.
func BenchmarkIm2col(b *testing.B) {
	for _, s := range convShapes {
		oh := ConvOutSize(s.h, s.k, s.pad, s.strid, 1)
		ow := ConvOutSize(s.w, s.k, s.pad, s.strid, 1)
		img := randSlice(newRand(2), s.c*s.h*s.w)
		col := make([]float32, s.c*s.k*s.k*oh*ow)
		bytes := float64(4 * len(col))
		for _, f := range []struct {
			name string
			run  func()
		}{
			{"im2col", func() { Im2col(img, s.c, s.h, s.w, s.k, s.k, s.pad, s.pad, s.strid, s.strid, 1, 1, col) }},
			{"im2col-ref", func() { im2colRef(img, s.c, s.h, s.w, s.k, s.k, s.pad, s.pad, s.strid, s.strid, 1, 1, col) }},
			{"col2im", func() { Col2im(col, s.c, s.h, s.w, s.k, s.k, s.pad, s.pad, s.strid, s.strid, 1, 1, img) }},
			{"col2im-ref", func() { col2imRef(col, s.c, s.h, s.w, s.k, s.k, s.pad, s.pad, s.strid, s.strid, 1, 1, img) }},
		} {
			b.Run(s.name+"/"+f.name, func(b *testing.B) {
				for b.Loop() {
					f.run()
				}
				b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

// BenchmarkVector times the vector primitives on 4096 floats (in L1) in
// every implementation.
func BenchmarkVector(b *testing.B) {
	const n = 4096
	rng := newRand(3)
	x, y, z := randSlice(rng, n), randSlice(rng, n), make([]float32, n)
	var sink float32
	ops := []struct {
		name string
		run  func()
	}{
		{"Axpy", func() { Axpy(1e-3, x, y) }},
		{"Axpby", func() { Axpby(1e-3, x, 0.999, y) }},
		{"Scale", func() { Scale(1, y) }},
		{"Add", func() { Add(z, x, y) }},
		{"Mul", func() { Mul(z, x, y) }},
		{"Dot", func() { sink += Dot(x, y) }},
		{"Sum", func() { sink += Sum(x) }},
		{"Max", func() { sink += Max(x) }},
		{"Exp", func() { Exp(z, x) }},
	}
	for _, name := range Implementations() {
		for _, op := range ops {
			b.Run(op.name+"/"+name, func(b *testing.B) {
				prev, err := SetImplementation(name)
				if err != nil {
					b.Fatal(err)
				}
				defer SetImplementation(prev)
				for b.Loop() {
					op.run()
				}
				b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
	}
	_ = sink
}

// directShapes are the stride-1 convolutions of LeNet, CIFAR-10 quick and
// AlexNet that the direct convolution is meant for (AlexNet's conv2 per
// group, its conv4 and conv5 with their two groups).
var directShapes = []struct {
	name                  string
	c, h, w, m, g, k, pad int
}{
	{"lenet-conv1", 1, 28, 28, 20, 1, 5, 0},
	{"lenet-conv2", 20, 12, 12, 50, 1, 5, 0},
	{"cifar-conv1", 3, 32, 32, 32, 1, 5, 2},
	{"cifar-conv2", 32, 16, 16, 32, 1, 5, 2},
	{"cifar-conv3", 32, 8, 8, 64, 1, 5, 2},
	{"alexnet-conv2", 48, 27, 27, 128, 1, 5, 2},
	{"alexnet-conv3", 256, 13, 13, 384, 1, 3, 1},
	{"alexnet-conv4", 384, 13, 13, 384, 2, 3, 1},
	{"alexnet-conv5", 384, 13, 13, 256, 2, 3, 1},
}

// BenchmarkDirectConv times the passes of the direct convolution on one
// block of images, single-threaded, and reports the FLOP rate per second
// of the thread's CPU time and as a share of the FMA peak. The pass
// "tiles" is the forward pass's tile kernel alone on the layer's calls
// for one inner output row, repeated for every row and group (its input
// and packed weights in the caches, no interleaving, no edges, no store):
// the rate the forward pass would reach if nothing but its products took
// time. The pass "weights" takes the output gradient in Caffe's layout
// (WeightGrad, which interleaves it), "weights-loaded" the one LoadGrad
// left for the input gradient (WeightGradLoaded, as the fused groups do).
// The pass "backward" is a block's whole backward pass as a layer with a
// bias runs it: LoadGradTiles (the bias gradient and both layouts of the
// output gradient in one pass over it), BackwardData and
// WeightGradLoaded; "backward-passes" the same with a pass over the
// gradient for each (the bias sums, LoadGrad, and WeightGrad's own
// interleave), the FLOPs of both gradients counted. "backward-relu" is
// "backward" after an in-place ReLU (LoadGradTiles taking its gradient
// too, plane by plane), "backward-relu-pass" the same with ReluGrad first
// over the whole block, as a fused group with a ReLU passes it otherwise.
// The pass "forward-pool" is ForwardPool with a ReLU and an AVE 3×3
// stride-2 pooling on the block (CIFAR-10 quick's conv2 and conv3 groups);
// "forward-maxpool" is ForwardPool with a MAX 2×2 stride-2 pooling
// (LeNet's groups), NewMaxPool's plan; "load-input" is the interleaving of the input block alone (LoadInput,
// part of "forward"), reported as time only.
//
// SPARKNET_DIRECT_TUNE sets the plans' blocking variables for the run
// (see directTuning), so that another blocking can be tried on a
// machine without a rebuild:
//
//	SPARKNET_DIRECT_TUNE=chunk=45,group=8 go test -run '^$' -bench 'DirectConv/alexnet' ./ndarray/kernel
func BenchmarkDirectConv(b *testing.B) {
	for _, s := range directShapes {
		for _, pass := range []string{"tiles", "load-input", "forward", "forward-pool", "forward-maxpool", "data", "weights", "weights-loaded", "backward", "backward-passes", "backward-relu", "backward-relu-pass"} {
			b.Run(s.name+"/"+pass, func(b *testing.B) {
				defer directTuning(b)()
				d := NewDirectConv(s.c, s.h, s.w, s.m, s.g, s.k, s.k, s.pad, s.pad)
				if d == nil {
					b.Skip("no direct convolution with these kernels")
				}
				L := d.Lanes()
				oh, ow := d.OutputSize()
				rng := newRand(1)
				x := randSlice(rng, L*s.c*s.h*s.w)
				w := randSlice(rng, s.m*s.c/s.g*s.k*s.k)
				y := make([]float32, L*s.m*oh*ow)
				dx := make([]float32, len(x))
				dw := make([]float32, len(w))
				db := make([]float32, s.m)
				// The outputs of a ReLU: about half of them zero.
				ry := randSlice(rng, L*s.m*oh*ow)
				for i := range ry {
					ry[i] = max(0, ry[i])
				}
				sc, bl := d.NewScratch(), d.NewBlocks(1)
				d.PackForward(w)
				d.PackBackward(w)
				d.Forward(sc, bl, 0, x, L, y, nil)
				d.LoadGrad(sc, y, L)
				// The inner pixels of a row, whose windows take every kernel
				// column, in runs of directKC weights, for every tile.
				inner := ow - 2*s.pad
				// CIFAR-10 quick's conv2 and conv3 groups: a ReLU and an
				// AVE 3×3 stride-2 pooling on the interleaved block.
				ph, pw := (oh-3+1)/2+1, (ow-3+1)/2+1
				pool := d.NewPool(true, 3, 3, 2, 2, ph, pw, true, 0)
				var py []float32
				var mask []int32
				if pool != nil {
					py, mask = make([]float32, L*s.m*ph*pw), make([]int32, pool.MaskSize())
				} else if pass == "forward-pool" {
					b.Skip("no pooling plan")
				}
				if pass == "forward-maxpool" {
					pool = d.NewMaxPool(2, 2, 2, 2, oh/2, ow/2)
					if pool == nil {
						b.Skip("no pooling plan")
					}
					py, mask = make([]float32, L*s.m*(oh/2)*(ow/2)), make([]int32, pool.MaskSize())
				}
				run := map[string]func(){
					"forward-pool":    func() { d.ForwardPool(sc, bl, 0, x, L, nil, nil, pool, py, mask) },
					"forward-maxpool": func() { d.ForwardPool(sc, bl, 0, x, L, nil, nil, pool, py, mask) },
					"tiles": func() {
						xs := bl.x[s.pad*d.pw*d.cs*L+s.pad*d.cs*L:]
						for range oh * s.g {
							for _, t := range d.fTiles {
								for k0 := 0; k0 < d.kk; k0 += directKC {
									d.k.tile(t.h, min(directKC, d.kk-k0), 1, 0, &d.wf[t.r0*d.kk+k0*t.h], &xs[0], &d.offF[k0], d.cs*L*4,
										&sc.y[t.r0*L], d.ms*L*4, inner, k0 > 0)
								}
							}
						}
					},
					"load-input":     func() { d.LoadInput(bl, 0, x, L) },
					"forward":        func() { d.Forward(sc, bl, 0, x, L, y, nil) },
					"data":           func() { d.LoadGrad(sc, y, L); d.BackwardData(sc, dx, L) },
					"weights":        func() { d.WeightGrad(sc, x, y, L, dw) },
					"weights-loaded": func() { d.WeightGradLoaded(sc, x, L, dw) },
					"backward": func() {
						d.LoadGradTiles(sc, y, L, db, nil, 0)
						d.BackwardData(sc, dx, L)
						d.WeightGradLoaded(sc, x, L, dw)
					},
					"backward-relu": func() {
						d.LoadGradTiles(sc, y, L, db, ry, 0)
						d.BackwardData(sc, dx, L)
						d.WeightGradLoaded(sc, x, L, dw)
					},
					"backward-relu-pass": func() {
						ReluGrad(y, y, ry, 0)
						d.LoadGradTiles(sc, y, L, db, nil, 0)
						d.BackwardData(sc, dx, L)
						d.WeightGradLoaded(sc, x, L, dw)
					},
					"backward-passes": func() {
						P := oh * ow
						for j := range L {
							for m := range s.m {
								db[m] += Sum(y[(j*s.m+m)*P : (j*s.m+m+1)*P])
							}
						}
						d.LoadGrad(sc, y, L)
						d.BackwardData(sc, dx, L)
						d.WeightGrad(sc, x, y, L, dw)
					},
				}[pass]
				flops := 2 * float64(L*s.m*s.c/s.g*s.k*s.k*oh*ow)
				if strings.HasPrefix(pass, "backward") {
					flops *= 2
				}
				if pass == "tiles" {
					flops = 2 * float64(L*s.m*s.c/s.g*s.k*s.k*inner*oh)
				}
				if pass == "load-input" {
					flops = 0
				}
				benchFLOPs(b, flops, run)
			})
		}
	}
}

// directTuning sets the blocking variables of the direct convolution
// named in SPARKNET_DIRECT_TUNE (a comma-separated list of name=value:
// group, chunk and pixels for the weight gradient's directGradGroup,
// directGradChunk and directGradPixels; rows and prefetch for its
// directGradRowsBytes and directGradPrefetchBytes; win and wgroup for
// directGradWin and directGradWinGroup; stride for
// directGradStride; fchunk and tiles for directChunk and
// directChunkTiles; load for directLoadChannels; stream for
// directStreamBytes) before a benchmark makes its plan, and returns the
// function that restores them. Each blocking gives the same sums; only
// the speed changes.
func directTuning(b *testing.B) func() {
	vars := map[string]*int{
		"group": &directGradGroup, "chunk": &directGradChunk, "pixels": &directGradPixels,
		"stride": &directGradStride, "fchunk": &directChunk, "tiles": &directChunkTiles,
		"load": &directLoadChannels, "stream": &directStreamBytes,
		"rows": &directGradRowsBytes, "prefetch": &directGradPrefetchBytes, "win": &directGradWin, "wgroup": &directGradWinGroup,
		"wino": &winoChannels, "wino5": &winoChannels5, "wchunk": &winoChunk, "wblocks": &winoBlocks,
	}
	old := make(map[string]int, len(vars))
	for k, p := range vars {
		old[k] = *p
	}
	restore := func() {
		for k, p := range vars {
			*p = old[k]
		}
	}
	spec := os.Getenv("SPARKNET_DIRECT_TUNE")
	if spec == "" {
		return restore
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		p := vars[k]
		if p == nil || err != nil || n <= 0 {
			restore()
			b.Fatalf("SPARKNET_DIRECT_TUNE: %q is not name=positive integer with name one of group, chunk, pixels, rows, prefetch, win, wgroup, wino, wino5, wchunk, wblocks, stride, fchunk, tiles, load, stream", kv)
		}
		*p = n
	}
	return restore
}

// BenchmarkDirectTail times a DirectTail's passes on a last block of
// four images (CIFAR-10 quick's batch of 100 leaves four after six
// blocks of 16), its rate counting the images' multiply-adds only, to
// compare with BenchmarkDirectConv's full blocks:
//
//	go test -run '^$' -bench 'Direct(Conv|Tail)/cifar' ./ndarray/kernel
func BenchmarkDirectTail(b *testing.B) {
	const n = 4
	for _, s := range directShapes {
		for _, pass := range []string{"forward", "data", "weights"} {
			b.Run(s.name+"/"+pass, func(b *testing.B) {
				d := NewDirectConv(s.c, s.h, s.w, s.m, s.g, s.k, s.k, s.pad, s.pad)
				if d == nil {
					b.Skip("no direct convolution with these kernels")
				}
				t := d.NewTail(n)
				oh, ow := d.OutputSize()
				rng := newRand(1)
				x := randSlice(rng, n*s.c*s.h*s.w)
				w := randSlice(rng, s.m*s.c/s.g*s.k*s.k)
				y := make([]float32, n*s.m*oh*ow)
				dx := make([]float32, len(x))
				dw := make([]float32, len(w))
				d.PackForward(w)
				d.PackBackward(w)
				t.Forward(x, n, y, nil)
				t.LoadGrad(y, n)
				run := map[string]func(){
					"forward": func() { t.Forward(x, n, y, nil) },
					"data":    func() { t.LoadGrad(y, n); t.BackwardData(dx, n) },
					"weights": func() { t.WeightGrad(x, n, dw) },
				}[pass]
				benchFLOPs(b, 2*float64(n*s.m*s.c/s.g*s.k*s.k*oh*ow), run)
			})
		}
	}
}

// BenchmarkDirectConvPack times the packing of the weights that the
// direct convolution's forward and backward passes do once per pass, on
// the calling goroutine alone while the other threads wait:
//
//	go test -run '^$' -bench DirectConvPack ./ndarray/kernel
func BenchmarkDirectConvPack(b *testing.B) {
	defer directTuning(b)()
	for _, s := range directShapes {
		d := NewDirectConv(s.c, s.h, s.w, s.m, s.g, s.k, s.k, s.pad, s.pad)
		if d == nil {
			b.Skip("no direct convolution with these kernels")
		}
		w := randSlice(newRand(1), s.m*s.c/s.g*s.k*s.k)
		b.Run(s.name+"/forward", func(b *testing.B) {
			benchCPU(b, func() { d.PackForward(w) })
		})
		b.Run(s.name+"/backward", func(b *testing.B) {
			benchCPU(b, func() { d.PackBackward(w) })
		})
	}
}

// BenchmarkDirectConvLoadGrad times LoadGradTiles, the pass that puts a
// block's output gradient into the layouts of the input and weight
// gradients and sums the bias gradient, on gradients that come from
// memory (blocks of 64 MB of them in turn, as in a training step, where
// the layer above wrote them long before), reporting the thread's CPU
// time per block; the ones named relu take the gradient of an in-place
// ReLU too, from its output in memory as well:
//
//	go test -run '^$' -bench DirectConvLoadGrad ./ndarray/kernel
func BenchmarkDirectConvLoadGrad(b *testing.B) {
	for _, s := range directShapes {
		d := NewDirectConv(s.c, s.h, s.w, s.m, s.g, s.k, s.k, s.pad, s.pad)
		if d == nil {
			b.Skip("no direct convolution with these kernels")
		}
		for _, relu := range []bool{false, true} {
			name := s.name
			if relu {
				name += "/relu"
			}
			b.Run(name, func(b *testing.B) {
				L := d.Lanes()
				oh, ow := d.OutputSize()
				rng := newRand(1)
				ys := make([][]float32, max(2, (64<<20)/(4*L*s.m*oh*ow)))
				var rys [][]float32
				for i := range ys {
					ys[i] = randSlice(rng, L*s.m*oh*ow)
					if relu {
						rys = append(rys, randSlice(rng, L*s.m*oh*ow))
					}
				}
				db := make([]float32, s.m)
				sc := d.NewScratch()
				i := 0
				benchCPU(b, func() {
					var ry []float32
					if relu {
						ry = rys[i%len(rys)]
					}
					d.LoadGradTiles(sc, ys[i%len(ys)], L, db, ry, 0)
					i++
				})
			})
		}
	}
}

// benchCPU runs f b.N times on a locked thread and reports the thread's
// CPU time per run.
func benchCPU(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	cpu0 := threadCPUTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(threadCPUTime()-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
}

// benchFLOPs runs f b.N times on a locked thread and reports its rate per
// second of the thread's CPU time and as a share of the FMA peak, or,
// with flops 0, the thread's CPU time per run.
func benchFLOPs(b *testing.B, flops float64, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	peak := MeasurePeak(20 * time.Millisecond)
	f()
	cpu0 := threadCPUTime()
	for b.Loop() {
		f()
	}
	cpu := threadCPUTime() - cpu0
	if cpu > 0 && flops > 0 {
		rate := flops * float64(b.N) / cpu.Seconds() / 1e9
		b.ReportMetric(rate, "GFLOP/cpu-s")
		b.ReportMetric(100*rate/peak.GFLOPS(), "%peak-cpu")
	} else if cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N)/1e3, "cpu-µs/op")
	}
}

// BenchmarkSGDStep compares the fused SGD step with the four passes it
// replaces (decay, momentum, copy, update) on a LeNet-sized and an
// AlexNet-sized parameter set, reporting parameters per second of the
// thread's CPU time.
//
//	go test -run '^$' -bench SGDStep ./ndarray/kernel
func BenchmarkSGDStep(b *testing.B) {
	for _, n := range []int{431080, 60965224} {
		w, g, h := make([]float32, n), make([]float32, n), make([]float32, n)
		SGDStep(w, g, h, 5e-4, 0.01, 0.9) // fault the pages in
		for _, fused := range []bool{false, true} {
			name := fmt.Sprintf("%d/passes", n)
			if fused {
				name = fmt.Sprintf("%d/fused", n)
			}
			b.Run(name, func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0 := threadCPUTime()
				for b.Loop() {
					if fused {
						SGDStep(w, g, h, 5e-4, 0.01, 0.9)
						continue
					}
					Axpy(5e-4, w, g)
					Axpby(0.01, g, 0.9, h)
					copy(g, h)
					Axpy(-1, g, w)
				}
				if cpu := threadCPUTime() - cpu0; cpu > 0 {
					b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e9, "Gparam/cpu-s")
				}
			})
		}
	}
}

// BenchmarkDirectConvLoadInput times the interleaving of a block's input
// into the forward pass's pixel-major layout (LoadInput) and into the
// weight gradient's channel-major one (every group), on inputs that come
// from memory (blocks of 64 MB of them in turn, as in a training step) or
// on one block in the caches ("warm"), reporting the thread's CPU time
// per block:
//
//	go test -run '^$' -bench DirectConvLoadInput ./ndarray/kernel
func BenchmarkDirectConvLoadInput(b *testing.B) {
	for _, s := range directShapes {
		d := NewDirectConv(s.c, s.h, s.w, s.m, s.g, s.k, s.k, s.pad, s.pad)
		if d == nil {
			b.Skip("no direct convolution with these kernels")
		}
		L := d.Lanes()
		for _, pass := range []string{"pixel-major", "channel-major", "channel-major-warm"} {
			b.Run(s.name+"/"+pass, func(b *testing.B) {
				rng := newRand(1)
				xs := make([][]float32, max(2, (64<<20)/(4*L*d.imgSize)))
				if strings.HasSuffix(pass, "warm") {
					xs = xs[:1]
				}
				for i := range xs {
					// In huge pages, as the blobs are.
					xs[i] = HugePageFloats(L * d.imgSize)
					copy(xs[i], randSlice(rng, L*d.imgSize))
				}
				sc, bl := d.NewScratch(), d.NewBlocks(1)
				sc.xc = HugePageFloats(d.xcSize)
				i := 0
				benchCPU(b, func() {
					x := xs[i%len(xs)]
					i++
					if pass == "pixel-major" {
						d.LoadInput(bl, 0, x, L)
						return
					}
					for g := range d.groups {
						d.loadChannelMajor(sc, g, x, L)
					}
				})
			})
		}
	}
}

// BenchmarkDirectConvStore times the stores of Forward's interleaved
// output chunks (a chunk of tiles over a band of rows at a time, as
// Forward computes them) into a block's n images (NCHW, the bias added),
// into outputs that the caches do not hold (blocks of 64 MB of them in
// turn, in huge pages as the blobs are), reporting the thread's CPU time
// per block:
//
//	go test -run '^$' -bench DirectConvStore ./ndarray/kernel
func BenchmarkDirectConvStore(b *testing.B) {
	for _, s := range directShapes {
		d := NewDirectConv(s.c, s.h, s.w, s.m, s.g, s.k, s.k, s.pad, s.pad)
		if d == nil {
			b.Skip("no direct convolution with these kernels")
		}
		b.Run(s.name, func(b *testing.B) {
			L := d.Lanes()
			rng := newRand(1)
			src := randSlice(rng, d.ySize)
			bias := randSlice(rng, d.mAll)
			ys := make([][]float32, max(2, (64<<20)/(4*L*d.outSize)))
			for i := range ys {
				ys[i] = HugePageFloats(L * d.outSize)
				copy(ys[i], randSlice(rng, len(ys[i]))) // the pages faulted in
			}
			i := 0
			benchCPU(b, func() {
				y := ys[i%len(ys)]
				i++
				for g := range d.groups {
					for _, ch := range d.fChunks {
						for y0 := 0; y0 < d.oh; y0 += d.fBand {
							d.storeChunk(src, g*d.m+ch.r0, g*d.m+ch.r1, d.mAll, y0, min(d.oh, y0+d.fBand), d.oh, d.ow, y, L, bias, directPass{})
						}
					}
				}
			})
		})
	}
}
