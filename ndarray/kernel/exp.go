package kernel

import (
	"fmt"
	"math"
)

// ExpF32 sets dst[i] to float32(math.Exp(float64(src[i]))) for every i,
// bit for bit; dst may be src. The AVX-512 kernel computes eight values at
// once with the float64 operations that math.Exp does on amd64 with FMA,
// in the same order, for values within ±expLimit; the others (and the
// values past the last whole step) go through math.Exp.
func ExpF32(dst, src []float32) {
	if len(dst) != len(src) {
		panic(fmt.Sprintf("kernel: ExpF32: %d values into %d", len(src), len(dst)))
	}
	for i := 0; i < len(src); {
		i += expVec(dst[i:], src[i:])
		end := len(src)
		if i+expStep <= end {
			end = i + expStep // a step the kernel left: out of its range
		}
		for ; i < end; i++ {
			dst[i] = float32(math.Exp(float64(src[i])))
		}
	}
}

// expStep is how many values a step of the vector kernel computes.
const expStep = 8

// expLimit bounds the values the vector kernel computes: within it,
// math.Exp's result is a normal float64 (the power of two it multiplies
// by has an exponent field in 1..2046).
const expLimit = 700

// expTable is the vector kernel's table of constants: the limits,
// log2(e), ln 2 in an upper part (low bits zero, so that its product by
// the exponent is exact) and the rest, 1/16, the coefficients 1/(j+1)! of
// the polynomial from j = 7 down to 0, 2, and the float64 exponent bias
// as an integer.
var expTable = [16]float64{
	-expLimit, expLimit,
	0x1.71547652b82fep+0,
	0x1.62e42fefa3000p-1, 0x1.3de6af278ece6p-42,
	1.0 / 16,
	1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2, 1,
	2,
	math.Float64frombits(1023),
}
