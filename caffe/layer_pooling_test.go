package caffe

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
)

func seq(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(i + 1)
	}
	return s
}

func TestLayerPoolingForward(t *testing.T) {
	cases := []struct {
		name  string
		param string
		in    []int
		x     []float32
		shape []int
		want  []float32
		mask  []float32 // MAX with a second top
	}{
		{
			name: "max-first-wins", param: `pool: MAX kernel_size: 2 stride: 2`,
			in: []int{1, 1, 2, 4}, x: []float32{5, 5, -1, -3, 2, 5, -2, -1},
			shape: []int{1, 1, 1, 2}, want: []float32{5, -1}, mask: []float32{0, 2},
		},
		{
			name: "max-pad-ignores-padding", param: `pool: MAX kernel_size: 2 stride: 2 pad: 1`,
			in: []int{1, 1, 2, 2}, x: []float32{-4, -3, -2, -1},
			shape: []int{1, 1, 2, 2}, want: []float32{-4, -3, -2, -1}, mask: []float32{0, 1, 2, 3},
		},
		{
			name: "max-ceil", param: `pool: MAX kernel_size: 3 stride: 2`,
			in: []int{1, 1, 4, 4}, x: seq(16),
			shape: []int{1, 1, 2, 2}, want: []float32{11, 12, 15, 16}, mask: []float32{10, 11, 14, 15},
		},
		{
			name: "ave-ceil-divisor", param: `pool: AVE kernel_size: 3 stride: 2`,
			in: []int{1, 1, 4, 4}, x: seq(16),
			shape: []int{1, 1, 2, 2}, want: []float32{6, 7.5, 12, 13.5},
		},
		{
			name: "ave-floor", param: `pool: AVE kernel_size: 3 stride: 2 round_mode: FLOOR`,
			in: []int{1, 1, 4, 4}, x: seq(16),
			shape: []int{1, 1, 1, 1}, want: []float32{6},
		},
		{
			name: "ave-pad-counts-padding", param: `pool: AVE kernel_size: 3 stride: 2 pad: 1`,
			in: []int{1, 1, 3, 3}, x: seq(9),
			shape: []int{1, 1, 2, 2}, want: []float32{12.0 / 9, 16.0 / 9, 24.0 / 9, 28.0 / 9},
		},
		{
			name: "global-max", param: `pool: MAX global_pooling: true`,
			in: []int{1, 2, 2, 3}, x: []float32{1, 7, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6},
			shape: []int{1, 2, 1, 1}, want: []float32{7, -1}, mask: []float32{1, 0},
		},
		{
			name: "global-ave", param: `pool: AVE global_pooling: true`,
			in: []int{2, 1, 1, 4}, x: []float32{1, 2, 3, 4, -1, -1, -1, -1},
			shape: []int{2, 1, 1, 1}, want: []float32{2.5, -1},
		},
		{
			name: "rect-kernel", param: `pool: MAX kernel_h: 1 kernel_w: 2 stride_h: 1 stride_w: 2`,
			in: []int{1, 1, 2, 4}, x: []float32{1, 2, 4, 3, 8, 7, 5, 6},
			shape: []int{1, 1, 2, 2}, want: []float32{2, 4, 8, 6}, mask: []float32{1, 2, 4, 7},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := blobOf(c.in, c.x...)
			top := blobs(NewBlob())
			if c.mask != nil {
				top = append(top, NewBlob())
			}
			l := setupLayer(t, `type: "Pooling" pooling_param { `+c.param+` }`, nil, blobs(x), top)
			if err := l.Forward(blobs(x), top); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(top[0].Shape()) != fmt.Sprint(c.shape) {
				t.Fatalf("shape %v, want %v", top[0].Shape(), c.shape)
			}
			if !closeSlices(top[0].DataSlice(), c.want, 1e-6) {
				t.Errorf("output %v, want %v", top[0].DataSlice(), c.want)
			}
			if c.mask != nil && !closeSlices(top[1].DataSlice(), c.mask, 0) {
				t.Errorf("mask %v, want %v", top[1].DataSlice(), c.mask)
			}
		})
	}
}

func TestLayerPoolingBackward(t *testing.T) {
	// MAX routes each gradient to the first maximum; AVE spreads it by the
	// divisor (here 9 everywhere: padding counts).
	x := blobOf([]int{1, 1, 2, 4}, 5, 5, -1, -3, 2, 5, -2, -1)
	y := NewBlob()
	l := setupLayer(t, `type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }`, nil, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	copy(y.DiffSlice(), []float32{10, 20})
	l.Backward(blobs(y), []bool{true}, blobs(x))
	if want := []float32{10, 0, 20, 0, 0, 0, 0, 0}; !closeSlices(x.DiffSlice(), want, 0) {
		t.Errorf("MAX gradient %v, want %v", x.DiffSlice(), want)
	}

	x = blobOf([]int{1, 1, 3, 3}, seq(9)...)
	l = setupLayer(t, `type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 }`, nil, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	copy(y.DiffSlice(), []float32{9, 18, 27, 36})
	l.Backward(blobs(y), []bool{true}, blobs(x))
	if want := []float32{1, 3, 2, 4, 10, 6, 3, 7, 4}; !closeSlices(x.DiffSlice(), want, 1e-6) {
		t.Errorf("AVE gradient %v, want %v", x.DiffSlice(), want)
	}
}

func TestLayerPoolingOutputSize(t *testing.T) {
	cases := []struct {
		param string
		in    int
		out   int
	}{
		{`kernel_size: 2 stride: 2`, 24, 12}, // LeNet
		{`kernel_size: 3 stride: 2`, 32, 16}, // CIFAR-10 quick: ceil
		{`kernel_size: 3 stride: 2 round_mode: FLOOR`, 32, 15},
		{`kernel_size: 3 stride: 2`, 16, 8},
		{`kernel_size: 3 stride: 2`, 8, 4},
		{`kernel_size: 2 stride: 2 pad: 1`, 4, 3},
		{`kernel_size: 2 stride: 2 pad: 1`, 5, 3}, // last window would start in the padding
		{`kernel_size: 3 stride: 2 pad: 1`, 7, 4},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.param, c.in), func(t *testing.T) {
			y := NewBlob()
			setupLayer(t, `type: "Pooling" pooling_param { `+c.param+` }`, nil, blobs(NewBlob(1, 1, c.in, c.in)), blobs(y))
			if y.Dim(2) != c.out || y.Dim(3) != c.out {
				t.Errorf("output %v, want %d×%d", y.Shape(), c.out, c.out)
			}
		})
	}
}

func TestLayerPoolingErrors(t *testing.T) {
	cases := []struct {
		name, param string
		in          []int
		tops        int
		want        string
	}{
		{"stochastic", `pool: STOCHASTIC kernel_size: 2`, []int{1, 1, 4, 4}, 1, "STOCHASTIC"},
		{"global-kernel", `global_pooling: true kernel_size: 2`, []int{1, 1, 4, 4}, 1, "global_pooling"},
		{"no-kernel", `pool: MAX`, []int{1, 1, 4, 4}, 1, "kernel_size"},
		{"kernel-twice", `kernel_size: 2 kernel_h: 2 kernel_w: 2`, []int{1, 1, 4, 4}, 1, "not both"},
		{"pad-too-big", `kernel_size: 2 pad: 2`, []int{1, 1, 4, 4}, 1, "smaller than the kernel"},
		{"3d", `kernel_size: 2`, []int{1, 4, 4}, 1, "4 axes"},
		{"ave-mask", `pool: AVE kernel_size: 2`, []int{1, 1, 4, 4}, 2, "top"},
		{"too-small", `kernel_size: 5`, []int{1, 1, 4, 4}, 1, "gives output size 0×0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := NewLayer(parseLayerDef(t, `type: "Pooling" pooling_param { `+c.param+` }`), nil)
			if err == nil {
				top := make([]*Blob, c.tops)
				for i := range top {
					top[i] = NewBlob()
				}
				err = l.Setup(blobs(NewBlob(c.in...)), top)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestLayerPoolingAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, p := range []string{`pool: MAX kernel_size: 3 stride: 2`, `pool: AVE kernel_size: 3 stride: 2 pad: 1`} {
		x, y := randBlob(1, -1, 1, 4, 8, 32, 32), NewBlob()
		l := setupLayer(t, `type: "Pooling" pooling_param { `+p+` }`, &LayerEnv{Threads: 2}, blobs(x), blobs(y))
		bs, ts, down := blobs(x), blobs(y), []bool{true}
		allocs, sites := alloctest.Count(5, func() {
			if err := l.Reshape(bs, ts); err != nil {
				t.Fatal(err)
			}
			if err := l.Forward(bs, ts); err != nil {
				t.Fatal(err)
			}
			l.Backward(ts, down, bs)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Reshape+Forward+Backward, want 0:%s", p, allocs, alloctest.String(sites))
		}
	}
}

// TestLayerPoolingThreads checks that sharing the planes among threads
// gives the single-threaded results.
func TestLayerPoolingThreads(t *testing.T) {
	for _, p := range []string{`pool: MAX kernel_size: 3 stride: 2`, `pool: AVE kernel_size: 3 stride: 2 pad: 1`} {
		x := randBlob(1, -1, 1, 8, 12, 32, 32) // enough values for three workers
		var outs, grads [][]float32
		for _, threads := range []int{1, 2, 3} {
			y := NewBlob()
			l := setupLayer(t, `type: "Pooling" pooling_param { `+p+` }`, &LayerEnv{Threads: threads}, blobs(x), blobs(y))
			if err := l.Forward(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
			l.Backward(blobs(y), []bool{true}, blobs(x))
			outs = append(outs, append([]float32(nil), y.DataSlice()...))
			grads = append(grads, append([]float32(nil), x.DiffSlice()...))
		}
		for i := 1; i < len(outs); i++ {
			if !closeSlices(outs[i], outs[0], 0) || !closeSlices(grads[i], grads[0], 0) {
				t.Errorf("%s: %d threads differ from one", p, i+1)
			}
		}
	}
}

// directPool runs Caffe's pooling loops for one geometry: the outputs,
// the MAX indexes, and the bottom gradient for the top gradient dy.
func directPool(x, dy []float32, ave bool, n, c, h, w, kh, kw, ph, pw, sh, sw, oh, ow int) (y []float32, mask []int32, dx []float32) {
	y = make([]float32, n*c*oh*ow)
	mask = make([]int32, len(y))
	dx = make([]float32, len(x))
	for p := range n * c {
		xp, dxp := x[p*h*w:(p+1)*h*w], dx[p*h*w:(p+1)*h*w]
		for oy := range oh {
			for ox := range ow {
				o := p*oh*ow + oy*ow + ox
				hs, ws := oy*sh-ph, ox*sw-pw
				he, we := min(hs+kh, h+ph), min(ws+kw, w+pw)
				size := float32((he - hs) * (we - ws))
				hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
				if ave {
					var s float32
					for yy := hs; yy < he; yy++ {
						for xx := ws; xx < we; xx++ {
							s += xp[yy*w+xx]
						}
					}
					y[o] = s / size
					for yy := hs; yy < he; yy++ {
						for xx := ws; xx < we; xx++ {
							dxp[yy*w+xx] += dy[o] / size
						}
					}
					continue
				}
				best, idx := float32(-math.MaxFloat32), -1
				for yy := hs; yy < he; yy++ {
					for xx := ws; xx < we; xx++ {
						if v := xp[yy*w+xx]; v > best {
							best, idx = v, yy*w+xx
						}
					}
				}
				y[o], mask[o] = best, int32(idx)
				if idx >= 0 {
					dxp[idx] += dy[o]
				}
			}
		}
	}
	return y, mask, dx
}

// TestLayerPoolingMatchesDirect compares MAX and AVE pooling, forward and
// backward, with Caffe's loops over geometries with padding, strides of
// 1, 2 and 3, ceil and floor rounding, and ties (many equal values, as
// after a ReLU).
func TestLayerPoolingMatchesDirect(t *testing.T) {
	geoms := []struct {
		name                   string
		h, w, kh, kw, p, s, s2 int
		floor                  bool
	}{
		{"lenet-2x2s2", 24, 24, 2, 2, 0, 2, 2, false},
		{"cifar-3x3s2-ceil", 32, 32, 3, 3, 0, 2, 2, false},
		{"cifar-3x3s2-small", 8, 8, 3, 3, 0, 2, 2, false},
		{"alexnet-3x3s2", 27, 27, 3, 3, 0, 2, 2, false},
		{"3x3s1-pad1", 9, 11, 3, 3, 1, 1, 1, false},
		{"3x3s2-pad1-floor", 13, 10, 3, 3, 1, 2, 2, true},
		{"rect-s3", 10, 40, 2, 4, 1, 3, 3, false},
		{"rect-mixed-strides", 11, 37, 3, 2, 0, 1, 2, false},
		{"wide-row", 5, 70, 3, 3, 0, 2, 2, false},
		{"cifar-3x3s2-16", 16, 16, 3, 3, 0, 2, 2, false},
		{"3x3s2-floor-even", 16, 34, 3, 3, 0, 2, 2, true},
		{"3x3s2-ceil-odd-even", 7, 36, 3, 3, 0, 2, 2, false},
	}
	for _, g := range geoms {
		for _, method := range []string{"MAX", "AVE"} {
			t.Run(g.name+"/"+method, func(t *testing.T) {
				param := fmt.Sprintf(`pool: %s kernel_h: %d kernel_w: %d pad: %d stride_h: %d stride_w: %d`,
					method, g.kh, g.kw, g.p, g.s, g.s2)
				if g.floor {
					param += " round_mode: FLOOR"
				}
				const n, c = 2, 3
				x := randBlob(3, -1, 1, n, c, g.h, g.w)
				for i, v := range x.DataSlice() {
					if v < -0.3 {
						x.DataSlice()[i] = 0 // ties
					}
				}
				tops := blobs(NewBlob(), NewBlob())
				if method == "AVE" {
					tops = tops[:1]
				}
				l := setupLayer(t, `type: "Pooling" pooling_param { `+param+` }`, nil, blobs(x), tops)
				if err := l.Forward(blobs(x), tops); err != nil {
					t.Fatal(err)
				}
				oh, ow := tops[0].Dim(2), tops[0].Dim(3)
				dy := randBlob(4, -1, 1, tops[0].Shape()...).DataSlice()
				wantY, wantMask, wantDx := directPool(x.DataSlice(), dy, method == "AVE", n, c, g.h, g.w, g.kh, g.kw, g.p, g.p, g.s, g.s2, oh, ow)
				if i := firstDiff(tops[0].DataSlice(), wantY, 0); i >= 0 {
					t.Fatalf("forward differs at %d: got %v, want %v", i, tops[0].DataSlice()[i], wantY[i])
				}
				if method == "MAX" {
					for i, m := range tops[1].DataSlice() {
						if int32(m) != wantMask[i] {
							t.Fatalf("mask[%d] = %v, want %d", i, m, wantMask[i])
						}
					}
				}
				copy(tops[0].DiffSlice(), dy)
				l.Backward(tops, []bool{true}, blobs(x))
				// MAX routes each gradient as Caffe does; AVE adds the
				// shares of overlapping windows in another order.
				tol := 0.0
				if method == "AVE" {
					tol = 1e-6
				}
				if i := firstDiff(x.DiffSlice(), wantDx, tol); i >= 0 {
					t.Errorf("backward differs at %d: got %v, want %v", i, x.DiffSlice()[i], wantDx[i])
				}
				if method == "AVE" {
					// Exactly: the shares summed along each row of
					// outputs first, then added to the plane's rows.
					want := aveBackwardByRows(dy, n*c, g.h, g.w, g.kh, g.kw, g.p, g.s, g.s2, oh, ow)
					if i := firstDiff(x.DiffSlice(), want, 0); i >= 0 {
						t.Errorf("backward differs from the row order at %d: got %v, want %v", i, x.DiffSlice()[i], want[i])
					}
				}
			})
		}
	}
}

// aveBackwardByRows is the AVE backward pass of planes planes in the
// order the layer adds the shares: for each row of outputs, their shares
// divided by the window sizes (with the padding) summed along a row from
// zero, in the order of the outputs, and that row added to each plane row
// the windows cover.
func aveBackwardByRows(dy []float32, planes, h, w, kh, kw, p, sh, sw, oh, ow int) []float32 {
	dx := make([]float32, planes*h*w)
	r := make([]float32, w)
	for pl := range planes {
		d, g := dx[pl*h*w:(pl+1)*h*w], dy[pl*oh*ow:(pl+1)*oh*ow]
		for ph := range oh {
			hs := ph*sh - p
			he := min(hs+kh, h+p)
			clear(r)
			for pw := range ow {
				ws := pw*sw - p
				we := min(ws+kw, w+p)
				v := g[ph*ow+pw] / float32((he-hs)*(we-ws))
				for c := max(ws, 0); c < min(we, w); c++ {
					r[c] += v
				}
			}
			for y := max(hs, 0); y < min(he, h); y++ {
				for c := range w {
					d[y*w+c] += r[c]
				}
			}
		}
	}
	return dx
}

// firstDiff returns the first index where got and want differ by more
// than closeSlices allows, or -1.
func firstDiff(got, want []float32, tol float64) int {
	for i := range got {
		if !closeSlices(got[i:i+1], want[i:i+1], tol) {
			return i
		}
	}
	if len(got) != len(want) {
		return min(len(got), len(want))
	}
	return -1
}
