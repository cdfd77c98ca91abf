package ndarray

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Encoding is a compact wire form of float32 vectors, for moving weight
// updates between processes. BFloat16 and Float16 keep every value in 16
// bits; Sparse keeps only the nonzero values, with their positions.
//
// Round first replaces values with ones the encoding holds exactly; after
// that Encode and AddDecoded move them without loss, so the receiver adds
// exactly the values the sender rounded to. What Round changed (the
// rounding error) is the sender's to keep: error feedback adds it to the
// next vector it sends.
type Encoding interface {
	// Round replaces every value of xs, in place, with the nearest value
	// the encoding represents.
	Round(xs []float32)
	// EncodedLen returns the length of Encode's output for xs.
	EncodedLen(xs []float32) int
	// Encode appends the encoding of xs to dst, whose values must be
	// rounded (Round) already.
	Encode(dst []byte, xs []float32) []byte
	// AddDecoded adds the values that b encodes to sum, which has as
	// many values as the vector that was encoded.
	AddDecoded(sum []float32, b []byte) error
	// String names the encoding: "bfloat16", "float16" or "sparse".
	String() string
}

// BFloat16 is the 16-bit brain floating-point format: float32's sign and
// 8-bit exponent with 7 bits of mantissa, so it covers float32's range
// with about 3 significant digits. Round rounds to nearest, ties to even.
var BFloat16 Encoding = bfloat16{}

// Float16 is IEEE 754 half precision: 5-bit exponent, 10-bit mantissa,
// about 3.3 significant digits between 6.1e-5 and 65504 (subnormals down
// to 6e-8). Round rounds to nearest, ties to even, and saturates values
// beyond ±65504 to ±65504 rather than making them infinite.
var Float16 Encoding = float16{}

// Sparse encodes the nonzero values of a vector, in float32, with their
// positions: a vector with m nonzeros takes about 5 to 9 bytes per
// nonzero, however long it is. Round leaves values as they are (Sparse is
// lossless); make a vector sparse with TopK first.
var Sparse Encoding = sparse{}

// ToBFloat16 returns the bfloat16 nearest x (ties to even).
func ToBFloat16(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep it a (quiet) NaN
		return uint16(b>>16) | 0x0040
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// FromBFloat16 returns the float32 a bfloat16 holds.
func FromBFloat16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// ToFloat16 returns the IEEE half-precision value nearest x (ties to
// even), saturating at ±65504.
func ToFloat16(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff && man != 0: // NaN
		return sign | 0x7e00
	case exp == 0xff: // infinity saturates too
		return sign | 0x7bff
	}
	e := exp - 127 + 15 // the half's biased exponent
	if e >= 31 {
		return sign | 0x7bff
	}
	if e <= 0 {
		// Subnormal in half precision (or zero): the value in units of
		// 2^-24, rounded to nearest even.
		if e < -10 {
			return sign // below half the smallest subnormal
		}
		m := man | 0x800000 // the implicit 1
		shift := uint(14 - e)
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || rest == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | man>>13
	rest := man & 0x1fff
	if rest > 0x1000 || rest == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, which is right
	}
	if h >= 0x7c00 {
		return sign | 0x7bff
	}
	return sign | uint16(h)
}

// FromFloat16 returns the float32 a half-precision value holds.
func FromFloat16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: man·2^-24
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

type bfloat16 struct{}

func (bfloat16) Round(xs []float32) {
	for i, x := range xs {
		xs[i] = FromBFloat16(ToBFloat16(x))
	}
}

func (bfloat16) EncodedLen(xs []float32) int { return 2 * len(xs) }

func (bfloat16) Encode(dst []byte, xs []float32) []byte {
	dst = slices.Grow(dst, 2*len(xs))
	for _, x := range xs {
		dst = binary.LittleEndian.AppendUint16(dst, ToBFloat16(x))
	}
	return dst
}

func (bfloat16) AddDecoded(sum []float32, b []byte) error {
	if len(b) != 2*len(sum) {
		return fmt.Errorf("%w: %d bytes of bfloat16 for %d values", ErrCorrupt, len(b), len(sum))
	}
	for i := range sum {
		sum[i] += FromBFloat16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return nil
}

func (bfloat16) String() string { return "bfloat16" }

type float16 struct{}

func (float16) Round(xs []float32) {
	for i, x := range xs {
		xs[i] = FromFloat16(ToFloat16(x))
	}
}

func (float16) EncodedLen(xs []float32) int { return 2 * len(xs) }

func (float16) Encode(dst []byte, xs []float32) []byte {
	dst = slices.Grow(dst, 2*len(xs))
	for _, x := range xs {
		dst = binary.LittleEndian.AppendUint16(dst, ToFloat16(x))
	}
	return dst
}

func (float16) AddDecoded(sum []float32, b []byte) error {
	if len(b) != 2*len(sum) {
		return fmt.Errorf("%w: %d bytes of float16 for %d values", ErrCorrupt, len(b), len(sum))
	}
	for i := range sum {
		sum[i] += FromFloat16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return nil
}

func (float16) String() string { return "float16" }

// sparse: uvarint count, then per nonzero the uvarint gap from the end of
// the previous one (its index for the first) and its float32 value.
type sparse struct{}

func (sparse) Round([]float32) {}

func (sparse) EncodedLen(xs []float32) int {
	n, next, count := 0, 0, 0
	for i, x := range xs {
		if x != 0 {
			n += uvarintLen(uint64(i-next)) + 4
			next = i + 1
			count++
		}
	}
	return n + uvarintLen(uint64(count))
}

func (sparse) Encode(dst []byte, xs []float32) []byte {
	count := 0
	for _, x := range xs {
		if x != 0 {
			count++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(count))
	next := 0
	for i, x := range xs {
		if x != 0 {
			dst = binary.AppendUvarint(dst, uint64(i-next))
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
			next = i + 1
		}
	}
	return dst
}

func (sparse) AddDecoded(sum []float32, b []byte) error {
	count, n := binary.Uvarint(b)
	if n <= 0 || count > uint64(len(sum)) {
		return fmt.Errorf("%w: a sparse vector of %d values says it has %d nonzeros", ErrCorrupt, len(sum), count)
	}
	b = b[n:]
	next := uint64(0)
	for k := uint64(0); k < count; k++ {
		gap, n := binary.Uvarint(b)
		if n <= 0 || len(b) < n+4 {
			return fmt.Errorf("%w: sparse vector cut short at nonzero %d of %d", ErrCorrupt, k, count)
		}
		i := next + gap
		if gap > uint64(len(sum)) || i >= uint64(len(sum)) {
			return fmt.Errorf("%w: sparse index %d outside a vector of %d values", ErrCorrupt, i, len(sum))
		}
		sum[i] += math.Float32frombits(binary.LittleEndian.Uint32(b[n:]))
		b = b[n+4:]
		next = i + 1
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: %d bytes after the sparse vector's %d nonzeros", ErrCorrupt, len(b), count)
	}
	return nil
}

func (sparse) String() string { return "sparse" }

// TopK keeps the k values of xs largest in magnitude and sets the others
// to zero, in place. Among values of equal magnitude at the threshold the
// first ones are kept, so the result is exactly k nonzeros (fewer when xs
// has fewer nonzero values) and depends on nothing but xs.
func TopK(xs []float32, k int) {
	if k >= len(xs) {
		return
	}
	if k <= 0 {
		clear(xs)
		return
	}
	mags := make([]float32, len(xs))
	for i, x := range xs {
		mags[i] = float32(math.Abs(float64(x)))
	}
	t := kthLargest(mags, k)
	// Everything above the threshold stays; values at it fill up to k.
	above := 0
	for _, x := range xs {
		if float32(math.Abs(float64(x))) > t {
			above++
		}
	}
	ties := k - above
	for i, x := range xs {
		m := float32(math.Abs(float64(x)))
		switch {
		case m > t:
		case m == t && ties > 0:
			ties--
		default:
			xs[i] = 0
		}
	}
}

// kthLargest returns the k-th largest of xs (1-based), reordering xs: a
// quickselect with median-of-three pivots.
func kthLargest(xs []float32, k int) float32 {
	lo, hi := 0, len(xs)-1
	want := k - 1 // index in descending order
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Median of three as the pivot, moved to hi.
		if xs[mid] > xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] > xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[mid] > xs[hi] {
			xs[mid], xs[hi] = xs[hi], xs[mid]
		}
		p := xs[hi]
		// Three-way partition, descending: > p, == p, < p.
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch {
			case xs[i] > p:
				xs[lt], xs[i] = xs[i], xs[lt]
				lt++
				i++
			case xs[i] < p:
				xs[gt], xs[i] = xs[i], xs[gt]
				gt--
			default:
				i++
			}
		}
		switch {
		case want < lt:
			hi = lt - 1
		case want > gt:
			lo = gt + 1
		default:
			return p
		}
	}
	return xs[want]
}
