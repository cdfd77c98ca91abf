package caffe

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/internal/alloctest"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func TestLayerConvolutionHandComputed(t *testing.T) {
	x := blobOf([]int{1, 1, 3, 3}, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	y := NewBlob()
	l := setupLayer(t, `type: "Convolution" convolution_param { num_output: 1 kernel_size: 2 }`, nil, blobs(x), blobs(y))
	copy(l.Params()[0].DataSlice(), []float32{1, 0, 0, 1})
	l.Params()[1].DataSlice()[0] = 0.5
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	if got, want := y.Shape(), []int{1, 1, 2, 2}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("shape %v, want %v", got, want)
	}
	want := []float32{6.5, 8.5, 12.5, 14.5}
	if !closeSlices(y.DataSlice(), want, 0) {
		t.Errorf("output %v, want %v", y.DataSlice(), want)
	}
	// Backward with dy = 1: dw[k] = sum of the inputs under kernel tap k.
	copy(y.DiffSlice(), []float32{1, 1, 1, 1})
	l.Backward(blobs(y), []bool{true}, blobs(x))
	if want := []float32{12, 16, 24, 28}; !closeSlices(l.Params()[0].DiffSlice(), want, 0) {
		t.Errorf("weight gradient %v, want %v", l.Params()[0].DiffSlice(), want)
	}
	if want := float32(4); l.Params()[1].DiffSlice()[0] != want {
		t.Errorf("bias gradient %v, want %v", l.Params()[1].DiffSlice()[0], want)
	}
	if want := []float32{1, 1, 0, 1, 2, 1, 0, 1, 1}; !closeSlices(x.DiffSlice(), want, 0) {
		t.Errorf("bottom gradient %v, want %v", x.DiffSlice(), want)
	}
}

// convGeomTest is a convolution to compare with the direct loops.
type convGeomTest struct {
	n, c, h, w, out, group int
	kh, kw, ph, pw, sh, sw int
	dh, dw                 int
	bias                   bool
}

func (g convGeomTest) def() string {
	return fmt.Sprintf(`type: "Convolution" convolution_param { num_output: %d group: %d kernel_h: %d kernel_w: %d pad_h: %d pad_w: %d stride_h: %d stride_w: %d dilation: %d dilation: %d bias_term: %v weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } }`,
		g.out, g.group, g.kh, g.kw, g.ph, g.pw, g.sh, g.sw, g.dh, g.dw, g.bias)
}

// directConv computes the convolution and its gradients by definition.
func directConv(g convGeomTest, x, w, b, dy []float32) (y, dx, dw, db []float32) {
	oh := (g.h+2*g.ph-(g.dh*(g.kh-1)+1))/g.sh + 1
	ow := (g.w+2*g.pw-(g.dw*(g.kw-1)+1))/g.sw + 1
	cg, og := g.c/g.group, g.out/g.group
	// Sums in float64, so that the reference's own rounding does not
	// count against the layer's.
	y64 := make([]float64, g.n*g.out*oh*ow)
	dx64 := make([]float64, len(x))
	dw64 := make([]float64, len(w))
	db64 := make([]float64, g.out)
	for n := range g.n {
		for o := range g.out {
			gr := o / og
			for oy := range oh {
				for ox := range ow {
					yi := ((n*g.out+o)*oh+oy)*ow + ox
					var s float64
					if g.bias {
						s = float64(b[o])
					}
					for c := range cg {
						for ki := range g.kh {
							for kj := range g.kw {
								iy, ix := oy*g.sh-g.ph+ki*g.dh, ox*g.sw-g.pw+kj*g.dw
								if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
									continue
								}
								xi := ((n*g.c+gr*cg+c)*g.h+iy)*g.w + ix
								wi := ((o*cg+c)*g.kh+ki)*g.kw + kj
								s += float64(x[xi]) * float64(w[wi])
								dx64[xi] += float64(dy[yi]) * float64(w[wi])
								dw64[wi] += float64(dy[yi]) * float64(x[xi])
							}
						}
					}
					y64[yi] = s
					db64[o] += float64(dy[yi])
				}
			}
		}
	}
	f32 := func(v []float64) []float32 {
		r := make([]float32, len(v))
		for i, e := range v {
			r[i] = float32(e)
		}
		return r
	}
	return f32(y64), f32(dx64), f32(dw64), f32(db64)
}

// TestLayerConvolutionMatchesDirect compares forward and backward with the
// direct loops over geometries and over the ways the layer splits the
// batch into products (whole batch, one image at a time, chunks of two),
// on the column path and on the direct path (kernel.DirectConv, which
// takes the stride-1 geometries).
func TestLayerConvolutionMatchesDirect(t *testing.T) {
	defer func(v bool) { convDirect = v }(convDirect)
	for _, direct := range []bool{false, true} {
		convDirect = direct
		t.Run(fmt.Sprintf("direct=%v", direct), testConvolutionMatchesDirect)
	}
}

func testConvolutionMatchesDirect(t *testing.T) {
	geoms := []struct {
		name string
		g    convGeomTest
	}{
		{"plain", convGeomTest{n: 3, c: 2, h: 6, w: 5, out: 3, group: 1, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		{"pad-stride", convGeomTest{n: 3, c: 3, h: 7, w: 6, out: 2, group: 1, kh: 3, kw: 2, ph: 2, pw: 1, sh: 2, sw: 3, dh: 1, dw: 1, bias: true}},
		{"group-dilation", convGeomTest{n: 3, c: 4, h: 6, w: 6, out: 6, group: 2, kh: 2, kw: 3, ph: 1, pw: 2, sh: 1, sw: 2, dh: 2, dw: 1, bias: false}},
		{"1x1", convGeomTest{n: 3, c: 3, h: 2, w: 3, out: 4, group: 1, kh: 1, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		{"1x1-group", convGeomTest{n: 3, c: 4, h: 2, w: 2, out: 2, group: 2, kh: 1, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		{"lenet-conv1", convGeomTest{n: 3, c: 1, h: 12, w: 12, out: 4, group: 1, kh: 5, kw: 5, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		{"blocks", convGeomTest{n: 37, c: 3, h: 6, w: 7, out: 5, group: 1, kh: 3, kw: 2, ph: 1, pw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		{"groups-pad", convGeomTest{n: 18, c: 4, h: 5, w: 5, out: 6, group: 2, kh: 3, kw: 3, ph: 2, pw: 2, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		// Few channels in, many out: the column path, its weight gradient
		// alone on the direct path.
		{"few-in", convGeomTest{n: 19, c: 3, h: 6, w: 7, out: 32, group: 1, kh: 3, kw: 3, ph: 1, pw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		// … whose rows are whole pairs of vectors: Forward on the row
		// convolution.
		{"few-in-rows", convGeomTest{n: 5, c: 3, h: 4, w: 32, out: 32, group: 1, kh: 3, kw: 3, ph: 1, pw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		// 3×3 with many channels: Forward and the input gradient on
		// Winograd's transforms.
		{"winograd", convGeomTest{n: 18, c: 64, h: 7, w: 6, out: 64, group: 1, kh: 3, kw: 3, ph: 1, pw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		{"winograd-groups", convGeomTest{n: 3, c: 128, h: 5, w: 5, out: 128, group: 2, kh: 3, kw: 3, ph: 1, pw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
		{"winograd-5x5", convGeomTest{n: 17, c: 96, h: 7, w: 7, out: 96, group: 2, kh: 5, kw: 5, ph: 2, pw: 2, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}},
	}
	modes := []struct {
		name    string
		images  int // per product
		keep    bool
		threads int
	}{
		{"whole-batch", 3, false, 1},
		{"per-image", 1, false, 1},
		{"chunks", 2, false, 1}, // the last chunk holds one image
		{"per-image-kept", 1, true, 1},
		{"chunks-kept", 2, true, 1},
		{"whole-batch-2-threads", 3, false, 2},
		{"per-image-2-threads", 1, false, 2},
		{"per-image-kept-2-threads", 1, true, 2},
	}
	for _, gc := range geoms {
		for _, m := range modes {
			t.Run(gc.name+"/"+m.name, func(t *testing.T) {
				g := gc.g
				oh := (g.h+2*g.ph-(g.dh*(g.kh-1)+1))/g.sh + 1
				ow := (g.w+2*g.pw-(g.dw*(g.kw-1)+1))/g.sw + 1
				defer func(v, k int) { convColBudget, convKeepBudget = v, k }(convColBudget, convKeepBudget)
				convColBudget = m.images * g.c * g.kh * g.kw * oh * ow
				convKeepBudget = 0
				if m.keep {
					convKeepBudget = 1 << 30
				}

				x, y := randBlob(1, -1, 1, g.n, g.c, g.h, g.w), NewBlob()
				l := setupLayer(t, g.def(), &LayerEnv{Seed: 5, Threads: m.threads}, blobs(x), blobs(y))
				directGeom := g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.kh*g.kw > 1 && kernel.DirectConvLanes() > 0 &&
					!(g.c/g.group <= 4 && g.out/g.group >= 32)
				if got := l.(*Convolution).direct != nil; got != (convDirect && directGeom) {
					t.Fatalf("direct path %v, want %v", got, convDirect && directGeom)
				}
				cg, og := g.c/g.group, g.out/g.group
				wantWino := kernel.Winograd() && g.kh == g.kw && (g.kh == 3 && cg >= 64 && og >= 64 || g.kh == 5 && cg >= 48 && og >= 48)
				if d := l.(*Convolution).direct; d != nil && d.plan.Winograd() != wantWino {
					t.Fatalf("Winograd's transforms %v, want them for 3×3 kernels of 64 channels or more and 5×5 of 48", d.plan.Winograd())
				}
				var b []float32
				if g.bias {
					b = l.Params()[1].DataSlice()
				}
				// Float32 sums of n products against float64 ones: the
				// bound grows with the length of the sums.
				tol := 1e-5 * max(1, float64(g.c/g.group*g.kh*g.kw)/64)
				if err := l.Forward(blobs(x), blobs(y)); err != nil {
					t.Fatal(err)
				}
				dy := randBlob(2, -1, 1, y.Shape()...).DataSlice()
				wantY, wantDx, wantDw, wantDb := directConv(g, x.DataSlice(), l.Params()[0].DataSlice(), b, dy)
				if !closeSlices(y.DataSlice(), wantY, tol) {
					t.Fatalf("forward differs:\n got %v\nwant %v", y.DataSlice(), wantY)
				}
				copy(y.DiffSlice(), dy)
				// Parameter gradients accumulate: start from 1.
				for _, p := range l.Params() {
					fillFloats(p.DiffSlice(), 1)
				}
				l.Backward(blobs(y), []bool{true}, blobs(x))
				if !closeSlices(x.DiffSlice(), wantDx, tol) {
					t.Errorf("bottom gradient differs:\n got %v\nwant %v", x.DiffSlice(), wantDx)
				}
				for i := range wantDw {
					wantDw[i]++
				}
				if !closeSlices(l.Params()[0].DiffSlice(), wantDw, tol) {
					t.Errorf("weight gradient differs:\n got %v\nwant %v", l.Params()[0].DiffSlice(), wantDw)
				}
				if g.bias {
					for i := range wantDb {
						wantDb[i]++
					}
					if !closeSlices(l.Params()[1].DiffSlice(), wantDb, tol) {
						t.Errorf("bias gradient differs:\n got %v\nwant %v", l.Params()[1].DiffSlice(), wantDb)
					}
				}
				// Backward without the bottom gradient (on the direct path
				// for a column-path layer that has one for its weights).
				wantWgrad := convDirect && !directGeom && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
					g.kh*g.kw > 1 && kernel.DirectConvLanes() > 0
				if got := l.(*Convolution).wgrad != nil; got != wantWgrad {
					t.Fatalf("direct weight gradient %v, want %v", got, wantWgrad)
				}
				for _, p := range l.Params() {
					fillFloats(p.DiffSlice(), 1)
				}
				l.Backward(blobs(y), []bool{false}, blobs(x))
				if !closeSlices(l.Params()[0].DiffSlice(), wantDw, tol) {
					t.Errorf("weight gradient without the bottom's differs:\n got %v\nwant %v", l.Params()[0].DiffSlice(), wantDw)
				}
				if g.bias && !closeSlices(l.Params()[1].DiffSlice(), wantDb, tol) {
					t.Errorf("bias gradient without the bottom's differs:\n got %v\nwant %v", l.Params()[1].DiffSlice(), wantDb)
				}
				// Backward again without the bottom gradient and with the
				// weight gradient switched off: only the bias moves.
				pp := l.(ParamPropagation)
				pp.SetParamPropagateDown(0, false)
				before := append([]float32(nil), l.Params()[0].DiffSlice()...)
				l.Backward(blobs(y), []bool{false}, blobs(x))
				if !closeSlices(l.Params()[0].DiffSlice(), before, 0) {
					t.Errorf("weight gradient changed although switched off")
				}
			})
		}
	}
}

func TestLayerConvolutionShapes(t *testing.T) {
	cases := []struct {
		name  string
		def   string
		in    []int
		out   []int
		param []int
	}{
		{"lenet-conv1", `num_output: 20 kernel_size: 5`, []int{64, 1, 28, 28}, []int{64, 20, 24, 24}, []int{20, 1, 5, 5}},
		{"lenet-conv2", `num_output: 50 kernel_size: 5`, []int{64, 20, 12, 12}, []int{64, 50, 8, 8}, []int{50, 20, 5, 5}},
		{"cifar-conv1", `num_output: 32 pad: 2 kernel_size: 5 stride: 1`, []int{100, 3, 32, 32}, []int{100, 32, 32, 32}, []int{32, 3, 5, 5}},
		{"floor", `num_output: 2 kernel_size: 3 stride: 2`, []int{1, 1, 8, 8}, []int{1, 2, 3, 3}, []int{2, 1, 3, 3}},
		{"group", `num_output: 4 kernel_size: 1 group: 2`, []int{1, 6, 2, 2}, []int{1, 4, 2, 2}, []int{4, 3, 1, 1}},
		{"axis2", `num_output: 3 kernel_size: 2 axis: 2`, []int{2, 2, 4, 5, 5}, []int{2, 2, 3, 4, 4}, []int{3, 4, 2, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := NewBlob(c.in...), NewBlob()
			l := setupLayer(t, `type: "Convolution" convolution_param { `+c.def+` }`, nil, blobs(x), blobs(y))
			if fmt.Sprint(y.Shape()) != fmt.Sprint(c.out) {
				t.Errorf("top shape %v, want %v", y.Shape(), c.out)
			}
			if got := l.Params()[0].Shape(); fmt.Sprint(got) != fmt.Sprint(c.param) {
				t.Errorf("weight shape %v, want %v", got, c.param)
			}
		})
	}
}

func TestLayerConvolutionErrors(t *testing.T) {
	cases := []struct {
		name, def string
		in        []int
		want      string
	}{
		{"no-kernel", `num_output: 2`, []int{1, 1, 4, 4}, "kernel_size"},
		{"kernel-twice", `num_output: 2 kernel_size: 2 kernel_h: 2 kernel_w: 2`, []int{1, 1, 4, 4}, "not both"},
		{"kernel-h-only", `num_output: 2 kernel_h: 2`, []int{1, 1, 4, 4}, "together"},
		{"kernel-3-times", `num_output: 2 kernel_size: 2 kernel_size: 2 kernel_size: 2`, []int{1, 1, 4, 4}, "not 3 times"},
		{"zero-output", `kernel_size: 2`, []int{1, 1, 4, 4}, "num_output"},
		{"group-output", `num_output: 3 group: 2 kernel_size: 1`, []int{1, 2, 4, 4}, "multiple of group"},
		{"group-channels", `num_output: 4 group: 2 kernel_size: 1`, []int{1, 3, 4, 4}, "multiple of group"},
		{"3d", `num_output: 2 kernel_size: 1`, []int{1, 1, 2, 4, 4}, "2-D"},
		{"too-small", `num_output: 2 kernel_size: 5`, []int{1, 1, 4, 4}, "smaller than"},
		{"bad-filler", `num_output: 2 kernel_size: 2 weight_filler { type: "gausian" }`, []int{1, 1, 4, 4}, `did you mean "gaussian"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := parseLayerDef(t, `name: "c" type: "Convolution" convolution_param { `+c.def+` }`)
			l, err := NewLayer(def, nil)
			if err == nil {
				err = l.Setup(blobs(NewBlob(c.in...)), blobs(NewBlob()))
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), `caffe: layer "c" (Convolution): `) {
				t.Errorf("error %q does not name the layer", err)
			}
		})
	}
}

func TestLayerConvolutionWeightsFromDefinition(t *testing.T) {
	def := `type: "Convolution" convolution_param { num_output: 1 kernel_size: 2 }
		blobs { shape { dim: 1 dim: 1 dim: 2 dim: 2 } data: 1 data: 2 data: 3 data: 4 }
		blobs { num: 1 channels: 1 height: 1 width: 1 data: 0.5 }`
	x, y := blobOf([]int{1, 1, 2, 2}, 1, 1, 1, 1), NewBlob()
	l := setupLayer(t, def, nil, blobs(x), blobs(y))
	if err := l.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	if got := y.DataSlice()[0]; got != 10.5 {
		t.Errorf("output %v, want 10.5", got)
	}
	bad := `type: "Convolution" convolution_param { num_output: 1 kernel_size: 2 bias_term: false }
		blobs { shape { dim: 1 dim: 1 dim: 3 dim: 3 } }`
	l2, err := NewLayer(parseLayerDef(t, bad), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Setup(blobs(x), blobs(NewBlob())); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("Setup with a wrongly shaped weight blob: %v", err)
	}
}

func TestLayerConvolutionAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	defer func(v, k int) { convColBudget, convKeepBudget = v, k }(convColBudget, convKeepBudget)
	for _, budget := range []int{1 << 30, 0} {
		convColBudget, convKeepBudget = budget, budget
		x, y := randBlob(1, -1, 1, 4, 3, 8, 8), NewBlob()
		l := setupLayer(t, `type: "Convolution" convolution_param { num_output: 4 kernel_size: 3 pad: 1 }`, &LayerEnv{Threads: 2}, blobs(x), blobs(y))
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
			t.Errorf("budget %d: %v allocations per Reshape+Forward+Backward, want 0:%s", budget, allocs, alloctest.String(sites))
		}
	}
}

// TestDeconvolutionIsTransposedConvolution checks the forward pass of
// Deconvolution against Convolution with the same weights: for any x and
// z, <deconv(x), z> = <x, conv(z)>, which is what makes deconvolution
// the transpose of convolution in Caffe. It also checks the output size.
func TestDeconvolutionIsTransposedConvolution(t *testing.T) {
	params := `num_output: %d group: 2 kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 3 pad_h: 1 pad_w: 0 dilation: 2 bias_term: false weight_filler { type: "gaussian" std: 1 }`
	x := randBlob(41, -1, 1, 2, 4, 3, 2) // deconv input: N=2, C=4
	env := &LayerEnv{Phase: caffepb.Phase_TEST, Seed: 3}
	y := NewBlob()
	deconv := setupLayer(t, `type: "Deconvolution" convolution_param { `+fmt.Sprintf(params, 6)+` }`, env, blobs(x), blobs(y))
	// out = stride·(in−1) + dilation·(k−1) + 1 − 2·pad
	if want := []int{2, 6, 2*(3-1) + 2*(3-1) + 1 - 2, 3*(2-1) + 2*(2-1) + 1}; !slices.Equal(y.Shape(), want) {
		t.Fatalf("deconvolution output %v, want %v", y.Shape(), want)
	}
	if err := deconv.Forward(blobs(x), blobs(y)); err != nil {
		t.Fatal(err)
	}
	z := randBlob(42, -1, 1, y.Shape()...)
	cz := NewBlob()
	conv := setupLayer(t, `type: "Convolution" convolution_param { `+fmt.Sprintf(params, 4)+` }`, env, blobs(z), blobs(cz))
	copy(conv.Params()[0].DataSlice(), deconv.Params()[0].DataSlice())
	if err := conv.Forward(blobs(z), blobs(cz)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cz.Shape(), x.Shape()) {
		t.Fatalf("convolution of the output has shape %v, want the input's %v", cz.Shape(), x.Shape())
	}
	var left, right float64
	for i, v := range y.DataSlice() {
		left += float64(v) * float64(z.DataSlice()[i])
	}
	for i, v := range x.DataSlice() {
		right += float64(v) * float64(cz.DataSlice()[i])
	}
	if math.Abs(left-right) > 1e-4*math.Max(1, math.Abs(left)) {
		t.Errorf("<deconv(x), z> = %g, <x, conv(z)> = %g", left, right)
	}
}

// TestLayerConvolutionTailPlan checks that a direct-path layer whose last
// block holds at most half the lanes runs it on a kernel.DirectTail, with
// the outputs and gradients of the column products to rounding, and the
// same outputs, input and weight gradients on one and two threads.
func TestLayerConvolutionTailPlan(t *testing.T) {
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution kernels")
	}
	defer func(old bool) { convDirectTail = old }(convDirectTail)
	// Two blocks of 16 lanes (four of 8) and a last one of 3.
	g := convGeomTest{n: 35, c: 4, h: 7, w: 6, out: 5, group: 1, kh: 3, kw: 3, ph: 1, pw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}
	run := func(tail bool, threads int) [][]float32 {
		convDirectTail = tail
		x, y := randBlob(1, -1, 1, g.n, g.c, g.h, g.w), NewBlob()
		l := setupLayer(t, g.def(), &LayerEnv{Seed: 5, Threads: threads}, blobs(x), blobs(y)).(*Convolution)
		if l.direct == nil || !l.direct.tail || (l.direct.tailPlan != nil) != tail {
			t.Fatalf("tail plan %v, want %v", l.direct != nil && l.direct.tailPlan != nil, tail)
		}
		if err := l.Forward(blobs(x), blobs(y)); err != nil {
			t.Fatal(err)
		}
		copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
		l.Backward(blobs(y), []bool{true}, blobs(x))
		return [][]float32{y.DataSlice(), x.DiffSlice(), l.Params()[0].DiffSlice(), l.Params()[1].DiffSlice()}
	}
	cols, tail, tail2 := run(false, 1), run(true, 1), run(true, 2)
	for i := range cols {
		if !closeSlices(tail[i], cols[i], 1e-5) {
			t.Errorf("result %d on the tail plan differs from the column products", i)
		}
		// (The bias gradient's parts are added otherwise on two threads,
		// on every path.)
		if _, ok := sameBits(tail[i], tail2[i]); !ok && i < 3 {
			t.Errorf("result %d differs on two threads", i)
		}
	}
}

// TestLayerConvolutionTailColumns checks that a direct-path layer whose
// last block runs on the column path reuses the columns Forward built for
// it in Backward, with the same gradients, bit for bit, as when Backward
// builds them again.
func TestLayerConvolutionTailColumns(t *testing.T) {
	if kernel.DirectConvLanes() == 0 {
		t.Skip("no direct convolution kernels")
	}
	// 35 images: two blocks of 16 lanes (four of 8) and a last one of
	// 3 on the column path.
	g := convGeomTest{n: 35, c: 4, h: 7, w: 6, out: 5, group: 1, kh: 3, kw: 3, ph: 1, pw: 1, sh: 1, sw: 1, dh: 1, dw: 1, bias: true}
	defer func(old bool) { convDirectTail = old }(convDirectTail)
	convDirectTail = false
	grads := func(reuse bool) [][]float32 {
		x, y := randBlob(1, -1, 1, g.n, g.c, g.h, g.w), NewBlob()
		l := setupLayer(t, g.def(), &LayerEnv{Seed: 5, Threads: 1}, blobs(x), blobs(y)).(*Convolution)
		if l.direct == nil || !l.direct.tail || l.direct.tailPlan != nil {
			t.Fatalf("direct %v, want a direct layer with a column tail", l.direct != nil)
		}
		if err := l.Forward(blobs(x), blobs(y)); err != nil {
			t.Fatal(err)
		}
		if l.colFor != 0 || l.scratch[0].colChunk != g.n-g.n%kernel.DirectConvLanes() {
			t.Fatalf("after Forward: columns of bottom %d, chunk %d", l.colFor, l.scratch[0].colChunk)
		}
		if !reuse {
			l.colFor = -1
		}
		copy(y.DiffSlice(), randBlob(2, -1, 1, y.Shape()...).DataSlice())
		l.Backward(blobs(y), []bool{true}, blobs(x))
		if l.colFor != -1 {
			t.Fatalf("after Backward: columns of bottom %d kept", l.colFor)
		}
		return [][]float32{x.DiffSlice(), l.Params()[0].DiffSlice(), l.Params()[1].DiffSlice()}
	}
	got, want := grads(true), grads(false)
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("gradient %d differs with the kept columns", i)
		}
	}
}
