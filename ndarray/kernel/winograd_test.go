package kernel

import (
	"fmt"
	"math"
	"testing"
)

// winoGeoms are 3×3 geometries for TestWinograd: odd and even sizes
// (blocks moved back at the last row and column), padding 0 and 1,
// groups, batches that leave lanes empty, and channels past directKC.
var winoGeoms = []directGeom{
	{name: "13x13-pad1", n: 18, c: 24, h: 13, w: 13, m: 20, g: 1, kh: 3, kw: 3, p: 1, pw: 1},
	{name: "groups", n: 5, c: 16, h: 8, w: 9, m: 24, g: 2, kh: 3, kw: 3, p: 1, pw: 1},
	{name: "pad0-odd", n: 3, c: 8, h: 9, w: 6, m: 8, g: 1, kh: 3, kw: 3},
	{name: "small", n: 17, c: 8, h: 3, w: 4, m: 8, g: 1, kh: 3, kw: 3, p: 1, pw: 0},
	{name: "deep", n: 2, c: 300, h: 5, w: 5, m: 270, g: 1, kh: 3, kw: 3, p: 1, pw: 1},
	// F(2×2, 5×5): AlexNet's conv2 (27×27, pad 2, two groups) in small.
	{name: "5x5-odd-groups", n: 18, c: 16, h: 9, w: 9, m: 24, g: 2, kh: 5, kw: 5, p: 2, pw: 2},
	{name: "5x5-even", n: 3, c: 8, h: 8, w: 10, m: 8, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
	{name: "5x5-pad0", n: 5, c: 8, h: 9, w: 8, m: 12, g: 1, kh: 5, kw: 5, p: 0, pw: 1},
	{name: "5x5-deep", n: 2, c: 270, h: 4, w: 4, m: 40, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
}

// winoKernels reports whether k has what a plan of kernel size kh needs
// to take Winograd's transforms.
func winoKernels(k *directKernels, kh int) bool {
	if kh == 5 {
		return k.winoIn6 != nil
	}
	return k.winoIn != nil && k.winoFilter != nil
}

// TestWinograd checks Forward and BackwardData on Winograd's transforms
// against the definition, for the portable kernels and every
// implementation that has the transforms, and that the plans took them.
func TestWinograd(t *testing.T) {
	defer func(c, c5 int) { winoChannels, winoChannels5 = c, c5 }(winoChannels, winoChannels5)
	winoChannels, winoChannels5 = 8, 8
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	for name, k := range impls {
		for _, g := range winoGeoms {
			t.Run(fmt.Sprintf("%s/%s", name, g.name), func(t *testing.T) {
				if !winoKernels(k, g.kh) {
					t.Skip("no transforms for this kernel size")
				}
				d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
				if !d.Winograd() {
					t.Fatal("the plan does not take Winograd's transforms")
				}
				checkDirect(t, d, g, 11)
			})
		}
	}
}

// TestWinogradTransforms compares each implementation's transforms with
// the portable ones, bit for bit: the input and output transforms of a
// few channels of a block laid out with gaps, and the weight transform of
// blocks of kernels gathered from anywhere, plain and flipped.
func TestWinogradTransforms(t *testing.T) {
	for _, im := range available() {
		k := im.direct
		if k == nil || k.winoIn == nil {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			L, f := k.lanes, 4
			const n = 5
			rng := newRand(3)
			// Input: pixels 7 vectors apart, rows 31.
			src := randSlice(rng, (3*31+3*7+n+1)*L)
			want := make([]float32, 16*9*L)
			got := make([]float32, len(want))
			winoInGo(L)(&want[0], 9*L*f, &src[L], 7*L*f, 31*L*f, n)
			k.winoIn(&got[0], 9*L*f, &src[L], 7*L*f, 31*L*f, n)
			sameBits(t, "winoIn", got, want)
			// Output: planes 6 vectors apart, outputs pixels 8 and rows 40.
			m := randSlice(rng, 16*6*L)
			want = make([]float32, (40+8+n)*L)
			got = make([]float32, len(want))
			winoOutGo(L)(&want[0], 8*L*f, 40*L*f, &m[0], 6*L*f, n)
			k.winoOut(&got[0], 8*L*f, 40*L*f, &m[0], 6*L*f, n)
			sameBits(t, "winoOut", got, want)
			// F(2×2, 5×5): a 6×6 block, pixels 7 vectors apart, rows 45;
			// the products' 36 planes 6 vectors apart.
			src = randSlice(rng, (5*45+5*7+n+1)*L)
			want = make([]float32, 36*9*L)
			got = make([]float32, len(want))
			winoIn6Go(L)(&want[0], 9*L*f, &src[L], 7*L*f, 45*L*f, n)
			k.winoIn6(&got[0], 9*L*f, &src[L], 7*L*f, 45*L*f, n)
			sameBits(t, "winoIn6", got, want)
			m = randSlice(rng, 36*6*L)
			want = make([]float32, (40+8+n)*L)
			got = make([]float32, len(want))
			winoOut6Go(L)(&want[0], 8*L*f, 40*L*f, &m[0], 6*L*f, n)
			k.winoOut6(&got[0], 8*L*f, 40*L*f, &m[0], 6*L*f, n)
			sameBits(t, "winoOut6", got, want)
			if k.winoFilter == nil {
				return
			}
			w := randSlice(rng, 9*100)
			table := make([]int32, 32)
			for q := range table {
				table[q] = int32((q * 37 % 100) * 36)
			}
			for _, flip := range []bool{false, true} {
				_, planes := winoPlanes(40, flip)
				want = make([]float32, 16*40)
				got = make([]float32, len(want))
				winoFilterGo(&want[0], &planes[0], &w[0], &table[0], 2)
				k.winoFilter(&got[0], &planes[0], &w[0], &table[0], 2)
				sameBits(t, fmt.Sprintf("winoFilter(flip=%v)", flip), got, want)
			}
		})
	}
}

// TestDirectPoolWinograd checks the pooled forward passes and their
// backward passes on Winograd's transforms (the whole block at once,
// pooled from the interleaved output) against Forward's, bit for bit:
// NewMaxPool's plans, and NewPool's with overlapping windows (AlexNet's
// 3×3, stride 2) over odd and even outputs.
func TestDirectPoolWinograd(t *testing.T) {
	defer func(c int) { winoChannels = c }(winoChannels)
	winoChannels = 8
	check := func(t *testing.T, k *directKernels, c directGeom) {
		if d := newDirectConv(k, c.c, c.h, c.w, c.m, c.g, c.kh, c.kw, c.p, c.pw); !d.Winograd() {
			t.Fatal("the plan does not take Winograd's transforms")
		}
	}
	for _, im := range available() {
		if im.direct == nil || im.direct.winoFilter == nil {
			continue
		}
		for _, pg := range []directPoolGeom{
			{conv: directGeom{name: "12x12", n: 18, c: 8, h: 12, w: 12, m: 12, g: 1, kh: 3, kw: 3, p: 1, pw: 1}, kh: 2, kw: 2, sh: 2, sw: 2},
			{conv: directGeom{name: "groups-9x9", n: 5, c: 16, h: 9, w: 9, m: 20, g: 2, kh: 3, kw: 3, p: 1, pw: 1}, kh: 3, kw: 3, sh: 3, sw: 3},
		} {
			t.Run(fmt.Sprintf("%s/max/%s", im.name, pg.conv.name), func(t *testing.T) {
				check(t, im.direct, pg.conv)
				testDirectPool(t, im.direct, im.vec.sum, pg, "random")
			})
		}
		for _, pg := range []directPoolGeneral{
			{conv: directGeom{name: "13x13", n: 18, c: 8, h: 13, w: 13, m: 12, g: 1, kh: 3, kw: 3, p: 1, pw: 1}, kh: 3, kw: 3, sh: 2, sw: 2},
			{conv: directGeom{name: "groups-even", n: 5, c: 16, h: 12, w: 12, m: 20, g: 2, kh: 3, kw: 3, p: 1, pw: 1}, kh: 3, kw: 3, sh: 2, sw: 2},
		} {
			for _, relu := range []string{"none", "relu"} {
				t.Run(fmt.Sprintf("%s/general/%s/%s", im.name, pg.conv.name, relu), func(t *testing.T) {
					check(t, im.direct, pg.conv)
					testDirectPoolGeneral(t, im.direct, im.vec.sum, pg, false, relu, "random")
				})
			}
		}
	}
}

// wino5G is F(2×2, 5×5)'s G as a matrix (winograd.go).
var wino5G = [6][5]float64{
	{1, 0, 0, 0, 0},
	{-1.0 / 3, -1.0 / 3, -1.0 / 3, -1.0 / 3, -1.0 / 3},
	{1.0 / 3, -1.0 / 3, 1.0 / 3, -1.0 / 3, 1.0 / 3},
	{1.0 / 15, 2.0 / 15, 4.0 / 15, 8.0 / 15, 16.0 / 15},
	{-16.0 / 15, 8.0 / 15, -4.0 / 15, 2.0 / 15, -1.0 / 15},
	{0, 0, 0, 0, 1},
}

// TestWinoG5 checks the structured product winoG5 against F(2×2, 5×5)'s
// G (wino5G), and that G, Bᵀ and Aᵀ give the correlation in one dimension:
// Aᵀ[(G g) ⊙ (Bᵀ d)] = (Σ_j g_j d_{i+j}) for i = 0, 1.
func TestWinoG5(t *testing.T) {
	rng := newRand(5)
	for range 20 {
		g := randSlice(rng, 5)
		d := randSlice(rng, 6)
		var v [5]float64
		for j := range 5 {
			v[j] = float64(g[j])
		}
		var got [6]float64
		got[0], got[1], got[2], got[3], got[4], got[5] = winoG5(v[0], v[1], v[2], v[3], v[4])
		var u, bd [6]float64
		for i := range 6 {
			for j := range 5 {
				u[i] += wino5G[i][j] * v[j]
			}
			if math.Abs(got[i]-u[i]) > 1e-12 {
				t.Fatalf("winoG5 row %d = %v, want %v", i, got[i], u[i])
			}
			for j := range 6 {
				bd[i] += float64(wino5BT[i][j]) * float64(d[j])
			}
		}
		for i := range 2 {
			var y, want float64
			for k := range 6 {
				y += float64(wino5AT[i][k]) * u[k] * bd[k]
			}
			for j := range 5 {
				want += float64(g[j]) * float64(d[i+j])
			}
			if math.Abs(y-want) > 1e-9 {
				t.Fatalf("output %d = %v, want %v", i, y, want)
			}
		}
	}
}
