package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
)

type gemmCase struct {
	name           string
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	pad            int // extra columns in every leading dimension
}

// gemmCases crosses the shapes with the transpose cases and a few
// alpha/beta pairs.
func gemmCases() []gemmCase {
	shapes := []struct{ m, n, k int }{
		{1, 1, 1}, {1, 7, 3}, {5, 1, 9}, {3, 5, 1}, {2, 2, 2},
		{13, 17, 19}, {14, 32, 8}, {15, 33, 31}, {28, 64, 4}, {29, 65, 5},
		{6, 16, 7}, {7, 17, 16}, {20, 100, 25}, {50, 47, 33}, {9, 3, 40},
		{1, 300, 40}, {37, 1, 50}, {1, 1, 100},
	}
	ab := []struct{ alpha, beta float32 }{{1, 0}, {1, 1}, {-0.5, 2.5}, {0, 0.5}, {2, 0}}
	var cases []gemmCase
	for si, s := range shapes {
		for tr := 0; tr < 4; tr++ {
			ta, tb := tr&1 != 0, tr&2 != 0
			x := ab[(si+tr)%len(ab)]
			cases = append(cases, gemmCase{
				name:   fmt.Sprintf("%dx%dx%d/%s/a%g/b%g/pad%d", s.m, s.n, s.k, transName(ta, tb), x.alpha, x.beta, tr%2*3),
				transA: ta, transB: tb, m: s.m, n: s.n, k: s.k,
				alpha: x.alpha, beta: x.beta, pad: tr % 2 * 3,
			})
		}
	}
	return cases
}

func transName(ta, tb bool) string {
	b := []byte("NN")
	if ta {
		b[0] = 'T'
	}
	if tb {
		b[1] = 'T'
	}
	return string(b)
}

// gemmOperands builds the stored A, B and C of a case with their leading
// dimensions. C's padding columns hold a sentinel the product must keep.
func (tc gemmCase) operands(seed uint64) (a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	rng := newRand(seed)
	ar, ac := tc.m, tc.k
	if tc.transA {
		ar, ac = tc.k, tc.m
	}
	br, bc := tc.k, tc.n
	if tc.transB {
		br, bc = tc.n, tc.k
	}
	lda, ldb, ldc = ac+tc.pad, bc+tc.pad, tc.n+tc.pad
	a = randSlice(rng, ar*lda)
	b = randSlice(rng, br*ldb)
	c = randSlice(rng, tc.m*ldc)
	for i := 0; i < tc.m; i++ {
		for j := tc.n; j < ldc; j++ {
			c[i*ldc+j] = sentinel
		}
	}
	return a, lda, b, ldb, c, ldc
}

const sentinel = 12345

// checkGemmResult compares got with the reference want over the m×n window
// and checks that the padding kept its sentinel.
func checkGemmResult(t *testing.T, tc gemmCase, got, want []float32, ldc int) {
	t.Helper()
	tol := float32(2e-6) * float32(tc.k+4)
	scale := float32(math.Abs(float64(tc.alpha))) + float32(math.Abs(float64(tc.beta))) + 1
	bad := 0
	for i := 0; i < tc.m; i++ {
		for j := 0; j < ldc; j++ {
			g, w := got[i*ldc+j], want[i*ldc+j]
			if j >= tc.n {
				if g != sentinel {
					t.Errorf("C[%d][%d] (padding) = %g, want it untouched", i, j, g)
					bad++
				}
			} else if !close32(g, w, tol, scale) {
				t.Errorf("C[%d][%d] = %g, want %g", i, j, g, w)
				bad++
			}
			if bad > 5 {
				t.Fatal("too many errors")
			}
		}
	}
}

func TestSgemm(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for i, tc := range gemmCases() {
			t.Run(tc.name, func(t *testing.T) {
				a, lda, b, ldb, c, ldc := tc.operands(uint64(i))
				want := append([]float32(nil), c...)
				sgemmRef(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
				Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
				checkGemmResult(t, tc, c, want, ldc)
			})
		}
	})
}

// TestSgemmBlocking shrinks the cache blocks so that small products cross
// every block boundary: several kc, mc and nc blocks, each with edges.
func TestSgemmBlocking(t *testing.T) {
	cases := []gemmCase{
		{name: "NN", m: 47, n: 150, k: 37, alpha: 1, beta: 0},
		{name: "TN", transA: true, m: 33, n: 97, k: 29, alpha: 0.5, beta: 1},
		{name: "NT", transB: true, m: 61, n: 70, k: 41, alpha: -1, beta: 0.25, pad: 2},
		{name: "TT", transA: true, transB: true, m: 40, n: 129, k: 17, alpha: 2, beta: 0, pad: 1},
	}
	for _, name := range Implementations() {
		var g gemmImpl
		for _, x := range available() {
			if x.name == name {
				g = *x
			}
		}
		g.kc, g.mc, g.nc = 8, 2*g.mr+3, 2*g.nr
		for i, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				a, lda, b, ldb, c, ldc := tc.operands(uint64(100 + i))
				want := append([]float32(nil), c...)
				sgemmRef(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
				g.sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
				checkGemmResult(t, tc, c, want, ldc)
			})
		}
	}
}

// splitSmallProducts lowers the size SgemmParallel splits at, so that the
// tests' small products take the parallel path, until the test ends.
func splitSmallProducts(t *testing.T) {
	saved := parallelMinWork
	parallelMinWork = 1
	t.Cleanup(func() { parallelMinWork = saved })
}

func TestSgemmParallel(t *testing.T) {
	splitSmallProducts(t)
	cases := []gemmCase{
		{name: "wide", m: 37, n: 300, k: 70, alpha: 1, beta: 0},
		{name: "tall", transA: true, m: 301, n: 45, k: 50, alpha: 0.5, beta: 1.5, pad: 1},
		{name: "square", transB: true, m: 90, n: 91, k: 64, alpha: 1, beta: 1},
		{name: "TT", transA: true, transB: true, m: 130, n: 70, k: 33, alpha: -2, beta: 0, pad: 2},
		{name: "small", m: 3, n: 5, k: 7, alpha: 1, beta: 0},
	}
	forEachImpl(t, func(t *testing.T) {
		for _, threads := range []int{0, 1, 2, 3, 7} {
			for i, tc := range cases {
				t.Run(fmt.Sprintf("%s/threads%d", tc.name, threads), func(t *testing.T) {
					a, lda, b, ldb, c, ldc := tc.operands(uint64(200 + i))
					want := append([]float32(nil), c...)
					sgemmRef(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
					SgemmParallel(threads, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
					checkGemmResult(t, tc, c, want, ldc)
				})
			}
		}
	})
}

// TestSgemmBetaZeroIgnoresC checks that beta == 0 never reads C, whatever
// alpha and k: NaN and Inf in C must not reach the result.
func TestSgemmBetaZeroIgnoresC(t *testing.T) {
	splitSmallProducts(t)
	forEachImpl(t, func(t *testing.T) {
		for _, tc := range []struct {
			name     string
			m, n, k  int
			alpha    float32
			parallel bool
		}{
			{"product", 19, 37, 11, 1, false},
			{"alpha0", 5, 6, 7, 0, false},
			{"k0", 4, 40, 0, 1, false},
			{"parallel", 70, 90, 80, 1, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rng := newRand(7)
				a, b := randSlice(rng, tc.m*tc.k), randSlice(rng, tc.k*tc.n)
				c := make([]float32, tc.m*tc.n)
				for i := range c {
					c[i] = float32(math.NaN())
					if i%3 == 0 {
						c[i] = float32(math.Inf(-1))
					}
				}
				want := make([]float32, len(c))
				sgemmRef(false, false, tc.m, tc.n, tc.k, tc.alpha, a, tc.k, b, tc.n, 0, want, tc.n)
				if tc.parallel {
					SgemmParallel(2, false, false, tc.m, tc.n, tc.k, tc.alpha, a, tc.k, b, tc.n, 0, c, tc.n)
				} else {
					Sgemm(false, false, tc.m, tc.n, tc.k, tc.alpha, a, tc.k, b, tc.n, 0, c, tc.n)
				}
				for i, v := range c {
					if !close32(v, want[i], 1e-4, 1) {
						t.Fatalf("C[%d] = %g, want %g", i, v, want[i])
					}
				}
			})
		}
	})
}

// TestSgemmImplementationsAgree compares every vector implementation with
// the portable one on a product large enough to use the full blocking.
func TestSgemmImplementationsAgree(t *testing.T) {
	tc := gemmCase{transB: true, m: 300, n: 520, k: 290, alpha: 0.75, beta: 0.5, pad: 5}
	a, lda, b, ldb, c0, ldc := tc.operands(9)
	run := func(name string) []float32 {
		prev, err := SetImplementation(name)
		if err != nil {
			t.Fatal(err)
		}
		defer SetImplementation(prev)
		c := append([]float32(nil), c0...)
		Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
		return c
	}
	want := run("go")
	for _, name := range Implementations() {
		if name == "go" {
			continue
		}
		t.Run(name, func(t *testing.T) { checkGemmResult(t, tc, run(name), want, ldc) })
	}
}

func TestSgemmBadArguments(t *testing.T) {
	a := make([]float32, 12)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"negative", func() { Sgemm(false, false, -1, 2, 2, 1, a, 2, a, 2, 0, a, 2) }, "negative dimension"},
		{"lda", func() { Sgemm(false, false, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2) }, "lda = 2, want >= 3"},
		{"short b", func() { Sgemm(false, true, 2, 5, 3, 1, a, 3, a, 3, 0, a, 5) }, "len(b) = 12, want >= 15"},
		{"short c", func() { SgemmParallel(2, false, false, 4, 4, 1, 1, a, 1, a, 4, 0, a[:10], 4) }, "len(c) = 10, want >= 16"},
	} {
		t.Run(tc.name, func(t *testing.T) { expectPanic(t, tc.want, tc.f) })
	}
}

// TestSgemmNoAllocs checks that products allocate nothing once their
// buffers exist, also after garbage collections (which empty a sync.Pool).
func TestSgemmNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	splitSmallProducts(t)
	forEachImpl(t, func(t *testing.T) {
		tc := gemmCase{m: 70, n: 90, k: 80, alpha: 1, beta: 0.5}
		a, lda, b, ldb, c, ldc := tc.operands(3)
		for _, threads := range []int{1, 2} {
			f := func() {
				SgemmParallel(threads, false, false, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
			}
			f()
			runtime.GC()
			runtime.GC()
			if n, sites := alloctest.Count(20, f); n != 0 {
				t.Errorf("threads=%d: %v allocations per call, want 0:%s", threads, n, alloctest.String(sites))
			}
		}
	})
}

// TestSgemmParallelConcurrentCalls runs parallel products from several
// goroutines at once; each must get its own result.
func TestSgemmParallelConcurrentCalls(t *testing.T) {
	splitSmallProducts(t)
	tc := gemmCase{m: 40, n: 700, k: 30, alpha: 1, beta: 0}
	const callers = 4
	results := make([][]float32, callers)
	wants := make([][]float32, callers)
	done := make(chan int)
	for g := range callers {
		a, lda, b, ldb, c, ldc := tc.operands(uint64(300 + g))
		wants[g] = append([]float32(nil), c...)
		sgemmRef(false, false, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, wants[g], ldc)
		go func() {
			for range 5 {
				SgemmParallel(3, false, false, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
			}
			results[g] = c
			done <- g
		}()
	}
	for range callers {
		g := <-done
		checkGemmResult(t, tc, results[g], wants[g], tc.n)
	}
}

// TestWorkspacePoolReserve checks that goroutines reserved for find
// workspaces of the largest size asked for, without allocating, the first
// time they all run products at once, and that giving the reservation
// back drops the free workspaces beyond it.
func TestWorkspacePoolReserve(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	var p workspacePool
	p.reserve(2) // two pooled goroutines besides a calling one
	// The products so far ran one at a time.
	w := p.get()
	w.fit(p.grow(300, 700))
	p.put(w)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a, b, c := p.get(), p.get(), p.get()
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n != 0 {
		t.Errorf("three goroutines overlapping for the first time allocated %d objects, want 0", n)
	}
	for i, w := range []*workspace{a, b, c} {
		if len(w.a) < 300 || len(w.b) < 700 {
			t.Errorf("workspace %d holds %d and %d floats, want at least 300 and 700", i, len(w.a), len(w.b))
		}
	}
	p.put(a)
	p.put(b)
	p.put(c)
	if got := len(p.free); got != 3 {
		t.Fatalf("%d free workspaces, want 3", got)
	}

	p.reserve(-2)
	if p.made != 1 || len(p.free) != 1 {
		t.Errorf("after giving back the reservation: %d made, %d free, want 1 and 1", p.made, len(p.free))
	}
}
