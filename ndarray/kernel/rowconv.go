package kernel

import (
	"fmt"
	"unsafe"
)

// Row convolution: one image at a time, in its own layout.
//
// A RowConv computes a 2-D convolution with stride 1, no dilation and one
// group on one image (NCHW) at a time, the output pixels of a row in the
// lanes of a vector: a tile of up to MR output channels of two output
// rows, two vectors of each, stays in registers while each weight is
// broadcast and multiplied into the four input vectors it meets, read
// from a zero-padded copy of the image through a table of offsets. It is
// meant for convolutions with few input channels and many outputs
// (CIFAR-10 quick's first: 3 channels, 32 outputs, 32×32 pixels), whose
// outputs are many for their work: it writes them in place, where the
// direct convolution's interleaved blocks would transpose them.
//
// It takes output rows whose width is a multiple of two vectors, an even
// number of them, and at most gemmImpl.kc weights per output channel;
// each output value is then the sum of the same products, in the same
// order (Caffe's: channel, kernel row, kernel column, the padding's zeros
// included) as on the column path (im2col and the blocked product), the
// bias added last, so the two give the same bits.
type RowConv struct {
	k          *rowKernels
	c, h, w, m int
	kh, kw     int
	padH, padW int
	oh, ow     int
	ph, pw     int
	kk         int
	off        []int32
	tiles      []dtile
	wp         []float32
}

// rowKernels is one implementation's row-convolution kernels.
type rowKernels struct {
	lanes int // floats per vector
	mr    int // largest tile (output channels)
	// conv computes, for npair pairs of vectors g along the rows, for
	// i < mr, r < 2, v < 2:
	// y[i·ych + r·yrow + (2g+v)·V] = Σ_kk a[kk·mr+i] · x[off[kk] + r·xrow + (2g+v)·V] (+ bias[i]),
	// with byte offsets and strides, V the vector's bytes, the sum over
	// kk < k in order from zero and bias (unless nil) added last.
	conv func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32)
}

// NewRowConv plans the row convolution of images of channels × height ×
// width into outputs channels with a kh×kw kernel and padding padH×padW
// (stride 1, no dilation, one group). It returns nil if the kernels in
// use have none or the geometry is not one it takes (see RowConv).
func NewRowConv(channels, height, width, outputs, kh, kw, padH, padW int) *RowConv {
	return newRowConv(rowKernelsOf(active), channels, height, width, outputs, kh, kw, padH, padW)
}

func newRowConv(k *rowKernels, channels, height, width, outputs, kh, kw, padH, padW int) *RowConv {
	if k == nil || channels <= 0 || height <= 0 || width <= 0 || outputs <= 0 || kh <= 0 || kw <= 0 || padH < 0 || padW < 0 {
		return nil
	}
	d := &RowConv{
		k: k, c: channels, h: height, w: width, m: outputs, kh: kh, kw: kw, padH: padH, padW: padW,
		oh: ConvOutSize(height, kh, padH, 1, 1), ow: ConvOutSize(width, kw, padW, 1, 1),
		ph: height + 2*padH, pw: width + 2*padW, kk: channels * kh * kw,
	}
	if d.oh <= 0 || d.ow <= 0 || d.oh%2 != 0 || d.ow%(2*k.lanes) != 0 || d.kk > active.kc {
		return nil
	}
	for c := range channels {
		for ki := range kh {
			for kj := range kw {
				d.off = append(d.off, int32(((c*d.ph+ki)*d.pw+kj)*4))
			}
		}
	}
	d.tiles = tiles(outputs, k.mr)
	d.wp = make([]float32, outputs*d.kk)
	return d
}

// PaddedSize returns the floats of the padded image Forward works on.
func (d *RowConv) PaddedSize() int { return d.c * d.ph * d.pw }

// Pack packs the weights, Caffe's [outputs][channels][kh][kw], for
// Forward.
func (d *RowConv) Pack(w []float32) {
	if need := d.m * d.kk; len(w) < need {
		panic(fmt.Sprintf("kernel: RowConv.Pack: len(w) = %d, want >= %d", len(w), need))
	}
	// Tile t holds [k][i] = W[r0+i][k].
	for _, t := range d.tiles {
		dst := d.wp[t.r0*d.kk : (t.r0+t.h)*d.kk]
		for i := range t.h {
			for k, v := range w[(t.r0+i)*d.kk : (t.r0+i+1)*d.kk] {
				dst[k*t.h+i] = v
			}
		}
	}
}

// Forward convolves the image x (channels×height×width) into y
// (outputs×outH×outW), adding bias (per output channel) if not nil, with
// the weights packed by Pack. pad (PaddedSize floats) holds the padded
// image: its border must be zero (as made), its inside is overwritten.
func (d *RowConv) Forward(pad, x, y, bias []float32) {
	switch {
	case len(pad) < d.PaddedSize():
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(pad) = %d, want >= %d", len(pad), d.PaddedSize()))
	case len(x) < d.c*d.h*d.w:
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(x) = %d, want >= %d", len(x), d.c*d.h*d.w))
	case len(y) < d.m*d.oh*d.ow:
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(y) = %d, want >= %d", len(y), d.m*d.oh*d.ow))
	case bias != nil && len(bias) < d.m:
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(bias) = %d, want >= %d", len(bias), d.m))
	}
	for c := range d.c {
		for r := range d.h {
			copy(pad[(c*d.ph+r+d.padH)*d.pw+d.padW:][:d.w], x[(c*d.h+r)*d.w:][:d.w])
		}
	}
	const f = 4
	P := d.oh * d.ow
	npair := d.ow / (2 * d.k.lanes)
	for _, t := range d.tiles {
		var b *float32
		if bias != nil {
			b = &bias[t.r0]
		}
		for oy := 0; oy < d.oh; oy += 2 {
			d.k.conv(t.h, d.kk, &d.wp[t.r0*d.kk], &pad[oy*d.pw], &d.off[0], d.pw*f,
				&y[t.r0*P+oy*d.ow], d.ow*f, P*f, npair, b)
		}
	}
}

// rowConvGo is the portable row-convolution kernel of lanes floats per
// vector: the reference the assembly is tested against.
func rowConvGo(lanes int) func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32) {
	return func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32) {
		as := unsafe.Slice(a, k*mr)
		offs := unsafe.Slice(off, k)
		for g := range npair {
			for i := range mr {
				for r := range 2 {
					for l := range 2 * lanes {
						px := 4 * (2*g*lanes + l)
						var s float32
						for kk := range k {
							s += as[kk*mr+i] * *at(x, int(offs[kk])+r*xrow+px)
						}
						if bias != nil {
							s += *at(bias, 4*i)
						}
						*at(y, i*ych+r*yrow+px) = s
					}
				}
			}
		}
	}
}
