package ndarray

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// naive row-major helpers used as the oracle

func seq(n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(i)
	}
	return d
}

func mustPanicShape(t *testing.T, name string, f func()) {
	t.Helper()
	err := Try(f)
	if err == nil || !errors.Is(err, ErrShape) {
		t.Errorf("%s: got %v, want a shape error", name, err)
	}
}

func TestConstructorsAndAccess(t *testing.T) {
	a := New(2, 3)
	if got := a.Shape(); !equalInts(got, []int{2, 3}) || a.Size() != 6 || a.Dims() != 2 {
		t.Fatalf("New(2,3): shape %v size %d", got, a.Size())
	}
	a.Set(7, 1, 2)
	if a.At(1, 2) != 7 || a.At(-1, -1) != 7 || a.Data()[5] != 7 {
		t.Fatal("Set/At/Data disagree")
	}
	d := seq(6)
	b := FromSlice(d, 3, 2)
	d[3] = 42
	if b.At(1, 1) != 42 {
		t.Fatal("FromSlice must share storage")
	}
	if s := New(); s.Size() != 1 || s.Dims() != 0 {
		t.Fatalf("scalar: size %d dims %d", s.Size(), s.Dims())
	}
	if Full(2.5, 4).SumAll() != 10 || Ones(2, 2).SumAll() != 4 {
		t.Fatal("Full/Ones")
	}
	if r := Arange(0, 1, 0.25); r.Size() != 4 || r.At(3) != 0.75 {
		t.Fatalf("Arange: %v", r)
	}
	mustPanicShape(t, "FromSlice size", func() { FromSlice(seq(5), 2, 3) })
	mustPanicShape(t, "At out of range", func() { a.At(2, 0) })
	mustPanicShape(t, "At wrong arity", func() { a.At(1) })
	mustPanicShape(t, "negative dim", func() { New(-1) })
}

func TestViewsShareMemory(t *testing.T) {
	a := FromSlice(seq(24), 2, 3, 4)
	tests := []struct {
		name  string
		view  *Array
		shape []int
		want  []float32
	}{
		{"slice axis 1", a.Slice(1, 1, 3), []int{2, 2, 4}, []float32{4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23}},
		{"slice negative", a.Slice(2, -2, 4), []int{2, 3, 2}, []float32{2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23}},
		{"index", a.Index(0, 1), []int{3, 4}, seq(24)[12:]},
		{"index middle", a.Index(1, 2), []int{2, 4}, []float32{8, 9, 10, 11, 20, 21, 22, 23}},
		{"reshape", a.Reshape(4, -1), []int{4, 6}, seq(24)},
		{"transpose", a.Index(0, 0).T(), []int{4, 3}, []float32{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}},
		{"permute", a.T(2, 0, 1).Slice(0, 0, 1), []int{1, 2, 3}, []float32{0, 4, 8, 12, 16, 20}},
		{"expand", a.Index(0, 0).Index(0, 0).ExpandDims(0), []int{1, 4}, []float32{0, 1, 2, 3}},
		{"squeeze", a.Slice(0, 1, 2).Squeeze(), []int{3, 4}, seq(24)[12:]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !equalInts(tc.view.Shape(), tc.shape) {
				t.Fatalf("shape %v, want %v", tc.view.Shape(), tc.shape)
			}
			got := tc.view.Copy().Data()
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Fatalf("values %v, want %v", got, tc.want)
				}
			}
		})
	}
	// writes through a view reach the original
	v := a.Slice(2, 1, 2)
	v.Fill(-1)
	if a.At(1, 2, 1) != -1 || a.At(1, 2, 2) != 22 {
		t.Fatal("view write did not reach the base array")
	}
	if v.IsContiguous() {
		t.Fatal("a column slice is not contiguous")
	}
	mustPanicShape(t, "Data of a strided view", func() { v.Data() })
	// reshape of a strided view copies
	r := a.T().Reshape(-1)
	r.Fill(99)
	if a.MaxAll() == 99 {
		t.Fatal("reshape of a transposed view must not alias")
	}
	mustPanicShape(t, "reshape size", func() { a.Reshape(5, 5) })
	mustPanicShape(t, "two -1", func() { a.Reshape(-1, -1) })
	mustPanicShape(t, "slice range", func() { a.Slice(0, 1, 3) })
	mustPanicShape(t, "repeated axis", func() { a.T(0, 0, 1) })
}

func TestCopyFrom(t *testing.T) {
	a := New(2, 3)
	b := FromSlice(seq(6), 3, 2)
	a.T().CopyFrom(b) // strided destination
	want := []float32{0, 2, 4, 1, 3, 5}
	for i, v := range a.Data() {
		if v != want[i] {
			t.Fatalf("CopyFrom into a view: %v, want %v", a.Data(), want)
		}
	}
}

func TestElementwiseBroadcast(t *testing.T) {
	a := FromSlice(seq(6), 2, 3)
	row := FromValues(10, 20, 30)
	col := FromValues(1, 2).Reshape(2, 1)
	tests := []struct {
		name string
		got  *Array
		want []float32
	}{
		{"add same", a.Add(a), []float32{0, 2, 4, 6, 8, 10}},
		{"add row", a.Add(row), []float32{10, 21, 32, 13, 24, 35}},
		{"sub col", a.Sub(col), []float32{-1, 0, 1, 1, 2, 3}},
		{"mul row", a.Mul(row), []float32{0, 20, 60, 30, 80, 150}},
		{"div col", a.Div(col), []float32{0, 1, 2, 1.5, 2, 2.5}},
		{"col+row", col.Add(row), []float32{11, 21, 31, 12, 22, 32}},
		{"scalar", a.Add(New().Fill(1)), []float32{1, 2, 3, 4, 5, 6}},
		{"scale", a.Scale(2), []float32{0, 2, 4, 6, 8, 10}},
		{"apply", a.Apply(func(x float32) float32 { return x * x }), []float32{0, 1, 4, 9, 16, 25}},
		{"transposed", a.T().Add(a.T()).T(), []float32{0, 2, 4, 6, 8, 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.got.Copy().Data()
			if len(got) != len(tc.want) {
				t.Fatalf("got %v want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(float64(got[i]-tc.want[i])) > 1e-6 {
					t.Fatalf("got %v want %v", got, tc.want)
				}
			}
		})
	}
	mustPanicShape(t, "no broadcast", func() { a.Add(FromValues(1, 2)) })

	b := a.Copy()
	b.AddInPlace(row).SubInPlace(row).MulInPlace(col).DivInPlace(col)
	if !b.ApproxEqual(a, 1e-6) {
		t.Fatal("in-place round trip")
	}
	b.Axpy(2, a)
	if !b.ApproxEqual(a.Scale(3), 1e-6) {
		t.Fatal("Axpy")
	}
	// in-place on a strided view
	c := a.Copy()
	c.T().ScaleInPlace(2)
	c.T().AddInPlace(a.T())
	if !c.ApproxEqual(a.Scale(3), 1e-6) {
		t.Fatal("in-place on views")
	}
	mustPanicShape(t, "in place needs the broadcast shape", func() { row.Copy().AddInPlace(a) })
}

func TestReductions(t *testing.T) {
	a := FromValues(3, -1, 7, 2, 7, 0).Reshape(2, 3)
	check := func(name string, got *Array, want ...float32) {
		t.Helper()
		if !got.ApproxEqual(FromSlice(want, got.Shape()...), 1e-6) {
			t.Errorf("%s: %v want %v", name, got.Data(), want)
		}
	}
	check("sum0", a.Sum(0), 5, 6, 7)
	check("sum1", a.Sum(1), 9, 9)
	check("mean1", a.Mean(-1), 3, 3)
	check("max0", a.Max(0), 3, 7, 7)
	check("min1", a.Min(1), -1, 0)
	check("argmax1", a.Argmax(1), 2, 1) // first maximum wins
	check("argmax0", a.Argmax(0), 0, 1, 0)
	if a.SumAll() != 18 || a.MeanAll() != 3 || a.MaxAll() != 7 || a.MinAll() != -1 || a.ArgmaxAll() != 2 {
		t.Error("whole-array reductions")
	}
	if got := a.Norm(); math.Abs(got-math.Sqrt(9+1+49+4+49)) > 1e-6 {
		t.Errorf("norm %v", got)
	}
	if got := a.Dot(a); got != 112 {
		t.Errorf("dot %v", got)
	}
	// along an axis of a 3-D view
	b := FromSlice(seq(24), 2, 3, 4).T(1, 0, 2)
	s := b.Sum(1) // sums over the original axis 0
	if s.At(0, 0) != 12 || s.At(2, 3) != 11+23 {
		t.Errorf("3-D view sum: %v", s)
	}
}

func TestMatMul(t *testing.T) {
	for _, sz := range [][3]int{{1, 1, 1}, {2, 3, 4}, {7, 5, 3}, {17, 33, 9}} {
		m, n, k := sz[0], sz[1], sz[2]
		a := Randn(1, m, k)
		b := Randn(2, k, n)
		want := New(m, n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for p := 0; p < k; p++ {
					s += float64(a.At(i, p)) * float64(b.At(p, j))
				}
				want.Set(float32(s), i, j)
			}
		}
		if got := a.MatMul(b); !got.ApproxEqual(want, 1e-5) {
			t.Errorf("%v: MatMul differs by %g", sz, got.MaxDiff(want))
		}
		// transposed operands as views
		at, bt := a.T().Copy(), b.T().Copy()
		if got := at.T().MatMul(bt.T()); !got.ApproxEqual(want, 1e-5) {
			t.Errorf("%v: MatMul of transposed views differs by %g", sz, got.MaxDiff(want))
		}
		// a column slice (neither rows nor columns contiguous after slicing)
		big := Randn(3, m, k+2)
		sub := big.Slice(1, 1, k+1)
		if got := sub.MatMul(b); !got.ApproxEqual(sub.Copy().MatMul(b), 1e-6) {
			t.Errorf("%v: sliced operand", sz)
		}
	}
	mustPanicShape(t, "inner dims", func() { New(2, 3).MatMul(New(2, 3)) })
}

func TestRandomFills(t *testing.T) {
	a := New(200, 50).FillXavier(7)
	b := New(200, 50).FillXavier(7)
	if !a.ApproxEqual(b, 0) {
		t.Fatal("same seed must give the same values")
	}
	lim := float32(math.Sqrt(3.0 / 50))
	if a.MaxAll() > lim || a.MinAll() < -lim {
		t.Fatalf("xavier outside ±%v", lim)
	}
	// msra: std sqrt(2/fan_in), fan_in = 20*5*5 for a conv weight
	w := New(64, 20, 5, 5).FillMSRA(3)
	std := math.Sqrt(w.Mul(w).MeanAll())
	if want := math.Sqrt(2.0 / 500); math.Abs(std-want)/want > 0.05 {
		t.Fatalf("msra std %v, want about %v", std, want)
	}
	g := Randn(5, 100000)
	if m := g.MeanAll(); math.Abs(m) > 0.02 {
		t.Fatalf("gaussian mean %v", m)
	}
	u := Rand(5, 100000)
	if u.MinAll() < 0 || u.MaxAll() >= 1 || math.Abs(u.MeanAll()-0.5) > 0.01 {
		t.Fatal("uniform range or mean")
	}
	if Rand(1, 10).ApproxEqual(Rand(2, 10), 0) {
		t.Fatal("different seeds should differ")
	}
}

func TestDenseInterop(t *testing.T) {
	a := FromSlice(seq(6), 2, 3)
	d := a.Dense()
	if got := d.Shape(); got[0] != 2 || got[1] != 3 {
		t.Fatalf("dense shape %v", got)
	}
	d.Data().([]float32)[0] = 9
	if a.At(0, 0) != 9 {
		t.Fatal("Dense must share storage with a contiguous array")
	}
	b, err := FromDense(d)
	if err != nil || !b.ApproxEqual(a, 0) {
		t.Fatalf("FromDense: %v", err)
	}
	if tt := a.T().Dense(); tt.Shape()[0] != 3 {
		t.Fatal("Dense of a transposed view")
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		a    *Array
		want string
	}{
		{"ints", FromValues(1, 2, -3, 4).Reshape(2, 2), "Array[2 2] float32\n[[ 1.  2.]\n [-3.  4.]]"},
		{"fixed", FromValues(0.5, 1.25, -2), "Array[3] float32\n[ 0.50  1.25 -2.00]"},
		{"sci", FromValues(1e-5, 3), "Array[2] float32\n[1.0000e-05 3.0000e+00]"},
		{"3d", FromSlice(seq(8), 2, 2, 2), "Array[2 2 2] float32\n[[[0. 1.]\n  [2. 3.]]\n\n [[4. 5.]\n  [6. 7.]]]"},
		{"elided", Arange(0, 2000, 1), "Array[2000] float32\n[   0.    1.    2. ... 1997. 1998. 1999.]"},
		{"special", FromValues(float32(math.NaN()), float32(math.Inf(1)), 1), "Array[3] float32\n[nan inf  1.]"},
	}
	for _, tc := range tests {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	big := Randn(1, 50, 50).String()
	if !strings.Contains(big, "...") || strings.Count(big, "\n") != 7 {
		t.Errorf("large matrix not elided to 7 rows:\n%s", big)
	}
}
