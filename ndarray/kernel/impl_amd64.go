//go:build !noasm

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

var (
	sgemmAVX512Kernels = [...]func(k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool){
		sgemmAVX512x1, sgemmAVX512x2, sgemmAVX512x3, sgemmAVX512x4, sgemmAVX512x5,
		sgemmAVX512x6, sgemmAVX512x7, sgemmAVX512x8, sgemmAVX512x9, sgemmAVX512x10,
		sgemmAVX512x11, sgemmAVX512x12, sgemmAVX512x13, sgemmAVX512x14,
	}
	sgemmAVX2Kernels = [...]func(k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool){
		sgemmAVX2x1, sgemmAVX2x2, sgemmAVX2x3, sgemmAVX2x4, sgemmAVX2x5, sgemmAVX2x6,
	}
)

type (
	directTileFunc = func(k, krows, kskip int, a, x *float32, off *int32, xstep int, y *float32, ystep, npix int, loadY bool)
	directGradFunc = func(dy *float32, dyRow, dyStep int, x *float32, offs *int32, xRow, xStep, oh, ow int, acc *float32, accRow int, load bool)
	directSeqFunc  = func(dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int)
)

var (
	directTileAVX512 = [...]directTileFunc{
		directTileAVX512x1, directTileAVX512x2, directTileAVX512x3, directTileAVX512x4, directTileAVX512x5,
		directTileAVX512x6, directTileAVX512x7, directTileAVX512x8, directTileAVX512x9, directTileAVX512x10,
		directTileAVX512x11, directTileAVX512x12, directTileAVX512x13, directTileAVX512x14,
	}
	directGradAVX512 = [...]directGradFunc{
		directGradAVX512x1, directGradAVX512x2, directGradAVX512x3, directGradAVX512x4, directGradAVX512x5,
	}
	directTileAVX2 = [...]directTileFunc{
		directTileAVX2x1, directTileAVX2x2, directTileAVX2x3, directTileAVX2x4, directTileAVX2x5, directTileAVX2x6,
	}
	directGradAVX2      = [...]directGradFunc{directGradAVX2x1, directGradAVX2x2, directGradAVX2x3}
	directGradSeqAVX2   = [...]directSeqFunc{directGradSeqAVX2x1, directGradSeqAVX2x2, directGradSeqAVX2x3}
	directGradSeqAVX512 = [...]directSeqFunc{
		directGradSeqAVX512x1, directGradSeqAVX512x2, directGradSeqAVX512x3, directGradSeqAVX512x4, directGradSeqAVX512x5,
	}
)

var avx512Gemm = &gemmImpl{
	name: "avx512", mr: len(sgemmAVX512Kernels), nr: 32, kc: 256, mc: 256, nc: 1024,
	kernel: func(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool) {
		sgemmAVX512Kernels[mr-1](k, a, b, c, ldc, nr, beta, loadC)
	},
	copyChunks:     copyChunksAVX512,
	packATile:      packAAVX512,
	packATransTile: packATransAVX512,
	packRows:       16,
	vec:            avx512Vec,
	peak:           peakProbe{run: fmaPeakAVX512, flops: 12 * 16 * 2, desc: "12 chains of 512-bit FMAs"},
	direct: &directKernels{
		lanes: 16, mr: len(directTileAVX512), gmr: len(directGradAVX512), gnr: 5,
		tile: func(mr, k, krows, kskip int, a, x *float32, off *int32, xstep int, y *float32, ystep, npix int, loadY bool) {
			directTileAVX512[mr-1](k, krows, kskip, a, x, off, xstep, y, ystep, npix, loadY)
		},
		grad: func(mr int, dy *float32, dyRow, dyStep int, x *float32, offs *int32, xRow, xStep, oh, ow int, acc *float32, accRow int, load bool) {
			directGradAVX512[mr-1](dy, dyRow, dyStep, x, offs, xRow, xStep, oh, ow, acc, accRow, load)
		},
		gradSeq: func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
			directGradSeqAVX512[mr-1](dy, dyStep, dySkip, x, offs, xSkip, oh, ow, acc, accRow, load, groups, pf)
		},
		interleave: interleaveAVX512, deinterleave: deinterleaveAVX512, laneSums: laneSumsAVX512, laneSumsSet: laneSumsSetAVX512, planeSums: planeSumsAVX512, planeSumsAt: planeSumsAtAVX512, sumBuckets: 64, sumWidth: 16, planeSumsAdd: planeSumsAddAVX512,
		maxPool: dpoolMaxAVX512, unpool: dunpoolAVX512, deinterleaveStream: deinterleaveStreamAVX512,
		biasRelu: dbiasReluAVX512, reluGradBits: dreluGradBitsAVX512, avePool: dpoolAveAVX512,
		unpoolAdd: dunpoolAddAVX512, spreadAve: dspreadAveAVX512, putRows: dputRowsAVX512,
		packTile: packAAVX512,
		winoIn:   winoInAVX512, winoOut: winoOutAVX512, winoFilter: winoFilterAVX512,
		winoIn6: winoIn6AVX512, winoOut6: winoOut6AVX512,
	},
}

var avx2Gemm = &gemmImpl{
	name: "avx2", mr: len(sgemmAVX2Kernels), nr: 16, kc: 256, mc: 192, nc: 1024,
	kernel: func(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool) {
		sgemmAVX2Kernels[mr-1](k, a, b, c, ldc, nr, beta, loadC)
	},
	copyChunks: copyChunksAVX2,
	packATile:  packAAVX2,
	packRows:   8,
	vec:        avx2Vec,
	peak:       peakProbe{run: fmaPeakAVX2, flops: 12 * 8 * 2, desc: "12 chains of 256-bit FMAs"},
	direct: &directKernels{
		lanes: 8, mr: len(directTileAVX2), gmr: len(directGradAVX2), gnr: 4,
		tile: func(mr, k, krows, kskip int, a, x *float32, off *int32, xstep int, y *float32, ystep, npix int, loadY bool) {
			directTileAVX2[mr-1](k, krows, kskip, a, x, off, xstep, y, ystep, npix, loadY)
		},
		grad: func(mr int, dy *float32, dyRow, dyStep int, x *float32, offs *int32, xRow, xStep, oh, ow int, acc *float32, accRow int, load bool) {
			directGradAVX2[mr-1](dy, dyRow, dyStep, x, offs, xRow, xStep, oh, ow, acc, accRow, load)
		},
		gradSeq: func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
			directGradSeqAVX2[mr-1](dy, dyStep, dySkip, x, offs, xSkip, oh, ow, acc, accRow, load, groups, pf)
		},
		interleave: interleaveAVX2, deinterleave: deinterleaveAVX2, laneSums: laneSumsAVX2, laneSumsSet: laneSumsSetAVX2, planeSums: planeSumsAVX2, planeSumsAt: planeSumsAtAVX2, sumBuckets: 32, sumWidth: 8, planeSumsAdd: planeSumsAddAVX2,
		maxPool: dpoolMaxAVX2, unpool: dunpoolAVX2, deinterleaveStream: deinterleaveStreamAVX2,
		biasRelu: dbiasReluAVX2, reluGradBits: dreluGradBitsAVX2, avePool: dpoolAveAVX2,
		unpoolAdd: dunpoolAddAVX2, spreadAve: dspreadAveAVX2, putRows: dputRowsAVX2,
		packTile: packAAVX2,
		winoIn:   winoInAVX2, winoOut: winoOutAVX2, winoFilter: winoFilterAVX2,
		winoIn6: winoIn6AVX2, winoOut6: winoOut6AVX2,
	},
}

var avx512Vec = &vecImpl{
	name: "avx512", axpy: axpyAVX512, axpby: axpbyAVX512, scale: scaleAVX512,
	sgd: func(w, g, h []float32, decay, rate, momentum float32) {
		if decay == 0 {
			sgdNoDecayAVX512(w, g, h, decay, rate, momentum)
		} else {
			sgdAVX512(w, g, h, decay, rate, momentum)
		}
	},
	add: addAVX512, mul: mulAVX512, dot: dotAVX512, sum: sumAVX512, sumRows: sumRowsAVX512, max: maxAVX512,
	exp:      func(dst, x []float32) { expBlocks(true, dst, x) },
	copyRows: copyRowsAsm, addRows: addRowsAsm, relu: reluAVX512, reluGrad: reluGradAVX512,
	maxPoolRow: maxPoolRowAsm, avePoolRow: avePoolRowAsm, div: divAVX512, sqrt: sqrtAVX512,
	maxPoolRows: maxPoolRowsAsm, avePoolRows: avePoolRowsAsm,
	maxPoolScatter: func(dx, dy []float32, mask []int32) {
		maxPoolBackAVX512(&dx[0], len(dx), &dy[0], &mask[0], len(mask))
	},
	maxPoolBack3s2: func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) {
		maxPoolBack3s2AVX512(&dx[0], &dy[0], &mask[0], planes, height, width, outH, outW)
	},
	maxPoolBack3s2NT: func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) bool {
		if width%32 != 0 || uintptr(unsafe.Pointer(&dx[0]))%64 != 0 {
			return false
		}
		maxPoolBack3s2NTAVX512(&dx[0], &dy[0], &mask[0], planes, height, width, outH, outW)
		return true
	},
	maxPool3s2:     maxPool3s2Over512,
	avePool3s2:     avePool3s2Small512,
	avePoolBack3s2: avePoolBack3s2Small512,
	maxPool2s2:     maxPool2s2Over512,
	maxPoolBack2s2: maxPoolBack2s2Over512,
	im2colRows: func(img, col []float32, off, ld, rows, cols, lo, hi, stride int) {
		im2colRowsAVX512(&img[0], &col[0], off, ld, rows, cols, lo, hi, stride)
	},
	col2imRows: func(img, col []float32, off, ld, rows, cols, lo, hi, stride int) {
		col2imRowsAVX512(&img[0], &col[0], off, ld, rows, cols, lo, hi, stride)
	},
	col2imImageRow: true, im2colChannel: im2colChannelAVX512,
}

var avx2Vec = &vecImpl{
	name: "avx2", axpy: axpyAVX2, axpby: axpbyAVX2, scale: scaleAVX2,
	sgd: func(w, g, h []float32, decay, rate, momentum float32) {
		if decay == 0 {
			sgdNoDecayAVX2(w, g, h, decay, rate, momentum)
		} else {
			sgdAVX2(w, g, h, decay, rate, momentum)
		}
	},
	add: addAVX2, mul: mulAVX2, dot: dotAVX2, sum: sumAVX2, sumRows: sumRowsAVX2, max: maxAVX2,
	exp:      func(dst, x []float32) { expBlocks(false, dst, x) },
	copyRows: copyRowsGo, addRows: addRowsGo, relu: reluBlocksAVX2, reluGrad: reluGradBlocksAVX2,
	maxPoolRow: maxPoolRowBlocksAVX2, avePoolRow: avePoolRowBlocksAVX2, div: divAVX2, sqrt: sqrtAVX2,
	maxPoolRows: maxPoolRowsBlocksAVX2, avePoolRows: avePoolRowsBlocksAVX2,
	maxPoolBack3s2: func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) {
		maxPoolBack3s2AVX2(&dx[0], &dy[0], &mask[0], planes, height, width, outH, outW)
	},
	maxPoolBack3s2NT: func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) bool {
		if width%8 != 0 || uintptr(unsafe.Pointer(&dx[0]))%32 != 0 {
			return false
		}
		maxPoolBack3s2NTAVX2(&dx[0], &dy[0], &mask[0], planes, height, width, outH, outW)
		return true
	},
	maxPool3s2: func(y []float32, mask []int32, x []float32, planes, height, width, outH, outW int) {
		maxPool3s2AVX2(&y[0], &mask[0], &x[0], planes, height, width, outH, outW)
	},
	avePool3s2: avePool3s2Small256,
	avePoolBack3s2: func(dx, dy []float32, planes, height, width, outH, outW int) {
		avePoolBack3s2AVX2(&dx[0], &dy[0], planes, height, width, outH, outW)
	},
	maxPool2s2: func(y []float32, mask []int32, x []float32, planes, height, width, outH, outW int) {
		maxPool2s2AVX2(&y[0], &mask[0], &x[0], planes, height, width, outH, outW)
	},
	maxPoolBack2s2: func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) {
		maxPoolBack2s2AVX2(&dx[0], &dy[0], &mask[0], planes, height, width, outH, outW)
	},
	im2colRows: im2colRowsAsmAVX2, col2imRows: col2imRowsAsmAVX2,
	im2colChannel: im2colChannelAVX2,
}

// available lists the implementations this CPU runs, fastest first.
func available() []*gemmImpl {
	var impls []*gemmImpl
	if cpu.X86.HasAVX512F && cpu.X86.HasBMI2 && cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		impls = append(impls, avx512Gemm)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		impls = append(impls, avx2Gemm)
	}
	return append(impls, goGemm)
}

// expBlocks runs the AVX-512 (wide) or AVX2 exp kernel, which handle
// whole vectors, on x, and on the tail through a buffer of one vector.
// The kernels are called directly so that the buffer stays on the stack.
func expBlocks(wide bool, dst, x []float32) {
	block := 8
	if wide {
		block = 16
	}
	full := len(x) - len(x)%block
	var buf [16]float32
	tail := buf[:block]
	copy(tail, x[full:])
	if wide {
		expAVX512(dst[:full], x[:full])
		expAVX512(tail, tail)
	} else {
		expAVX2(dst[:full], x[:full])
		expAVX2(tail, tail)
	}
	copy(dst[full:len(x)], tail)
}

// copyRowsAsm and addRowsAsm run the AVX-512 kernels on a checked,
// non-empty block.
func copyRowsAsm(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	copyRowsAVX512(&dst[0], ldd, &src[0], lds, rows, cols)
}

func addRowsAsm(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	addRowsAVX512(&dst[0], ldd, &src[0], lds, rows, cols)
}

// maxPoolRowAsm and avePoolRowAsm run the AVX-512 kernels, which take
// strides 1 and 2, on checked arguments with n >= 1; other strides take
// the portable code.
func maxPoolRowAsm(dst []float32, arg []int32, src []float32, n, rows, ld, kw, stride int, base int32) {
	if stride > 2 {
		maxPoolRowGo(dst, arg, src, n, rows, ld, kw, stride, base)
		return
	}
	maxPoolRowAVX512(&dst[0], &arg[0], &src[0], n, rows, ld, kw, stride, base)
}

func avePoolRowAsm(dst []float32, src []float32, n, rows, ld, kw, stride int, div float32) {
	if stride > 2 {
		avePoolRowGo(dst, src, n, rows, ld, kw, stride, div)
		return
	}
	avePoolRowAVX512(&dst[0], &src[0], n, rows, ld, kw, stride, div)
}

// maxPoolRowsAsm and avePoolRowsAsm run the AVX-512 kernels for strides
// 1 and 2 on checked arguments, and the row code for other strides.
func maxPoolRowsAsm(dst []float32, arg []int32, src []float32, count, n, rows, ld, kw, stride int, base int32, dstRow, srcRow int) {
	if stride > 2 {
		maxPoolRowsGo(maxPoolRowGo)(dst, arg, src, count, n, rows, ld, kw, stride, base, dstRow, srcRow)
		return
	}
	maxPoolRowsAVX512(&dst[0], &arg[0], &src[0], n, rows, ld, kw, stride, base, count, dstRow, srcRow)
}

func avePoolRowsAsm(dst []float32, src []float32, count, n, rows, ld, kw, stride int, div float32, dstRow, srcRow int) {
	if stride > 2 {
		avePoolRowsGo(avePoolRowGo)(dst, src, count, n, rows, ld, kw, stride, div, dstRow, srcRow)
		return
	}
	avePoolRowsAVX512(&dst[0], &src[0], n, rows, ld, kw, stride, div, count, dstRow, srcRow)
}

// maxPoolRowsBlocksAVX2 and avePoolRowsBlocksAVX2 run the AVX2 kernels
// for strides 1 and 2, with the whole blocks that the last row's source
// allows in every row.
func maxPoolRowsBlocksAVX2(dst []float32, arg []int32, src []float32, count, n, rows, ld, kw, stride int, base int32, dstRow, srcRow int) {
	if stride > 2 {
		maxPoolRowsGo(maxPoolRowGo)(dst, arg, src, count, n, rows, ld, kw, stride, base, dstRow, srcRow)
		return
	}
	full := poolBlocks(len(src)-(count-1)*srcRow, n, rows, ld, kw, stride, 8)
	maxPoolRowsAVX2(&dst[0], &arg[0], &src[0], n, full, rows, ld, kw, stride, base, count, dstRow, srcRow)
}

func avePoolRowsBlocksAVX2(dst []float32, src []float32, count, n, rows, ld, kw, stride int, div float32, dstRow, srcRow int) {
	if stride > 2 {
		avePoolRowsGo(avePoolRowGo)(dst, src, count, n, rows, ld, kw, stride, div, dstRow, srcRow)
		return
	}
	full := poolBlocks(len(src)-(count-1)*srcRow, n, rows, ld, kw, stride, 8)
	avePoolRowsAVX2(&dst[0], &src[0], n, full, rows, ld, kw, stride, div, count, dstRow, srcRow)
}

// poolBlocks returns how many blocks of width outputs of a pooling row
// (at most n/width) a vector kernel can compute while every whole vector
// it reads lies inside src: a block reads width·stride floats from each
// window column of each window row.
func poolBlocks(nsrc, n, rows, ld, kw, stride, width int) int {
	reach := (rows-1)*ld + kw - 1 + width*stride - 1 // the last float block 0 reads
	if reach >= nsrc {
		return 0
	}
	return min(n/width, (nsrc-1-reach)/(width*stride)+1)
}

// maxPoolRowBlocksAVX2 and avePoolRowBlocksAVX2 run the AVX2 kernels for
// strides 1 and 2: whole vectors for the blocks of 8 outputs poolBlocks
// allows, masked vectors for the rest. Other strides take the portable
// code.
func maxPoolRowBlocksAVX2(dst []float32, arg []int32, src []float32, n, rows, ld, kw, stride int, base int32) {
	if stride > 2 {
		maxPoolRowGo(dst, arg, src, n, rows, ld, kw, stride, base)
		return
	}
	full := poolBlocks(len(src), n, rows, ld, kw, stride, 8)
	maxPoolRowAVX2(&dst[0], &arg[0], &src[0], n, full, rows, ld, kw, stride, base)
}

func avePoolRowBlocksAVX2(dst []float32, src []float32, n, rows, ld, kw, stride int, div float32) {
	if stride > 2 {
		avePoolRowGo(dst, src, n, rows, ld, kw, stride, div)
		return
	}
	full := poolBlocks(len(src), n, rows, ld, kw, stride, 8)
	avePoolRowAVX2(&dst[0], &src[0], n, full, rows, ld, kw, stride, div)
}

// im2colRowsAsmAVX2 and col2imRowsAsmAVX2 run the AVX2 kernels for
// stride 1 and the portable code for other strides.
func im2colRowsAsmAVX2(img, col []float32, off, ld, rows, cols, lo, hi, stride int) {
	if stride != 1 {
		im2colRowsGo(img, col, off, ld, rows, cols, lo, hi, stride)
		return
	}
	_ = img[off+(rows-1)*ld+hi-1] // the image lanes read lie inside img
	_ = col[rows*cols-1]
	im2colRowsAVX2(&img[0], &col[0], off, ld, rows, cols, lo, hi)
}

func col2imRowsAsmAVX2(img, col []float32, off, ld, rows, cols, lo, hi, stride int) {
	if stride != 1 {
		col2imRowsGo(img, col, off, ld, rows, cols, lo, hi, stride)
		return
	}
	_ = img[off+(rows-1)*ld+hi-1]
	_ = col[(rows-1)*cols+hi-1]
	col2imRowsAVX2(&img[0], &col[0], off, ld, rows, cols, lo, hi)
}

// reluBlocksAVX2 and reluGradBlocksAVX2 run the AVX2 kernels on whole
// vectors of 8 and the portable code on the rest.
func reluBlocksAVX2(dst, x []float32, slope float32) {
	full := len(x) &^ 7
	reluAVX2(dst, x[:full], slope)
	reluGo(dst[full:], x[full:], slope)
}

func reluGradBlocksAVX2(dx, dy, x []float32, slope float32) {
	full := len(x) &^ 7
	reluGradAVX2(dx, dy, x[:full], slope)
	reluGradGo(dx[full:], dy[full:], x[full:], slope)
}

// col2imImageRow runs the AVX-512 kernel for one image row of a stride-1
// col2im (see col2imByImageRows). It is called directly, not through the
// implementation table, so that the tables stay on the caller's stack.
func col2imImageRow(dst, col []float32, masks []uint16, offs []int32, kiCount, kiStep, kw int) {
	col2imImageRowAVX512(&dst[0], &col[0], &masks[0], &offs[0], len(dst), kiCount, kiStep, kw)
}
