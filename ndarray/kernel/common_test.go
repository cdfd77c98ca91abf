package kernel

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// forEachImpl runs f once per implementation this CPU runs, with that
// implementation selected.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, name := range Implementations() {
		t.Run(name, func(t *testing.T) {
			prev, err := SetImplementation(name)
			if err != nil {
				t.Fatal(err)
			}
			defer SetImplementation(prev)
			f(t)
		})
	}
}

// randSlice returns n values uniform in [-1, 1).
func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = 2*rng.Float32() - 1
	}
	return s
}

// randLargeSlice is randSlice in HugePageFloats' pages.
func randLargeSlice(rng *rand.Rand, n int) []float32 {
	s := HugePageFloats(n)
	for i := range s {
		s[i] = 2*rng.Float32() - 1
	}
	return s
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// close32 reports whether got is within tol of want, relative to scale.
func close32(got, want, tol, scale float32) bool {
	if math.IsNaN(float64(got)) || math.IsNaN(float64(want)) {
		return false
	}
	return math.Abs(float64(got-want)) <= float64(tol*scale)
}

// expectPanic runs f and checks that it panics with a message that starts
// with "kernel: " and contains want.
func expectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		msg, _ := r.(string)
		if !strings.HasPrefix(msg, "kernel: ") || !strings.Contains(msg, want) {
			t.Fatalf("panic %v, want a kernel: panic mentioning %q", r, want)
		}
	}()
	f()
}

// TestKernelsEnv checks the choice SPARKNET_KERNELS makes: a name this CPU
// runs is selected (in any case), an empty value keeps the choice, and an
// unknown name is an error that lists the names and changes nothing.
func TestKernelsEnv(t *testing.T) {
	prev := Implementation()
	defer SetImplementation(prev)
	if err := chooseFromEnv(" GO "); err != nil || Implementation() != "go" {
		t.Fatalf("chooseFromEnv(GO): %v, implementation %s", err, Implementation())
	}
	if err := chooseFromEnv(""); err != nil || Implementation() != "go" {
		t.Fatalf("chooseFromEnv(\"\"): %v, implementation %s", err, Implementation())
	}
	err := chooseFromEnv("avx3")
	if err == nil || !strings.Contains(err.Error(), "SPARKNET_KERNELS=avx3") || !strings.Contains(err.Error(), "go") {
		t.Fatalf("chooseFromEnv(avx3) = %v, want an error naming the variable and the choices", err)
	}
	if Implementation() != "go" {
		t.Fatalf("a bad name changed the implementation to %s", Implementation())
	}
}
