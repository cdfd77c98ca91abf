package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

func TestCopyAddRows(t *testing.T) {
	cases := []struct {
		name                 string
		rows, cols, ldd, lds int
	}{
		{"empty", 0, 5, 5, 5},
		{"one", 1, 1, 1, 1},
		{"short-odd-rows", 7, 5, 9, 6},
		{"exact-vector", 4, 16, 16, 20},
		{"vector-plus-one", 3, 17, 17, 40},
		{"long", 5, 55, 60, 55},
		{"two-vectors", 2, 32, 33, 32},
		{"single-row-long", 1, 100, 100, 100},
	}
	ops := []struct {
		name string
		run  func(dst []float32, ldd int, src []float32, lds int, rows, cols int)
		ref  func(dst []float32, ldd int, src []float32, lds int, rows, cols int)
	}{
		{"CopyRows", CopyRows, copyRowsGo},
		{"AddRows", AddRows, addRowsGo},
	}
	forEachImpl(t, func(t *testing.T) {
		for _, op := range ops {
			for _, c := range cases {
				t.Run(op.name+"/"+c.name, func(t *testing.T) {
					rng := newRand(7)
					src := randSlice(rng, max(0, (c.rows-1)*c.lds+c.cols))
					n := c.rows*c.ldd + 3
					got, want := randSlice(rng, n), make([]float32, n)
					copy(want, got)
					op.run(got, c.ldd, src, c.lds, c.rows, c.cols)
					if c.rows > 0 && c.cols > 0 {
						op.ref(want, c.ldd, src, c.lds, c.rows, c.cols)
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("dst[%d] = %g, want %g", i, got[i], want[i])
						}
					}
				})
			}
		}
	})
}

func TestCopyRowsPanics(t *testing.T) {
	s := make([]float32, 10)
	expectPanic(t, "negative", func() { CopyRows(s, 2, s, 2, -1, 2) })
	expectPanic(t, "ldsrc", func() { CopyRows(s, 4, s, 2, 2, 3) })
	expectPanic(t, "len(dst)", func() { AddRows(s, 4, s, 4, 3, 4) })
}

func TestRelu(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, slope := range []float32{0, 0.1, -2} {
			for _, n := range vecLengths {
				t.Run(fmt.Sprintf("slope=%g/%d", slope, n), func(t *testing.T) {
					rng := newRand(uint64(n))
					x, dy := randSlice(rng, n), randSlice(rng, n)
					if n > 2 {
						x[0], x[1] = 0, float32(math.Inf(-1))
					}
					got, want := make([]float32, n+1), make([]float32, n+1)
					got[n], want[n] = sentinel, sentinel
					Relu(got, x, slope)
					reluGo(want, x, slope)
					checkExact(t, "Relu", got, want)
					ReluGrad(got, dy, x, slope)
					reluGradGo(want, dy, x, slope)
					checkExact(t, "ReluGrad", got, want)
					// In place, as Caffe nets run ReLU.
					y, w := append([]float32(nil), x...), make([]float32, n)
					Relu(y, y, slope)
					reluGo(w, x, slope)
					checkExact(t, "Relu in place", y, w)
				})
			}
		}
	})
}

// checkExact compares got with want element by element (NaNs equal).
// checkBits is checkExact telling −0 from +0: the bits must match (any
// NaN matches a NaN).
func checkBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range got {
		g, w := got[i], want[i]
		if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
			t.Fatalf("%s: element %d = %g (%#x), want %g (%#x)", what, i, g, math.Float32bits(g), w, math.Float32bits(w))
		}
	}
}

func checkExact(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range got {
		g, w := got[i], want[i]
		if g != w && !(g != g && w != w) {
			t.Fatalf("%s: element %d = %g, want %g", what, i, g, w)
		}
	}
}

func TestDivSqrt(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range vecLengths {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				rng := newRand(uint64(n + 11))
				x, y := randSlice(rng, n), randSlice(rng, n)
				got, want := make([]float32, n+1), make([]float32, n+1)
				got[n], want[n] = sentinel, sentinel
				Div(got, x, y)
				divGo(want, x, y)
				checkExact(t, "Div", got, want)
				for i := range x {
					x[i] = x[i]*x[i]*100 + float32(i%3)*1e-30 // tiny and zero too
				}
				Sqrt(got, x)
				sqrtGo(want, x)
				checkExact(t, "Sqrt", got, want)
			})
		}
	})
}

func TestReluValues(t *testing.T) {
	x := []float32{-2, -0.5, 0, 0.5, 3, float32(math.NaN())}
	dy := []float32{1, 2, 3, 4, 5, 6}
	forEachImpl(t, func(t *testing.T) {
		y := make([]float32, len(x))
		Relu(y, x, 0.25)
		want := []float32{-0.5, -0.125, 0, 0.5, 3}
		for i, w := range want {
			if y[i] != w {
				t.Errorf("Relu(%g) = %g, want %g", x[i], y[i], w)
			}
		}
		if !math.IsNaN(float64(y[5])) {
			t.Errorf("Relu(NaN) = %g, want NaN", y[5])
		}
		Relu(y, x, 0)
		for i, v := range y[:3] {
			if v != 0 || math.Signbit(float64(v)) {
				t.Errorf("Relu(%g) with slope 0 = %g, want +0", x[i], v)
			}
		}
		ReluGrad(y, dy, x, 0.25)
		wantG := []float32{0.25, 0.5, 0.75, 4, 5, 1.5}
		for i, w := range wantG {
			if y[i] != w {
				t.Errorf("ReluGrad at x = %g: %g, want %g", x[i], y[i], w)
			}
		}
	})
}

func TestPoolRows(t *testing.T) {
	type geom struct{ n, rows, kw, stride, pad int }
	var geoms []geom
	for _, n := range []int{1, 2, 7, 15, 16, 17, 31, 32, 33, 55} {
		for _, w := range [][2]int{{2, 2}, {3, 2}, {3, 1}, {2, 1}, {1, 1}, {5, 3}, {3, 3}, {4, 2}} {
			geoms = append(geoms, geom{n, 3, w[0], w[1], 2})
		}
	}
	geoms = append(geoms, geom{9, 1, 3, 2, 0}, geom{20, 2, 2, 2, 0})
	forEachImpl(t, func(t *testing.T) {
		for _, g := range geoms {
			name := fmt.Sprintf("n=%d/rows=%d/k=%d/s=%d", g.n, g.rows, g.kw, g.stride)
			t.Run(name, func(t *testing.T) {
				rng := newRand(uint64(g.n*100 + g.kw*10 + g.stride))
				ld := (g.n-1)*g.stride + g.kw + g.pad
				src := randSlice(rng, (g.rows-1)*ld+(g.n-1)*g.stride+g.kw)
				// Ties, -Inf and NaN: the first maximum must win and
				// -Inf and NaN must never win.
				for i := range src {
					switch rng.IntN(8) {
					case 0:
						src[i] = 0.5
					case 1:
						src[i] = float32(math.Inf(-1))
					case 2:
						src[i] = float32(math.NaN())
					}
				}
				got, want := make([]float32, g.n+1), make([]float32, g.n+1)
				garg, warg := make([]int32, g.n+1), make([]int32, g.n+1)
				got[g.n], want[g.n], garg[g.n], warg[g.n] = sentinel, sentinel, 77, 77
				MaxPoolRow(got, garg, src, g.n, g.rows, ld, g.kw, g.stride, 1000)
				maxPoolRowGo(want, warg, src, g.n, g.rows, ld, g.kw, g.stride, 1000)
				checkExact(t, "MaxPoolRow", got, want)
				for o := range garg {
					if garg[o] != warg[o] {
						t.Fatalf("MaxPoolRow: arg[%d] = %d, want %d", o, garg[o], warg[o])
					}
				}
				// Sums of finite values.
				for i, v := range src {
					if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
						src[i] = 0.25
					}
				}
				div := float32(g.rows*g.kw + 1)
				AvePoolRow(got, src, g.n, g.rows, ld, g.kw, g.stride, div)
				avePoolRowGo(want, src, g.n, g.rows, ld, g.kw, g.stride, div)
				checkExact(t, "AvePoolRow", got, want)
			})
		}
	})
}

// TestPoolRowsMulti checks MaxPoolRows and AvePoolRows against the row
// kernels called row by row, on rows that overlap (srcRow smaller than a
// window) and rows far apart.
func TestPoolRowsMulti(t *testing.T) {
	type geom struct{ count, n, rows, kw, stride, srcRow, dstRow int }
	geoms := []geom{
		{12, 12, 2, 2, 2, 48, 12}, {4, 4, 2, 2, 2, 16, 4}, {15, 15, 3, 3, 2, 64, 16}, {7, 17, 3, 3, 1, 19, 20},
		{1, 33, 2, 2, 2, 66, 33}, {5, 9, 3, 3, 3, 30, 9}, {3, 40, 1, 1, 1, 45, 41},
	}
	forEachImpl(t, func(t *testing.T) {
		for _, g := range geoms {
			t.Run(fmt.Sprintf("%+v", g), func(t *testing.T) {
				rng := newRand(uint64(g.n*100 + g.count))
				ld := (g.n-1)*g.stride + g.kw + 1
				nsrc := (g.count-1)*g.srcRow + (g.rows-1)*ld + (g.n-1)*g.stride + g.kw
				src := randSlice(rng, nsrc)
				for i := range src {
					if rng.IntN(6) == 0 {
						src[i] = 0.5
					}
				}
				nd := (g.count-1)*g.dstRow + g.n + 1
				got, want := make([]float32, nd), make([]float32, nd)
				garg, warg := make([]int32, nd), make([]int32, nd)
				for i := range got {
					got[i], want[i] = sentinel, sentinel
				}
				MaxPoolRows(got, garg, src, g.count, g.n, g.rows, ld, g.kw, g.stride, 100, g.dstRow, g.srcRow)
				for r := range g.count {
					maxPoolRowGo(want[r*g.dstRow:], warg[r*g.dstRow:], src[r*g.srcRow:], g.n, g.rows, ld, g.kw, g.stride, 100+int32(r*g.srcRow))
				}
				checkExact(t, "MaxPoolRows", got, want)
				for o := range garg {
					if garg[o] != warg[o] {
						t.Fatalf("MaxPoolRows: arg[%d] = %d, want %d", o, garg[o], warg[o])
					}
				}
				div := float32(g.rows * g.kw)
				AvePoolRows(got, src, g.count, g.n, g.rows, ld, g.kw, g.stride, div, g.dstRow, g.srcRow)
				for r := range g.count {
					avePoolRowGo(want[r*g.dstRow:], src[r*g.srcRow:], g.n, g.rows, ld, g.kw, g.stride, div)
				}
				checkExact(t, "AvePoolRows", got, want)
			})
		}
	})
}

// TestMaxPoolBackward checks the disjoint (scattered) form against the
// ordered additions, with empty windows and indexes outside dx.
func TestMaxPoolBackward(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{1, 15, 16, 17, 144, 300} {
			rng := newRand(uint64(n))
			dx := make([]float32, 4*n+3)
			mask := make([]int32, n)
			perm := rng.Perm(len(dx))
			for i := range mask {
				mask[i] = int32(perm[i])
				switch rng.IntN(10) {
				case 0:
					mask[i] = -1
				case 1:
					mask[i] = int32(len(dx) + rng.IntN(5))
				}
			}
			dy := randSlice(rng, n)
			dy[0] = float32(math.Copysign(0, -1))
			want := make([]float32, len(dx))
			maxPoolBackwardGo(want, dy, mask)
			got := randSlice(rng, len(dx))
			MaxPoolBackward(got, dy, mask, true)
			checkExact(t, fmt.Sprintf("n=%d disjoint", n), got, want)
			got = randSlice(rng, len(dx))
			MaxPoolBackward(got, dy, mask, false)
			checkExact(t, fmt.Sprintf("n=%d", n), got, want)
		}
	})
}

func TestMaxPoolRowEmptyWindow(t *testing.T) {
	inf := float32(math.Inf(-1))
	src := []float32{inf, inf, inf, 2}
	forEachImpl(t, func(t *testing.T) {
		dst, arg := make([]float32, 2), make([]int32, 2)
		MaxPoolRow(dst, arg, src, 2, 1, 4, 2, 2, 10)
		if dst[0] != -math.MaxFloat32 || arg[0] != -1 || dst[1] != 2 || arg[1] != 13 {
			t.Errorf("got %v %v, want [-MaxFloat32 2] [-1 13]", dst, arg)
		}
	})
}

func TestPoolRowPanics(t *testing.T) {
	s := make([]float32, 10)
	a := make([]int32, 10)
	expectPanic(t, "window", func() { MaxPoolRow(s, a, s, 2, 0, 4, 2, 2, 0) })
	expectPanic(t, "stride", func() { AvePoolRow(s, s, 2, 1, 4, 2, 0, 1) })
	expectPanic(t, "len(src)", func() { AvePoolRow(s, s, 6, 1, 4, 2, 2, 1) })
	expectPanic(t, "len(arg)", func() { MaxPoolRow(s, a[:1], s, 2, 1, 4, 2, 2, 0) })
}

func BenchmarkLayerKernels(b *testing.B) {
	x, y := randSlice(newRand(1), 1<<16), make([]float32, 1<<16)
	arg := make([]int32, 1<<16)
	for _, name := range Implementations() {
		run := func(op string, elems int, f func()) {
			b.Run(op+"/"+name, func(b *testing.B) {
				prev, err := SetImplementation(name)
				if err != nil {
					b.Fatal(err)
				}
				defer SetImplementation(prev)
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0 := threadCPUTime()
				for b.Loop() {
					f()
				}
				cpu := threadCPUTime() - cpu0
				b.ReportMetric(float64(elems)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
				if cpu > 0 {
					b.ReportMetric(float64(elems)*float64(b.N)/cpu.Seconds()/1e9, "Gelem/cpu-s")
				}
			})
		}
		run("CopyRows16", 256*16, func() { CopyRows(y, 16, x, 20, 256, 16) })
		run("AddRows16", 256*16, func() { AddRows(y, 20, x, 16, 256, 16) })
		run("Relu", 4096, func() { Relu(y, x[:4096], 0) })
		run("ReluGrad", 4096, func() { ReluGrad(y, x, x[4096:8192], 0) })
		run("MaxPoolRow3x3s2", 16*32, func() {
			for r := 0; r < 32; r++ {
				MaxPoolRow(y[r*16:], arg[r*16:], x[r*64:], 16, 3, 32, 3, 2, 0)
			}
		})
		// Whole planes of pooling rows: LeNet's two poolings (rows of 12
		// and 4 outputs) and CIFAR-10 quick's inner windows (15 and 7).
		for _, g := range []struct {
			name                              string
			planes, count, n, rows, ld, kw, s int
		}{
			{"MaxPoolRows2x2s2-12", 40, 12, 12, 2, 24, 2, 2},
			{"MaxPoolRows2x2s2-4", 100, 4, 4, 2, 8, 2, 2},
			{"MaxPoolRows3x3s2-15", 20, 15, 15, 3, 32, 3, 2},
			{"AvePoolRows3x3s2-7", 80, 7, 7, 3, 16, 3, 2},
		} {
			run(g.name, g.planes*g.count*g.n, func() {
				for p := range g.planes {
					o, i := p*g.count*g.n, p*g.ld*g.ld
					if g.name[0] == 'M' {
						MaxPoolRows(y[o:], arg[o:], x[i:], g.count, g.n, g.rows, g.ld, g.kw, g.s, 0, g.n, g.s*g.ld)
					} else {
						AvePoolRows(y[o:], x[i:], g.count, g.n, g.rows, g.ld, g.kw, g.s, 9, g.n, g.s*g.ld)
					}
				}
			})
		}
		// LeNet's poolings (24×24 to 12×12 and 8×8 to 4×4) and their
		// gradients as runs of planes in one call; Gelem/s counts the
		// outputs.
		for _, g := range []struct {
			name                string
			planes, height, out int
		}{{"2x2s2-24", 40, 24, 12}, {"2x2s2-8", 400, 8, 4}} {
			hw, o := g.height*g.height, g.out*g.out
			mask := make([]int32, g.planes*o)
			for p := range g.planes {
				copy(mask[p*o:], maxPoolPlaneMask(x[p*hw:], g.height, g.height, g.out, g.out, 2, 2))
			}
			run("MaxPoolPlanes"+g.name, g.planes*o, func() {
				MaxPoolPlanes(y, arg, x, g.planes, g.height, g.height, g.out, g.out, 2, 2, 2, 2)
			})
			run("MaxPoolBackwardPlanes"+g.name, g.planes*o, func() {
				MaxPoolBackwardPlanes(y, x, mask, g.planes, g.height, g.height, g.out, g.out, 2, 2, 2, 2)
			})
		}
		// Overlapping max pooling and its gradient, a plane at a time:
		// CIFAR-10 quick's pool1 (32×32 to 16×16) and AlexNet's pool1
		// (55×55 to 27×27), per plane by MaxPoolBackwardPlane and by the
		// scatter of MaxPoolBackward; Gelem/s counts the outputs.
		for _, g := range []struct {
			name                string
			planes, height, out int
		}{{"3x3s2-32", 16, 32, 16}, {"3x3s2-55", 4, 55, 27}} {
			hw, o := g.height*g.height, g.out*g.out
			mask := make([]int32, g.planes*o)
			for p := range g.planes {
				copy(mask[p*o:], maxPoolPlaneMask(x[p*hw:], g.height, g.height, g.out, g.out, 3, 2))
			}
			run("MaxPoolPlane"+g.name, g.planes*o, func() {
				for p := range g.planes {
					MaxPoolPlane(y[p*o:], arg[p*o:], x[p*hw:], g.height, g.height, g.out, g.out, 3, 3, 2, 2)
				}
			})
			run("MaxPoolBackwardPlane"+g.name, g.planes*o, func() {
				for p := range g.planes {
					MaxPoolBackwardPlane(y[p*hw:(p+1)*hw], x[p*o:], mask[p*o:(p+1)*o], g.height, g.height, g.out, g.out, 3, 3, 2, 2)
				}
			})
			run("MaxPoolBackwardScatter"+g.name, g.planes*o, func() {
				for p := range g.planes {
					MaxPoolBackward(y[p*hw:(p+1)*hw], x[p*o:], mask[p*o:(p+1)*o], false)
				}
			})
		}
		// CIFAR-10 quick's AVE poolings, pool2 (16×16 to 8×8) and pool3
		// (8×8 to 4×4), a plane at a time; Gelem/s counts the outputs.
		for _, g := range []struct {
			name                string
			planes, height, out int
		}{{"3x3s2-16", 32, 16, 8}, {"3x3s2-8", 64, 8, 4}} {
			hw, o := g.height*g.height, g.out*g.out
			run("AvePoolPlane"+g.name, g.planes*o, func() {
				for p := range g.planes {
					AvePoolPlane(y[p*o:], x[p*hw:], g.height, g.height, g.out, g.out, 3, 3, 2, 2)
				}
			})
			run("AvePoolBackwardPlane"+g.name, g.planes*o, func() {
				for p := range g.planes {
					AvePoolBackwardPlane(y[p*hw:(p+1)*hw], x[p*o:], g.height, g.height, g.out, g.out, 3, 3, 2, 2)
				}
			})
		}
		run("AvePoolRow3x3s2", 16*32, func() {
			for r := 0; r < 32; r++ {
				AvePoolRow(y[r*16:], x[r*64:], 16, 3, 32, 3, 2, 9)
			}
		})
	}
}

// poolPlaneSizes returns the output extents of a k-wide, stride-s pooling
// without padding of in values, rounding up and down (both at least 1).
func poolPlaneSizes(in, k, s int) []int {
	var outs []int
	for _, ceil := range []bool{true, false} {
		f := float64(in-k) / float64(s)
		var o int
		if ceil {
			o = int(math.Ceil(f)) + 1
		} else {
			o = int(math.Floor(f)) + 1
		}
		if o >= 1 && (o-1)*s < in && (len(outs) == 0 || outs[0] != o) {
			outs = append(outs, o)
		}
	}
	return outs
}

// maxPoolPlaneMask returns the argmax mask of a max pooling of the plane
// x, windows clipped to it, with the scalar row kernel.
func maxPoolPlaneMask(x []float32, height, width, outH, outW, k, s int) []int32 {
	mask := make([]int32, outH*outW)
	y := make([]float32, 1)
	for ph := range outH {
		for pw := range outW {
			h0, w0 := ph*s, pw*s
			h1, w1 := min(h0+k, height), min(w0+k, width)
			c := h0*width + w0
			maxPoolRowGo(y, mask[ph*outW+pw:], x[c:], 1, h1-h0, width, w1-w0, 1, int32(c))
		}
	}
	return mask
}

// TestMaxPoolBackwardPlane checks the plane gradient bit for bit against
// the scalar loop over the outputs: planes of odd and even sizes, outputs
// rounded up (the last window clipped) and down, masks of a forward pass
// over many ties and masks drawn at random in each window (with −1),
// gradients of mixed magnitudes (so that another order of additions
// shows) and of both signed zeros.
func TestMaxPoolBackwardPlane(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	forEachImpl(t, func(t *testing.T) {
		for _, k := range []struct{ k, s int }{{3, 2}, {2, 2}, {3, 1}} {
			for _, height := range []int{1, 2, 3, 4, 5, 7, 8, 13, 16, 32, 33} {
				for _, width := range []int{1, 2, 3, 4, 5, 6, 9, 15, 16, 17, 27, 31, 32, 33, 34, 35, 55, 64, 66, 67} {
					for _, outH := range poolPlaneSizes(height, k.k, k.s) {
						for _, outW := range poolPlaneSizes(width, k.k, k.s) {
							rng := newRand(uint64(height*1000 + width))
							x := make([]float32, height*width)
							for i := range x {
								x[i] = float32(rng.IntN(3))
							}
							masks := [][]int32{maxPoolPlaneMask(x, height, width, outH, outW, k.k, k.s), make([]int32, outH*outW)}
							for ph := range outH {
								for pw := range outW {
									h0, w0 := ph*k.s, pw*k.s
									h1, w1 := min(h0+k.k, height), min(w0+k.k, width)
									m := int32((h0+rng.IntN(h1-h0))*width + w0 + rng.IntN(w1-w0))
									if rng.IntN(8) == 0 {
										m = -1
									}
									masks[1][ph*outW+pw] = m
								}
							}
							dy := make([]float32, outH*outW)
							for i := range dy {
								switch rng.IntN(6) {
								case 0:
									dy[i] = negZero
								case 1:
									dy[i] = 1e8
								case 2:
									dy[i] = -1e8
								default:
									dy[i] = 2*rng.Float32() - 1
								}
							}
							for j, mask := range masks {
								want := make([]float32, height*width)
								maxPoolBackwardGo(want, dy, mask)
								got := randSlice(rng, height*width+3)
								tail := append([]float32(nil), got[height*width:]...)
								MaxPoolBackwardPlane(got, dy, mask, height, width, outH, outW, k.k, k.k, k.s, k.s)
								what := fmt.Sprintf("%d×%d s%d, %d×%d -> %d×%d, mask %d", k.k, k.k, k.s, height, width, outH, outW, j)
								checkBits(t, what, got[:height*width], want)
								checkBits(t, what+" past the plane", got[height*width:], tail)
							}
						}
					}
				}
			}
		}
	})
}

// TestMaxPoolPlane checks the plane pooling bit for bit (values and
// indexes) against the scalar row kernel window by window: planes of odd
// and even sizes, outputs rounded up (the last windows clipped) and down,
// inputs with many ties, signed zeros, −Inf, −MaxFloat32 and NaN.
func TestMaxPoolPlane(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	special := []float32{negZero, 0, float32(math.Inf(-1)), -math.MaxFloat32, float32(math.NaN()), float32(math.Inf(1))}
	forEachImpl(t, func(t *testing.T) {
		for _, k := range []struct{ k, s int }{{3, 2}, {2, 2}, {3, 1}} {
			for _, height := range []int{1, 2, 3, 4, 5, 7, 8, 13, 16, 32, 33} {
				for _, width := range []int{1, 2, 3, 4, 5, 6, 9, 15, 16, 17, 18, 19, 27, 31, 32, 33, 34, 35, 36, 55, 64, 66, 67} {
					for _, outH := range poolPlaneSizes(height, k.k, k.s) {
						for _, outW := range poolPlaneSizes(width, k.k, k.s) {
							for trial := range 3 {
								rng := newRand(uint64(height*1000 + width*10 + trial))
								x := make([]float32, height*width+5)
								for i := range x {
									switch {
									case trial == 1 && rng.IntN(3) == 0:
										x[i] = special[rng.IntN(len(special))]
									case trial == 2:
										x[i] = special[rng.IntN(4)]
									default:
										x[i] = float32(rng.IntN(3)) - 1
									}
								}
								wantM := maxPoolPlaneMask(x, height, width, outH, outW, k.k, k.s)
								want := make([]float32, outH*outW)
								for i, m := range wantM {
									if m < 0 {
										want[i] = -math.MaxFloat32
									} else {
										want[i] = x[m]
									}
								}
								got, gotM := randSlice(rng, outH*outW+3), make([]int32, outH*outW+3)
								tail := append([]float32(nil), got[outH*outW:]...)
								MaxPoolPlane(got, gotM, x, height, width, outH, outW, k.k, k.k, k.s, k.s)
								what := fmt.Sprintf("%d×%d s%d, %d×%d -> %d×%d, trial %d", k.k, k.k, k.s, height, width, outH, outW, trial)
								checkBits(t, what, got[:outH*outW], want)
								checkBits(t, what+" past the outputs", got[outH*outW:], tail)
								for i := range wantM {
									if gotM[i] != wantM[i] {
										t.Fatalf("%s: mask[%d] = %d, want %d", what, i, gotM[i], wantM[i])
									}
								}
								if gotM[outH*outW] != 0 {
									t.Fatalf("%s: mask written past the outputs", what)
								}
							}
						}
					}
				}
			}
		}
	})
}

// avePlaneRef is the average pooling of a plane without padding, window
// by window with the scalar row kernel.
func avePlaneRef(x []float32, height, width, outH, outW, k, s int) []float32 {
	y := make([]float32, outH*outW)
	for ph := range outH {
		for pw := range outW {
			h0, w0 := ph*s, pw*s
			h1, w1 := min(h0+k, height), min(w0+k, width)
			avePoolRowGo(y[ph*outW+pw:], x[h0*width+w0:], 1, h1-h0, width, w1-w0, 1, float32((h1-h0)*(w1-w0)))
		}
	}
	return y
}

// aveBackwardRef is the gradient of avePlaneRef in the order of Caffe's
// loop over the outputs grouped by output row: each output row spread
// along a row of its own (from zero, in the order of the outputs), then
// each plane row the first covering spread row plus the others in order.
func aveBackwardRef(dy []float32, height, width, outH, outW, k, s int) []float32 {
	spread := make([]float32, outH*width)
	for ph := range outH {
		rows := min(ph*s+k, height) - ph*s
		for pw := range outW {
			w0, w1 := pw*s, min(pw*s+k, width)
			v := dy[ph*outW+pw] / float32(rows*(w1-w0))
			for c := w0; c < w1; c++ {
				spread[ph*width+c] += v
			}
		}
	}
	dx := make([]float32, height*width)
	for h := range height {
		first := true
		for ph := range outH {
			if h < ph*s || h >= min(ph*s+k, height) {
				continue
			}
			for c := range width {
				if first {
					dx[h*width+c] = spread[ph*width+c]
				} else {
					dx[h*width+c] += spread[ph*width+c]
				}
			}
			first = false
		}
	}
	return dx
}

// TestAvePoolPlane checks the plane average pooling and its gradient bit
// for bit against the window-by-window and spread-row references: planes
// of odd and even sizes, outputs rounded up (the last windows clipped,
// their divisors smaller) and down, values of mixed magnitudes (so that
// another order of additions shows) and signed zeros.
func TestAvePoolPlane(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	forEachImpl(t, func(t *testing.T) {
		for _, k := range []struct{ k, s int }{{3, 2}, {2, 2}, {3, 1}} {
			for _, height := range []int{1, 2, 3, 4, 5, 7, 8, 13, 16, 32, 33} {
				for _, width := range []int{1, 2, 3, 4, 5, 6, 9, 15, 16, 17, 18, 19, 27, 31, 32, 33, 34, 35, 36, 55, 64, 66, 67} {
					for _, outH := range poolPlaneSizes(height, k.k, k.s) {
						for _, outW := range poolPlaneSizes(width, k.k, k.s) {
							rng := newRand(uint64(height*1000 + width))
							mixed := func(n int) []float32 {
								v := make([]float32, n)
								for i := range v {
									switch rng.IntN(6) {
									case 0:
										v[i] = negZero
									case 1:
										v[i] = 1e8
									case 2:
										v[i] = -1e8
									default:
										v[i] = 2*rng.Float32() - 1
									}
								}
								return v
							}
							what := fmt.Sprintf("%d×%d s%d, %d×%d -> %d×%d", k.k, k.k, k.s, height, width, outH, outW)
							x := mixed(height * width)
							got := randSlice(rng, outH*outW+3)
							tail := append([]float32(nil), got[outH*outW:]...)
							AvePoolPlane(got, x, height, width, outH, outW, k.k, k.k, k.s, k.s)
							checkBits(t, what, got[:outH*outW], avePlaneRef(x, height, width, outH, outW, k.k, k.s))
							checkBits(t, what+" past the outputs", got[outH*outW:], tail)

							dy := mixed(outH * outW)
							gotDx := randSlice(rng, height*width+3)
							tail = append([]float32(nil), gotDx[height*width:]...)
							AvePoolBackwardPlane(gotDx, dy, height, width, outH, outW, k.k, k.k, k.s, k.s)
							checkBits(t, what+" gradient", gotDx[:height*width], aveBackwardRef(dy, height, width, outH, outW, k.k, k.s))
							checkBits(t, what+" gradient past the plane", gotDx[height*width:], tail)
						}
					}
				}
			}
		}
	})
}

// TestAvePoolPlanes checks the average pooling of runs of planes in one
// call and its gradient bit for bit against the references plane by
// plane, the slices past the planes untouched.
func TestAvePoolPlanes(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, k := range []struct{ k, s int }{{3, 2}, {2, 2}} {
			for _, planes := range []int{0, 1, 3, 4, 5, 9} {
				for _, height := range []int{3, 8, 13, 16, 33} {
					for _, width := range []int{3, 8, 9, 16, 17, 32, 33, 55} {
						for _, outH := range poolPlaneSizes(height, k.k, k.s) {
							for _, outW := range poolPlaneSizes(width, k.k, k.s) {
								what := fmt.Sprintf("%d×%d s%d, %d planes %d×%d -> %d×%d", k.k, k.k, k.s, planes, height, width, outH, outW)
								rng := newRand(uint64(planes*100000 + height*1000 + width))
								hw, o := height*width, outH*outW
								x := randSlice(rng, planes*hw)
								want := make([]float32, 0, planes*o)
								for p := range planes {
									want = append(want, avePlaneRef(x[p*hw:(p+1)*hw], height, width, outH, outW, k.k, k.s)...)
								}
								got := randSlice(rng, planes*o+3)
								tail := append([]float32(nil), got[planes*o:]...)
								AvePoolPlanes(got, x, planes, height, width, outH, outW, k.k, k.k, k.s, k.s)
								checkBits(t, what, got[:planes*o], want)
								checkBits(t, what+" past the outputs", got[planes*o:], tail)

								dy := randSlice(rng, planes*o)
								want = want[:0]
								for p := range planes {
									want = append(want, aveBackwardRef(dy[p*o:(p+1)*o], height, width, outH, outW, k.k, k.s)...)
								}
								got = randSlice(rng, planes*hw+3)
								tail = append([]float32(nil), got[planes*hw:]...)
								AvePoolBackwardPlanes(got, dy, planes, height, width, outH, outW, k.k, k.k, k.s, k.s)
								checkBits(t, what+" gradient", got[:planes*hw], want)
								checkBits(t, what+" gradient past the planes", got[planes*hw:], tail)
							}
						}
					}
				}
			}
		}
	})
	expectPanic(t, "-1 planes", func() { AvePoolPlanes(nil, nil, -1, 2, 2, 1, 1, 2, 2, 2, 2) })
	expectPanic(t, "len(x)", func() { AvePoolPlanes(make([]float32, 2), make([]float32, 7), 2, 2, 2, 1, 1, 2, 2, 2, 2) })
	expectPanic(t, "len(dy)", func() {
		AvePoolBackwardPlanes(make([]float32, 8), make([]float32, 1), 2, 2, 2, 1, 1, 2, 2, 2, 2)
	})
}

// TestMaxPoolPlanes checks the pooling of runs of planes in one call and
// its gradient bit for bit against the scalar references plane by plane:
// every shape of the plane kernels, one plane and several (and none), the
// slices past the planes untouched.
func TestMaxPoolPlanes(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	special := []float32{negZero, 0, float32(math.Inf(-1)), -math.MaxFloat32, float32(math.NaN())}
	forEachImpl(t, func(t *testing.T) {
		for _, k := range []struct{ k, s int }{{2, 2}, {3, 2}, {3, 1}} {
			for _, planes := range []int{0, 1, 3, 7} {
				for _, height := range []int{1, 2, 3, 8, 9, 12, 16, 24, 25} {
					for _, width := range []int{1, 2, 3, 8, 9, 17, 24, 25, 32, 33, 34, 40, 64} {
						for _, outH := range poolPlaneSizes(height, k.k, k.s) {
							for _, outW := range poolPlaneSizes(width, k.k, k.s) {
								what := fmt.Sprintf("%d×%d s%d, %d planes %d×%d -> %d×%d", k.k, k.k, k.s, planes, height, width, outH, outW)
								rng := newRand(uint64(planes*100000 + height*1000 + width))
								hw, o := height*width, outH*outW
								x := make([]float32, planes*hw)
								for i := range x {
									if rng.IntN(4) == 0 {
										x[i] = special[rng.IntN(len(special))]
									} else {
										x[i] = float32(rng.IntN(3)) - 1
									}
								}
								wantY, wantM := make([]float32, planes*o), make([]int32, planes*o)
								for p := range planes {
									m := maxPoolPlaneMask(x[p*hw:(p+1)*hw], height, width, outH, outW, k.k, k.s)
									copy(wantM[p*o:], m)
									for i, j := range m {
										if j < 0 {
											wantY[p*o+i] = -math.MaxFloat32
										} else {
											wantY[p*o+i] = x[p*hw+int(j)]
										}
									}
								}
								gotY, gotM := randSlice(rng, planes*o+3), make([]int32, planes*o+3)
								tail := append([]float32(nil), gotY[planes*o:]...)
								MaxPoolPlanes(gotY, gotM, x, planes, height, width, outH, outW, k.k, k.k, k.s, k.s)
								checkBits(t, what, gotY[:planes*o], wantY)
								checkBits(t, what+" past the outputs", gotY[planes*o:], tail)
								for i := range wantM {
									if gotM[i] != wantM[i] {
										t.Fatalf("%s: mask[%d] = %d, want %d", what, i, gotM[i], wantM[i])
									}
								}
								if gotM[planes*o] != 0 {
									t.Fatalf("%s: mask written past the outputs", what)
								}

								dy := randSlice(rng, planes*o)
								for i := range dy {
									if rng.IntN(5) == 0 {
										dy[i] = negZero
									}
								}
								want := make([]float32, planes*hw)
								for p := range planes {
									maxPoolBackwardGo(want[p*hw:(p+1)*hw], dy[p*o:(p+1)*o], wantM[p*o:(p+1)*o])
								}
								got := randSlice(rng, planes*hw+3)
								tail = append([]float32(nil), got[planes*hw:]...)
								MaxPoolBackwardPlanes(got, dy, gotM, planes, height, width, outH, outW, k.k, k.k, k.s, k.s)
								checkBits(t, what+" gradient", got[:planes*hw], want)
								checkBits(t, what+" gradient past the planes", got[planes*hw:], tail)
								// The streaming variant, on a dx aligned to a
								// cache line (non-temporal stores where the
								// width allows them) and on one that is not.
								for _, shift := range []int{0, 1} {
									got := alignLine(make([]float32, planes*hw+3+16+shift))[shift:][:planes*hw+3]
									copy(got, randSlice(rng, len(got)))
									tail := append([]float32(nil), got[planes*hw:]...)
									MaxPoolBackwardPlanesStream(got, dy, gotM, planes, height, width, outH, outW, k.k, k.k, k.s, k.s)
									what := fmt.Sprintf("%s streamed (dx shifted %d)", what, shift)
									checkBits(t, what+" gradient", got[:planes*hw], want)
									checkBits(t, what+" gradient past the planes", got[planes*hw:], tail)
								}
							}
						}
					}
				}
			}
		}
	})
	expectPanic(t, "-1 planes", func() { MaxPoolPlanes(nil, nil, nil, -1, 2, 2, 1, 1, 2, 2, 2, 2) })
	expectPanic(t, "len(x)", func() {
		MaxPoolPlanes(make([]float32, 2), make([]int32, 2), make([]float32, 7), 2, 2, 2, 1, 1, 2, 2, 2, 2)
	})
	expectPanic(t, "len(mask)", func() {
		MaxPoolBackwardPlanes(make([]float32, 8), make([]float32, 2), make([]int32, 1), 2, 2, 2, 1, 1, 2, 2, 2, 2)
	})
}
