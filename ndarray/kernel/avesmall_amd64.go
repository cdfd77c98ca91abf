//go:build !noasm

package kernel

// avePool3s2Small512 is avePool3s2AVX512 where whole vectors of planes
// fit: planes of width 2·outW for outW 8 or 4 run 16/outW planes to a
// vector (aveSmall8AVX512, aveSmall4AVX512), the planes left over and
// other shapes plane by plane.
func avePool3s2Small512(y, x []float32, planes, height, width, outH, outW int) {
	if width == 2*outW && (outW == 8 || outW == 4) {
		g := 16 / outW
		if groups := planes / g; groups > 0 {
			if outW == 8 {
				aveSmall8AVX512(&y[0], &x[0], groups, height, outH)
			} else {
				aveSmall4AVX512(&y[0], &x[0], groups, height, outH)
			}
			done := groups * g
			if done == planes {
				return
			}
			y, x, planes = y[done*outH*outW:], x[done*height*width:], planes-done
		}
	}
	avePool3s2AVX512(&y[0], &x[0], planes, height, width, outH, outW)
}

// avePoolBack3s2Small512 is avePoolBack3s2AVX512 where whole vectors of
// planes fit: planes of width 8 (4 outputs a row) run 4 planes to a
// vector (aveSmallBack4AVX512), the planes left over and other shapes
// plane by plane. (Planes 16 wide gained nothing by 2 to a vector: their
// gradient's 1 KB planes are bound by the stores.)
func avePoolBack3s2Small512(dx, dy []float32, planes, height, width, outH, outW int) {
	if width == 8 && outW == 4 {
		if groups := planes / 4; groups > 0 {
			aveSmallBack4AVX512(&dx[0], &dy[0], groups, height, outH)
			done := groups * 4
			if done == planes {
				return
			}
			dx, dy, planes = dx[done*height*width:], dy[done*outH*outW:], planes-done
		}
	}
	avePoolBack3s2AVX512(&dx[0], &dy[0], planes, height, width, outH, outW)
}

// avePool3s2Small256 is avePool3s2AVX2 where whole vectors of planes fit:
// planes of width 8 (4 outputs a row) run 2 planes to a vector
// (aveSmall4AVX2), the planes left over and other shapes plane by plane.
func avePool3s2Small256(y, x []float32, planes, height, width, outH, outW int) {
	if width == 8 && outW == 4 {
		if groups := planes / 2; groups > 0 {
			aveSmall4AVX2(&y[0], &x[0], groups, height, outH)
			done := groups * 2
			if done == planes {
				return
			}
			y, x, planes = y[done*outH*outW:], x[done*height*width:], planes-done
		}
	}
	avePool3s2AVX2(&y[0], &x[0], planes, height, width, outH, outW)
}

// The whole-vector pooling kernels (maxPool3s2OverAVX512 and the 2×2
// ones) read up to 33 floats past an input row and 15 values past an
// output row and write as far past them on planes of one strip of outputs,
// which land in the next plane when a plane has at least overPlane inputs
// and overRow outputs: they run on all the planes of a call but its last,
// which the masked kernels finish. (Masked loads and stores cost several
// times plain ones on Zen 5.)
const overPlane, overRow = 34, 16

// overPlanes reports how many of planes planes of hw inputs and o
// outputs the whole-vector kernels may take.
func overPlanes(planes, hw, o int) int {
	if hw < overPlane || o < overRow {
		return 0
	}
	return max(0, planes-1)
}

// maxPool3s2Over512 and maxPool2s2Over512 are maxPool3s2AVX512 and
// maxPool2s2AVX512, by their Over kernels on the planes those may take.
var (
	maxPool3s2Over512 = maxPoolOver(maxPool3s2OverAVX512, maxPool3s2AVX512)
	maxPool2s2Over512 = maxPoolOver(maxPool2s2OverAVX512, maxPool2s2AVX512)
)

// maxPoolOver returns a max pooling of planes that runs over, which loads
// and stores whole vectors, on the planes overPlanes allows, and masked on
// the rest.
func maxPoolOver(over, masked func(y *float32, mask *int32, x *float32, planes, height, width, outH, outW int)) func(y []float32, mask []int32, x []float32, planes, height, width, outH, outW int) {
	return func(y []float32, mask []int32, x []float32, planes, height, width, outH, outW int) {
		hw, o := height*width, outH*outW
		if n := overPlanes(planes, hw, o); n > 0 {
			over(&y[0], &mask[0], &x[0], n, height, width, outH, outW)
			y, mask, x, planes = y[n*o:], mask[n*o:], x[n*hw:], planes-n
		}
		masked(&y[0], &mask[0], &x[0], planes, height, width, outH, outW)
	}
}

// maxPoolBack2s2Over512 is maxPoolBack2s2AVX512, by
// maxPoolBack2s2OverAVX512 on the planes it may take.
func maxPoolBack2s2Over512(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) {
	hw, o := height*width, outH*outW
	if n := overPlanes(planes, hw, o); n > 0 {
		maxPoolBack2s2OverAVX512(&dx[0], &dy[0], &mask[0], n, height, width, outH, outW)
		dx, dy, mask, planes = dx[n*hw:], dy[n*o:], mask[n*o:], planes-n
	}
	maxPoolBack2s2AVX512(&dx[0], &dy[0], &mask[0], planes, height, width, outH, outW)
}
