package kernel

import (
	"fmt"
	"slices"
	"testing"
)

// directImpls returns the portable direct kernels and those of every
// implementation this CPU runs.
func directImpls() []struct {
	name string
	k    *directKernels
} {
	impls := []struct {
		name string
		k    *directKernels
	}{{"go-reference", goDirect}}
	for _, name := range Implementations() {
		for _, im := range available() {
			if im.name == name && im.direct != nil {
				impls = append(impls, struct {
					name string
					k    *directKernels
				}{name, im.direct})
			}
		}
	}
	return impls
}

// TestDirectTail checks a DirectTail's three passes against the
// definition, for every implementation, geometry and number of images
// of a last block, and that a plan holding more images than a block's
// computes a smaller block the same, bit for bit, as its own plan.
func TestDirectTail(t *testing.T) {
	geoms := append(slices.Clone(directGeoms),
		directGeom{name: "cifar-conv2", c: 32, h: 16, w: 16, m: 32, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
		directGeom{name: "cifar-conv3", c: 32, h: 8, w: 8, m: 64, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
		directGeom{name: "narrow", c: 3, h: 4, w: 2, m: 5, g: 1, kh: 3, kw: 2, p: 2, pw: 1})
	for _, im := range directImpls() {
		L := im.k.lanes
		for _, g := range geoms {
			if im.k == goDirect && g.c*g.m >= 1024 {
				continue // CIFAR-10's layers: slow in Go, the others cover it
			}
			// One image (a strip per lane), three (in four slots) and
			// five (in eight), and half the lanes.
			ns := []int{1, 3, L / 2}
			if L/2 > 5 {
				ns = []int{1, 3, 5, L / 2}
			}
			for _, n := range ns {
				t.Run(fmt.Sprintf("%s/%s/n=%d", im.name, g.name, n), func(t *testing.T) {
					g.n = n
					rng := newRand(uint64(11 + n))
					oh, ow := g.h+2*g.p-g.kh+1, g.w+2*g.pw-g.kw+1
					x := randSlice(rng, n*g.c*g.h*g.w)
					w := randSlice(rng, g.m*g.c/g.g*g.kh*g.kw)
					bias := randSlice(rng, g.m)
					dy := randSlice(rng, n*g.m*oh*ow)
					d := newDirectConv(im.k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
					run := func(images int) (y, dx, dw []float32) {
						tl := d.NewTail(images)
						if tl == nil || tl.Images() < n {
							t.Fatalf("NewTail(%d) = %v", images, tl)
						}
						d.PackForward(w)
						d.PackBackward(w)
						y = make([]float32, n*g.m*oh*ow)
						dx = make([]float32, n*g.c*g.h*g.w)
						dw = make([]float32, len(w))
						for i := range dw {
							dw[i] = 1
						}
						// Twice, so that the second run shows what the first
						// left in the buffers does not count.
						for range 2 {
							tl.Forward(x, n, y, bias)
							tl.LoadGrad(dy, n)
							tl.BackwardData(dx, n)
						}
						tl.WeightGrad(x, n, dw)
						return y, dx, dw
					}
					y, dx, dw := run(n)
					wy, wdx, wdw := naiveConv(g, x, w, bias, dy)
					for i := range wdw {
						wdw[i]++
					}
					checkClose(t, "y", y, wy, 1e-5)
					checkClose(t, "dx", dx, wdx, 1e-5)
					checkClose(t, "dw", dw, wdw, 1e-5)
					if tl := d.NewTail(L / 2); tl.Images() > n {
						y2, dx2, dw2 := run(L / 2)
						if !slices.Equal(y, y2) || !slices.Equal(dx, dx2) || !slices.Equal(dw, dw2) {
							// Not the same order: a wider plan has other strips.
							checkClose(t, "y (wide plan)", y2, wy, 1e-5)
							checkClose(t, "dx (wide plan)", dx2, wdx, 1e-5)
							checkClose(t, "dw (wide plan)", dw2, wdw, 1e-5)
						}
					}
				})
			}
		}
	}
}

// TestDirectTailBadInput checks the panics of a DirectTail's misuse and
// that NewTail refuses blocks of more than half the lanes.
func TestDirectTailBadInput(t *testing.T) {
	d := newDirectConv(goDirect, 2, 5, 5, 3, 1, 3, 3, 1, 1)
	if tl := d.NewTail(0); tl != nil {
		t.Error("NewTail(0) made a plan")
	}
	if tl := d.NewTail(d.Lanes()/2 + 1); tl != nil {
		t.Error("NewTail of more than half the lanes made a plan")
	}
	tl := d.NewTail(3)
	if tl.Images() != 4 {
		t.Errorf("NewTail(3).Images() = %d, want 4 (a divisor of the lanes)", tl.Images())
	}
	x, y := make([]float32, 3*2*25), make([]float32, 3*3*25)
	expectPanic(t, "5 images, want 1 to 4", func() { tl.Forward(make([]float32, 5*50), 5, make([]float32, 5*75), nil) })
	expectPanic(t, "slice 1 holds", func() { tl.Forward(x, 3, y[:10], nil) })
	expectPanic(t, "LoadGrad first", func() { tl.BackwardData(x, 3) })
	tl.LoadGrad(y, 3)
	expectPanic(t, "gradient of 3 images, not 2", func() { tl.WeightGrad(x, 2, make([]float32, 54)) })
}
