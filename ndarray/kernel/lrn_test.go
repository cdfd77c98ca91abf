package kernel

import (
	"fmt"
	"math"
	"testing"
)

// TestLRNKernelsMatchPrimitives checks each fused LRN kernel against the
// passes it replaces, made with the primitives of the same
// implementation, bit for bit.
func TestLRNKernelsMatchPrimitives(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range vecLengths {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				rng := newRand(uint64(n + 29))
				xin, xout, x := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
				dy, y, rin, rout := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
				sc0, acc0 := randSlice(rng, n), randSlice(rng, n)
				for i := range sc0 {
					sc0[i] = 1 + sc0[i]*sc0[i]*1e3
				}
				if n > 3 {
					xout[1], dy[2], rin[3] = 0, float32(math.Copysign(0, -1)), 0
					acc0[3] = float32(math.Copysign(0, -1))
				}
				const a = 1.7e-4
				sq, tmp := make([]float32, n), make([]float32, n)
				// The scale as the layer computed it with the primitives.
				wantSc := append([]float32(nil), sc0...)
				Mul(sq, xin, xin)
				Axpy(a, sq, wantSc)
				Mul(sq, xout, xout)
				Axpy(-a, sq, wantSc)

				sc := append(make([]float32, 0, n+1), sc0...)
				sc = append(sc, sentinel)[:n]
				LRNScale(sc, xin, xout, a)
				checkBits(t, "LRNScale", sc[:n+1], append(wantSc, sentinel))

				// β = ¾: 1/(√s·√√s), then x·pow.
				wantPow, wantY := make([]float32, n), make([]float32, n)
				Sqrt(wantPow, wantSc)
				Sqrt(tmp, wantPow)
				Mul(wantPow, wantPow, tmp)
				for i := range tmp {
					tmp[i] = 1
				}
				Div(wantPow, tmp, wantPow)
				Mul(wantY, x, wantPow)
				copy(sc, sc0)
				gotY := make([]float32, n)
				LRNForward75(gotY, sc, x, xin, xout, a)
				checkBits(t, "LRNForward75 scale", sc, wantSc)
				checkBits(t, "LRNForward75 y", gotY, wantY)

				wantR := make([]float32, n)
				Mul(wantR, dy, y)
				Div(wantR, wantR, wantSc)
				copy(sc, sc0)
				gotR := make([]float32, n)
				LRNRatio(gotR, sc, xin, xout, dy, y, a)
				checkBits(t, "LRNRatio scale", sc, wantSc)
				checkBits(t, "LRNRatio r", gotR, wantR)
				copy(sc, sc0)
				clear(gotR)
				gotPow := make([]float32, n)
				LRNRatio75(gotR, gotPow, sc, xin, xout, dy, y, a)
				checkBits(t, "LRNRatio75 scale", sc, wantSc)
				checkBits(t, "LRNRatio75 r", gotR, wantR)
				checkBits(t, "LRNRatio75 pow", gotPow, wantPow)

				const ratio = 2 * a * 0.75 / 5
				wantAcc, wantDx := append([]float32(nil), acc0...), make([]float32, n)
				Add(wantAcc, wantAcc, rin)
				Mul(wantDx, dy, wantPow)
				Mul(tmp, x, wantAcc)
				Axpy(-ratio, tmp, wantDx)
				Axpy(-1, rout, wantAcc)
				acc, gotDx := append([]float32(nil), acc0...), make([]float32, n)
				LRNBackward(gotDx, acc, rin, rout, x, dy, wantPow, ratio)
				checkBits(t, "LRNBackward dx", gotDx, wantDx)
				checkBits(t, "LRNBackward acc", acc, wantAcc)

				// Through the in-place ReLU's gradient: x with zeros of
				// both signs, and a gradient where it is zero.
				xr := append([]float32(nil), x...)
				if n > 4 {
					xr[0], xr[4] = 0, float32(math.Copysign(0, -1))
				}
				for _, slope := range []float32{0, 0.25} {
					wantAcc, wantDx = append(wantAcc[:0], acc0...), make([]float32, n)
					LRNBackward(wantDx, wantAcc, rin, rout, xr, dy, wantPow, ratio)
					ReluGrad(wantDx, wantDx, xr, slope)
					acc, gotDx = append(acc[:0], acc0...), make([]float32, n)
					LRNBackwardReLU(gotDx, acc, rin, rout, xr, dy, wantPow, ratio, slope)
					checkBits(t, fmt.Sprintf("LRNBackwardReLU slope %g dx", slope), gotDx, wantDx)
					checkBits(t, fmt.Sprintf("LRNBackwardReLU slope %g acc", slope), acc, wantAcc)
				}

				// The whole step: LRNRatio75 of the channel entering,
				// then LRNBackward(ReLU) with its ratio.
				powc := randSlice(rng, n)
				for _, relu := range []bool{false, true} {
					wsc, wr, wp := append([]float32(nil), sc0...), make([]float32, n), make([]float32, n)
					LRNRatio75(wr, wp, wsc, xin, xout, dy, y, a)
					wAcc, wDx := append([]float32(nil), acc0...), make([]float32, n)
					if relu {
						LRNBackwardReLU(wDx, wAcc, wr, rout, xr, rin, powc, ratio, 0.25)
					} else {
						LRNBackward(wDx, wAcc, wr, rout, xr, rin, powc, ratio)
					}
					gsc, gr, gp := append([]float32(nil), sc0...), make([]float32, n), make([]float32, n)
					gAcc, gDx := append([]float32(nil), acc0...), make([]float32, n)
					LRNStep75(gsc, xin, xout, dy, y, gr, gp, gAcc, rout, xr, rin, powc, gDx, a, ratio, relu, 0.25)
					for _, c := range []struct {
						name      string
						got, want []float32
					}{{"sc", gsc, wsc}, {"r", gr, wr}, {"pow", gp, wp}, {"acc", gAcc, wAcc}, {"dx", gDx, wDx}} {
						checkBits(t, fmt.Sprintf("LRNStep75 relu %v %s", relu, c.name), c.got, c.want)
					}
					// From the input, its output recomputed: LRNStep75 with
					// the output LRNForward75 gives.
					fsc, fy := append([]float32(nil), sc0...), make([]float32, n)
					LRNForward75(fy, fsc, x, xin, xout, a)
					wsc, wr, wp = append(wsc[:0], sc0...), make([]float32, n), make([]float32, n)
					wAcc, wDx = append(wAcc[:0], acc0...), make([]float32, n)
					LRNStep75(wsc, xin, xout, dy, fy, wr, wp, wAcc, rout, xr, rin, powc, wDx, a, ratio, relu, 0.25)
					gsc, gr, gp = append(gsc[:0], sc0...), make([]float32, n), make([]float32, n)
					gAcc, gDx = append(gAcc[:0], acc0...), make([]float32, n)
					LRNStep75X(gsc, xin, xout, dy, x, gr, gp, gAcc, rout, xr, rin, powc, gDx, a, ratio, relu, 0.25)
					for _, c := range []struct {
						name      string
						got, want []float32
					}{{"sc", gsc, wsc}, {"r", gr, wr}, {"pow", gp, wp}, {"acc", gAcc, wAcc}, {"dx", gDx, wDx}} {
						checkBits(t, fmt.Sprintf("LRNStep75X relu %v %s", relu, c.name), c.got, c.want)
					}
				}
			})
		}
	})
}

// TestLRNKernelsPortable checks the assembly kernels against the portable
// ones on the same inputs (within rounding: the portable code may not
// fuse the multiply-adds).
func TestLRNKernelsPortable(t *testing.T) {
	const n = 1031
	rng := newRand(7)
	xin, xout, x, dy, y := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
	sc0 := randSlice(rng, n)
	for i := range sc0 {
		sc0[i] = 1 + sc0[i]*sc0[i]
	}
	const a = 0.3
	run := func(k *lrnKernels) (sc, yy, pow, r, dx, acc []float32) {
		sc, yy, pow, r, dx = append([]float32(nil), sc0...), make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		k.forward75(yy, sc, x, xin, xout, a, -a)
		k.ratio75(r, pow, sc, xin, xout, dy, y, a, -a)
		k.ratio(r, sc, xout, xin, dy, r, a, -a)
		k.scale(sc, xout, xin, a, -a)
		acc = append([]float32(nil), y...)
		k.backward(dx, acc, r, xin, x, dy, pow, -0.01)
		return
	}
	for _, name := range Implementations() {
		prev, err := SetImplementation(name)
		if err != nil {
			t.Fatal(err)
		}
		k := lrnFor(active.vec)
		SetImplementation(prev)
		if k == goLRN {
			continue
		}
		t.Run(name, func(t *testing.T) {
			want := [][]float32{}
			sc, yy, pow, r, dx, acc := run(goLRN)
			want = append(want, sc, yy, pow, r, dx, acc)
			sc, yy, pow, r, dx, acc = run(k)
			for i, got := range [][]float32{sc, yy, pow, r, dx, acc} {
				for j := range got {
					if d := math.Abs(float64(got[j] - want[i][j])); d > 1e-6*(1+math.Abs(float64(want[i][j]))) {
						t.Fatalf("output %d, element %d: %g, portable %g", i, j, got[j], want[i][j])
					}
				}
			}
		})
	}
}

// BenchmarkLRN times the LRN kernels on one plane of AlexNet's norm1
// (55×55), which stays in the first- and second-level caches, per
// implementation: the kernels' own rate, without the passes over memory
// of a layer.
func BenchmarkLRN(b *testing.B) {
	const n = 55 * 55
	rng := newRand(3)
	xin, xout, x, dy, y := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
	sc, r, pow, dx, acc := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range sc {
		sc[i] = 1
	}
	// The plane leaving the window the one entering it, so that the scale
	// stays near 1 over the calls (as in a layer) instead of drifting by
	// a·(xin² − xout²) a call, to negative values after many.
	xout = append(xout[:0], xin...)
	for _, name := range Implementations() {
		prev, err := SetImplementation(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []struct {
			name string
			f    func()
		}{
			{"Forward75", func() { LRNForward75(y, sc, x, xin, xout, 1e-4) }},
			{"Ratio75", func() { LRNRatio75(r, pow, sc, xin, xout, dy, y, 1e-4) }},
			{"Backward", func() { LRNBackward(dx, acc, r, xin, x, dy, pow, 1e-5) }},
			{"BackwardReLU", func() { LRNBackwardReLU(dx, acc, r, xin, x, dy, pow, 1e-5, 0) }},
			{"Step75ReLU", func() { LRNStep75(sc, xin, xout, dy, y, r, pow, acc, xout, x, dy, xin, dx, 1e-4, 1e-5, true, 0) }},
		} {
			b.Run(k.name+"/"+name, func(b *testing.B) {
				k.f() // outside the timing: the first call's check of the kernels (lrnFor)
				for b.Loop() {
					k.f()
				}
				b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
		SetImplementation(prev)
	}
}
