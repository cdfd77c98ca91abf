package ndarray

import (
	"math"
	"math/rand/v2"
)

// Random fills take a seed, so the same seed gives the same values on every
// machine and in every run. They write into the receiver and return it, so
// fills chain after constructors: ndarray.New(20, 1, 5, 5).FillXavier(1).

// RNG is the random source of the fills: a PCG generator seeded from one
// number.
type RNG struct {
	r   *rand.Rand
	pcg *rand.PCG // r's source
}

// NewRNG returns a generator seeded with seed.
func NewRNG(seed uint64) *RNG {
	p := rand.NewPCG(PCGSeeds(seed))
	return &RNG{r: rand.New(p), pcg: p}
}

// PCGSeeds returns the two seeds of the PCG generator that NewRNG makes
// for seed, for code that keeps a rand.PCG of its own on the same stream.
func PCGSeeds(seed uint64) (seed1, seed2 uint64) { return seed, seed ^ 0x9e3779b97f4a7c15 }

// Float32 returns a uniform value in [0, 1): bits 32 to 55 of the next
// Uint64, over 2²⁴.
func (g *RNG) Float32() float32 { return g.r.Float32() }

// Uint64 returns the next 64 uniform bits of the stream that the other
// methods draw from (Float32 takes one such value).
func (g *RNG) Uint64() uint64 { return g.pcg.Uint64() }

// NormFloat64 returns a standard normal value.
func (g *RNG) NormFloat64() float64 { return g.r.NormFloat64() }

// IntN returns a uniform value in [0, n).
func (g *RNG) IntN(n int) int { return g.r.IntN(n) }

// Uniform fills the array with values drawn uniformly from [lo, hi).
func (g *RNG) Uniform(a *Array, lo, hi float32) *Array {
	a.each(func(off int) { a.data[off] = lo + (hi-lo)*g.r.Float32() })
	return a
}

// Gaussian fills the array with values from N(mean, std²).
func (g *RNG) Gaussian(a *Array, mean, std float32) *Array {
	a.each(func(off int) { a.data[off] = mean + std*float32(g.r.NormFloat64()) })
	return a
}

// FanMode chooses the n of Caffe's xavier and msra fillers.
type FanMode int

// Fan modes, as Caffe's VarianceNorm.
const (
	FanIn FanMode = iota
	FanOut
	FanAverage
)

// fan returns Caffe's n for a weight array: fan_in = count/shape(0),
// fan_out = count/shape(1) (count for 1-D arrays).
func fan(a *Array, mode FanMode) float64 {
	count := a.Size()
	if count == 0 || len(a.shape) == 0 || a.shape[0] == 0 {
		return 1
	}
	in := float64(count / a.shape[0])
	out := float64(count)
	if len(a.shape) > 1 && a.shape[1] > 0 {
		out = float64(count / a.shape[1])
	}
	switch mode {
	case FanOut:
		return out
	case FanAverage:
		return (in + out) / 2
	}
	return in
}

// Xavier fills the array as Caffe's xavier filler: uniform on
// [-sqrt(3/n), sqrt(3/n)] with n chosen by mode.
func (g *RNG) Xavier(a *Array, mode FanMode) *Array {
	s := float32(math.Sqrt(3 / fan(a, mode)))
	return g.Uniform(a, -s, s)
}

// MSRA fills the array as Caffe's msra filler: N(0, 2/n) with n chosen by
// mode.
func (g *RNG) MSRA(a *Array, mode FanMode) *Array {
	return g.Gaussian(a, 0, float32(math.Sqrt(2/fan(a, mode))))
}

// FillUniform fills a with U[lo, hi] values from seed and returns a.
func (a *Array) FillUniform(seed uint64, lo, hi float32) *Array {
	return NewRNG(seed).Uniform(a, lo, hi)
}

// FillGaussian fills a with N(mean, std²) values from seed and returns a.
func (a *Array) FillGaussian(seed uint64, mean, std float32) *Array {
	return NewRNG(seed).Gaussian(a, mean, std)
}

// FillXavier fills a as Caffe's xavier filler (fan in) from seed.
func (a *Array) FillXavier(seed uint64) *Array { return NewRNG(seed).Xavier(a, FanIn) }

// FillMSRA fills a as Caffe's msra filler (fan in) from seed.
func (a *Array) FillMSRA(seed uint64) *Array { return NewRNG(seed).MSRA(a, FanIn) }

// Rand returns an array of the given shape with U[0, 1) values from seed.
func Rand(seed uint64, shape ...int) *Array { return New(shape...).FillUniform(seed, 0, 1) }

// Randn returns an array of the given shape with N(0, 1) values from seed.
func Randn(seed uint64, shape ...int) *Array { return New(shape...).FillGaussian(seed, 0, 1) }
