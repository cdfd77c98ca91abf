package kernel

import (
	"fmt"
	"unsafe"
)

// Direct convolution on interleaved images.
//
// A DirectConv computes a 2-D convolution with stride 1 and no dilation
// without column matrices. It works on blocks of L images (L = Lanes(),
// the floats of a vector: 16 with AVX-512, 8 with AVX2) whose values are
// interleaved: the L images' values of one channel at one pixel lie side
// by side, so one vector holds a pixel of every image of the block, and
// every multiply-add works on whole vectors whatever the size of the
// image. The interleaved blocks are laid out pixel-major and padded:
//
//	input    [H+2·padH][W+2·padW][C][L]   (the border zero)
//	output   [OH][OW][M][L]
//	gradient [OH+2·(kh−1−padH)][OW+2·(kw−1−padW)][M][L]
//
// (Forward and BackwardData compute their output a chunk of tiles of
// channels at a time, in a band whose pixels hold only the chunk's
// vectors: see directChunk.)
//
// The forward pass is a product whose B operand is read from the input
// block through a table of offsets, one per weight (kernel row, kernel
// column, channel): a tile of up to MR output channels for two pixels
// stays in registers while every weight of the tile is broadcast and
// multiplied into the pixels' vectors. The input gradient is the same
// product on the padded output gradient with the kernel flipped. The
// weight gradient multiplies, for a tile of output channels and of
// weights, the gradient vectors of every pixel into the input vectors the
// weights saw, summing over pixels and images in the lanes, and adds the
// lanes at the end. It reads its operands in layouts of its own, so that
// each kernel call streams through memory in order:
//
//	input    [C][H+2·padH][W+2·padW][L]   (channel-major, the border zero)
//	gradient [tile of outputs][OH][OW][rows of the tile][L]
//
// Each image block costs a transposition of its input and output (an
// interleave), which is small beside the products for the convolutions
// of small images with few channels that it is meant for.

// directKernels is one implementation's direct-convolution kernels.
type directKernels struct {
	lanes    int // images per block (floats per vector)
	mr       int // largest tile of the forward kernel (output channels)
	gmr, gnr int // tile of the weight-gradient kernel: output channels × weights
	// tile computes npix output pixels (pairs, then one) of mr channels:
	// y[p][i][l] (+)= Σ_kk a[kk·mr+i] · x[p·xstep + off[kk]][l], with
	// byte strides xstep and ystep between the pixels and byte offsets
	// off; kk runs over krows runs of k weights, each run k+kskip after
	// the last; loadY adds to what y holds.
	tile func(mr, k, krows, kskip int, a, x *float32, off *int32, xstep int, y *float32, ystep, npix int, loadY bool)
	// grad computes acc[i][j][l] (+)= Σ over oh×ow pixels of
	// dy[pixel][i][l] · x[pixel + offs[j]][l] for i < mr, j < gnr, with
	// byte strides between rows and pixels; acc rows accRow bytes apart.
	// WeightGrad uses gradSeq; grad, on any layout, is the reference it
	// is tested against.
	grad func(mr int, dy *float32, dyRow, dyStep int, x *float32, offs *int32, xRow, xStep, oh, ow int, acc *float32, accRow int, load bool)
	// gradSeq is grad for dy's pixels dyStep bytes apart in a row (mr
	// vectors each) and dySkip bytes more between rows, x's one vector
	// apart in a row and xSkip bytes more between rows: the same sums in
	// the same order; it repeats for groups groups of gnr weights, each
	// group's offsets and sums (gnr vectors of each acc row) following the
	// last's, so that one call takes a chunk. The AVX-512 kernels
	// prefetch the input pf bytes past the first weight's (a hint: the
	// sums do not depend on it).
	gradSeq func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int)
	// gradRow is gradSeq for rmr output channels and a kernel row of
	// gradRowWidth weights whose input vectors follow each other (offs
	// names the first); a pair of pixels reads each input vector once for
	// both. WeightGrad uses it for kernels gradRowWidth wide; nil if the
	// implementation has none. Its groups are kernel rows, one offset
	// and gradRowWidth sums each.
	gradRow func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int)
	rmr     int
	// gradWin is gradSeq for wmr output channels and the nine weights of
	// an input channel of a 3×3 kernel, read from offs[0] on in rows of
	// ow vectors and xSkip bytes; a window of three rows by three columns
	// slides along each row in registers. WeightGrad uses it for 3×3
	// kernels; nil if the implementation has none. Its groups are input
	// channels, nine offsets (the first read) and nine sums each.
	gradWin func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int)
	wmr     int
	// interleave writes w pixels of n images (src rows srcStride bytes
	// apart) into lanes of dst vectors dstStep bytes apart; the lanes
	// from n on get zero.
	interleave func(dst *float32, dstStep int, src *float32, srcStride, w, n int)
	// interleaveStream is interleave by non-temporal stores, for dst
	// and dstStep multiples of 64 bytes and lanes of 16 floats (a vector
	// a cache line), unfenced: a pass of calls ends with fence. nil if
	// the implementation has none.
	interleaveStream func(dst *float32, dstStep int, src *float32, srcStride, w, n int)
	fence            func()
	// deinterleave is the reverse for n images, adding bias.
	deinterleave func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32)
	// deinterleaveStream is deinterleave with non-temporal stores where
	// they apply, for outputs not read again soon.
	deinterleaveStream func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32)
	// laneSums adds to dst[i] the sum of the lanes of src vector i, i < n;
	// laneSumsSet sets dst[i] to it.
	laneSums, laneSumsSet func(dst, src *float32, n int)
	// planeSums sets each lane of the vector dst to that lane's sum over
	// the n vectors at src, step bytes apart, with the additions the
	// implementation's Sum makes over n floats (so that an image's
	// sum over a plane of its interleaved gradient is Sum of the plane).
	planeSums func(dst, src *float32, step, n int)
	// planeSumsAt is planeSums over the n vectors at src + offs[i]·pix
	// bytes.
	planeSumsAt func(dst, src *float32, offs *int32, pix, n int)
	// sumBuckets and sumWidth describe planeSums' additions: vector p of
	// a plane of n goes into bucket p mod sumBuckets if it lies in the
	// first n − n mod sumBuckets, else into bucket p mod sumWidth, and a
	// plane whose n is a multiple of sumWidth is summed by planeSums over
	// its buckets (bucketSums). The portable Sum adds one after the
	// other: one bucket.
	sumBuckets, sumWidth int
	// planeSumsAdd adds the n vectors at src, step bytes apart, to the n
	// vectors that follow each other at dst.
	planeSumsAdd func(dst, src *float32, step, n int)
	// maxPool max-pools n windows of kh×kw pixel vectors, the windows sw
	// pixels apart (see directpool.go): each output vector is the
	// window's maximum of its values plus bias, stored at dst + o·dstStep,
	// and its index at arg + o·argStep, base + o·sw + i·ld + j for window
	// row i and column j; pixels pixStep bytes apart, rows rowStep.
	maxPool func(dst *float32, dstStep int, arg *int32, argStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, base, ld int32, bias float32)
	// unpool is maxPool's backward pass: each window's pixels get 0
	// (those whose index is not the window's vector at arg) or 0 plus the
	// gradient vector at grad + o·gradStep.
	unpool func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32)
	// The kernels of NewPool's plans (directpool2.go):
	// biasRelu adds bias to n vectors pixStep bytes apart and rectifies
	// them as Relu does, setting bit l of the int32 at bits + o·bitsStep
	// when lane l of vector o is then positive.
	biasRelu func(dst *float32, pixStep, n int, bits *int32, bitsStep int, bias, slope float32)
	// reluGradBits multiplies by slope the lanes of n vectors whose bit
	// (biasRelu) is clear.
	reluGradBits func(dst *float32, pixStep, n int, bits *int32, bitsStep int, slope float32)
	// avePool averages n windows as maxPool takes them: each window's
	// values plus bias, added in row-major order from zero, divided by
	// div.
	avePool func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, bias, div float32)
	// unpoolAdd is unpool for overlapping windows: the gradient vector of
	// each window is added to the lanes of the element its index names.
	unpoolAdd func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32)
	// spreadAve adds the gradient vector of each of n windows, divided
	// by div, to the kw vectors of sp (spStep bytes apart) from o·sw on.
	spreadAve func(sp *float32, spStep int, grad *float32, gradStep, n, kw, sw int, div float32)
	// putRows stores (or adds, with add) the n vectors of src, one after
	// the other, to each of rows rows of n vectors at dst.
	putRows func(dst *float32, pixStep, rowStep int, src *float32, n, rows int, add bool)
	// packTile writes n rows of h floats (h at most the largest tile,
	// mr), row p at dst[p·ldd] (ldd may be negative), its float i from
	// src[i·lda + p], times alpha (1 here): the packing of the weights,
	// each packed row a tile's kernels' values at one place, the rows of
	// kernels read in place (contiguous runs of a kernel's values) and
	// turned into the packed rows in registers (gemm's packATile).
	packTile func(dst, src *float32, h, n, lda, ldd int, alpha float32)
	// winoIn and winoOut are Winograd's input and output transforms
	// (see winograd.go, winoInGo, winoOutGo); nil if the implementation
	// has none.
	winoIn  func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int)
	winoOut func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int)
	// winoFilter transforms n blocks of 16 kernels of 3×3 weights
	// (winoFilterGo); nil if the implementation has none, which leaves
	// its plans without Winograd's transforms.
	winoFilter func(dst *float32, planes *int64, src *float32, idx *int32, n int)
	// winoIn6 and winoOut6 are the transforms of F(2×2, 5×5)
	// (winoIn6Go, winoOut6Go); nil if the implementation has none.
	winoIn6  func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int)
	winoOut6 func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int)
}

// gradRowWidth is the width of the kernels whose weight gradient runs a
// kernel row at a time (directKernels.gradRow).
const gradRowWidth = 5

// directKC is the most weights a forward tile multiplies per call, so
// that its packed weights stay in the L1 cache beside the input rows.
const directKC = 256

// DirectConv is the plan of a direct convolution of one geometry (see
// the comment above): the offset tables, the packed weights
// (PackForward, PackBackward)
// and the kernels of the implementation in use when it was made.
// Forward, BackwardData and WeightGrad may run concurrently on distinct
// DirectScratch values (and input slots) once the weights are packed.
type DirectConv struct {
	k                *directKernels
	lanes            int
	c, h, w, m       int // per group: input channels, input size, outputs
	groups           int
	kh, kw           int
	padH, padW       int
	oh, ow           int
	ph, pw           int // padded input
	dh, dw           int // padded output gradient
	kk               int // weights per output channel: c·kh·kw
	kp               int // kk rounded up to a multiple of the gradient tile
	offF, offB, offG []int32
	fTiles, bTiles   []dtile
	fChunks, bChunks []dchunk // Forward's and BackwardData's tiles, chunk by chunk
	fBand, bBand     int      // rows of a chunk's band
	gTiles           []dtile
	// Winograd's transforms (winograd.go): whether Forward and
	// BackwardData run on them, the transformed weights, the chunks of
	// output channels, the offsets of a block's channels, and the floats
	// of the scratch's transformed input and products.
	wino               bool
	uf, ub             []float32
	wfChunks, wbChunks []dchunk
	winoOff            []int32
	wvSize, wmSize     int
	wfIdx, wbIdx       [][]int32 // kernels of the tiles' positions, by tile height (winoTable)
	planesF, planesB   [16]int   // planes of the transformed weights (winoPlanes)
	planesFB, planesBB [16]int64
	// the positions of a block (16 for 3×3 kernels, 36 for 5×5) and
	// their transforms
	wa2              int
	wIn              func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int)
	wOut             func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int)
	gmr, gnr         int // weight-gradient tile: output channels × weights of a call
	gradCall         func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int)
	gGroup           int       // weight-gradient tiles of output channels that share a chunk of weights
	gChunk           int       // weights of a chunk (a multiple of the gradient tile)
	gRows            int       // output rows of a weight-gradient call
	gRowSums         bool      // lane sums through the scratch's rows (directGradRowsBytes)
	gPrefetch        int       // bytes ahead the weight-gradient kernels prefetch the input, or 0
	gWin             bool      // the weight gradient on the window kernels (gradWin)
	wf, wb           []float32 // packed weights, per group
	cAll, mAll       int       // channels and outputs of all groups
	cs, ms           int       // vectors per pixel of the input and output layouts
	xSize, dySize    int       // floats of one interleaved input and gradient block
	ySize            int       // floats of one interleaved output or input-gradient block
	imgSize, outSize int       // floats of one image and one output (all groups)
	gradOffs         []int32   // gradOffsets
	packedF, packedB int       // floats of the packed weights of one group
	xcSize, dypSize  int       // floats of the weight gradient's input and gradient of one group
}

// The blocking of the weight gradient (see WeightGrad): the output
// channels of directGradGroup tiles and a chunk of directGradChunk
// weights share the input and the gradient in the caches, each call
// covering about directGradPixels floats of a tile's gradient;
// variables for benchmarks. One tile and 160 weights (a call of 32 groups
// of weights over a band of the tile's gradient, which stays in the L1
// cache) ran AlexNet's conv2–conv5 faster on Zen 5 than four tiles and 40
// weights, LeNet's and CIFAR-10 quick's as fast: the longer calls start
// fewer streams, and the input they read once per tile streams from the
// L3 cache with the prefetches (directGradPrefetchBytes).
var (
	directGradGroup  = 1
	directGradChunk  = 160
	directGradPixels = 24 << 10 / 4
	// directGradStride is the farthest apart (vectors) the pixels of
	// the output gradient in LoadGrad's layout may lie for the kernels to
	// read them there; farther, the tiles are copied out first (CIFAR-10
	// quick's conv2, 33 vectors apart, runs faster in place with AVX-512
	// and AVX2, its conv3, 65, and AlexNet's layers, 193-385, faster
	// copied).
	directGradStride = 48
	// directGradWin is the size of the square kernels whose weight
	// gradient runs on the window kernels (directKernels.gradWin): 3,
	// the only size they take; any other turns them off.
	directGradWin = 3
	// directGradWinGroup is directGradGroup for the window kernels:
	// their tiles of two output channels read the input three rows at a
	// time, so that a tile alone would stream a group's whole input
	// (AlexNet's conv3: 3.7 MB a block) from the L3 cache for 2·9·16
	// multiply-adds a vector; sixteen tiles read a chunk of it from the
	// L2 cache (on the Intel Xeon the weight gradients of AlexNet's
	// conv3–conv5 ran 2–7% faster than with one tile).
	directGradWinGroup = 16
)

// dtile is a tile of rows [r0, r0+h).
type dtile struct{ r0, h int }

// dchunk is tiles [t0, t1) of a plan's tiles, rows [r0, r1) together.
type dchunk struct{ t0, t1, r0, r1 int }

// directChunk is about how many bytes of interleaved output (input
// gradient) Forward (BackwardData) computes before storing them: the
// output channels of a chunk of tiles over a band of rows, whole planes
// where a tile's fit, so that each channel is stored to each image as
// one long run of pixels; a variable for benchmarks.
var directChunk = 640 << 10

// directChunkTiles is the most bytes of whole planes a chunk of several
// tiles takes (a chunk of one tile takes up to directChunk): a tile of
// AlexNet's 13×13 layers (14 channels, 151 KB) runs alone, which leaves
// the rest of the L2 cache to the input rows the tiles read (370 KB a
// row for conv3's input gradient), where four tiles together crowded them
// out; a variable for benchmarks.
var directChunkTiles = 160 << 10

// chunks groups the tiles ts of a plan whose output planes are rows ×
// width pixels into chunks and returns them with the rows of a band: a
// chunk's band of vectors takes at most about directChunk bytes. Where a
// tile's planes fit, a band is a whole plane and a chunk as many tiles as
// fit in directChunkTiles bytes (at least one); otherwise a chunk is one
// tile and the bands, of nearly equal height, as tall as fit.
func (d *DirectConv) chunks(ts []dtile, rows, width int) ([]dchunk, int) {
	row := width * d.lanes * 4 // bytes of a channel's row
	tallest := 0
	for _, t := range ts {
		tallest = max(tallest, t.h)
	}
	var cs []dchunk
	if tallest*rows*row > directChunk {
		for i, t := range ts {
			cs = append(cs, dchunk{i, i + 1, t.r0, t.r0 + t.h})
		}
		band := max(1, directChunk/(tallest*row))
		count := (rows + band - 1) / band
		return cs, (rows + count - 1) / count
	}
	for i := 0; i < len(ts); {
		j, h := i, 0
		for j < len(ts) && (j == i || (h+ts[j].h)*rows*row <= directChunkTiles) {
			h += ts[j].h
			j++
		}
		cs = append(cs, dchunk{i, j, ts[i].r0, ts[j-1].r0 + ts[j-1].h})
		i = j
	}
	return cs, rows
}

// tiles splits n rows into tiles of nearly equal height, at most mr.
func tiles(n, mr int) []dtile {
	if n <= 0 {
		return nil
	}
	count := (n + mr - 1) / mr
	base, extra := n/count, n%count
	var ts []dtile
	for t, r := 0, 0; t < count; t++ {
		h := base
		if t < extra {
			h++
		}
		ts = append(ts, dtile{r, h})
		r += h
	}
	return ts
}

// DirectConvLanes returns how many images the direct convolution of the
// kernels in use processes at once, or 0 if they have none.
func DirectConvLanes() int {
	if active.direct == nil {
		return 0
	}
	return active.direct.lanes
}

// NewDirectConv plans the direct convolution of images of channels ×
// height × width into outputs channels with groups groups, a kh×kw
// kernel, padding padH×padW, stride 1 and no dilation. It returns nil if
// the kernels in use have no direct convolution or the geometry is one
// it does not take: an empty output, or a padding as large as the kernel
// (the input gradient would need negative padding).
func NewDirectConv(channels, height, width, outputs, groups, kh, kw, padH, padW int) *DirectConv {
	k := active.direct
	if k == nil || groups <= 0 || channels%groups != 0 || outputs%groups != 0 || channels <= 0 || outputs <= 0 ||
		kh <= 0 || kw <= 0 || padH < 0 || padW < 0 || padH >= kh || padW >= kw {
		return nil
	}
	return newDirectConv(k, channels, height, width, outputs, groups, kh, kw, padH, padW)
}

// NewDirectConvFor is NewDirectConv for blocks of at most images images:
// if a narrower implementation of the direct convolution than the one in
// use runs on this CPU and holds the images, the plan uses it, so that a
// small block (the last of a batch, say) wastes fewer lanes; AVX-512's 16
// lanes give way to AVX2's 8.
func NewDirectConvFor(images, channels, height, width, outputs, groups, kh, kw, padH, padW int) *DirectConv {
	k := active.direct
	if k == nil {
		return nil
	}
	after := false
	for _, im := range available() {
		if im == active {
			after = true
		}
		if after && im.direct != nil && im.direct.lanes >= images && im.direct.lanes < k.lanes {
			k = im.direct
		}
	}
	if k == active.direct {
		return NewDirectConv(channels, height, width, outputs, groups, kh, kw, padH, padW)
	}
	if groups <= 0 || channels%groups != 0 || outputs%groups != 0 || channels <= 0 || outputs <= 0 ||
		kh <= 0 || kw <= 0 || padH < 0 || padW < 0 || padH >= kh || padW >= kw {
		return nil
	}
	return newDirectConv(k, channels, height, width, outputs, groups, kh, kw, padH, padW)
}

func newDirectConv(k *directKernels, channels, height, width, outputs, groups, kh, kw, padH, padW int) *DirectConv {
	d := &DirectConv{
		k: k, lanes: k.lanes, c: channels / groups, h: height, w: width, m: outputs / groups, groups: groups,
		kh: kh, kw: kw, padH: padH, padW: padW, cAll: channels, mAll: outputs,
		oh: ConvOutSize(height, kh, padH, 1, 1), ow: ConvOutSize(width, kw, padW, 1, 1),
	}
	if d.oh <= 0 || d.ow <= 0 || height <= 0 || width <= 0 {
		return nil
	}
	L := d.lanes
	// A pixel's vectors are cs (ms) apart: the channels rounded up to
	// an odd number, so that the vectors of neighbouring pixels, which
	// the kernels read together, do not crowd a few sets of the cache.
	d.cs, d.ms = channels|1, outputs|1
	d.ph, d.pw = height+2*padH, width+2*padW
	d.dh, d.dw = d.oh+2*(kh-1-padH), d.ow+2*(kw-1-padW)
	d.kk = d.c * kh * kw
	// The weight gradient's calls: an input channel at a time where the
	// kernel is 3×3, a kernel row at a time where it is gradRowWidth wide
	// (the rows follow each other in Caffe's order), else gnr weights.
	d.gmr, d.gnr, d.gradCall = k.gmr, k.gnr, k.gradSeq
	switch {
	case kh == directGradWin && kw == directGradWin && k.gradWin != nil:
		d.gmr, d.gnr, d.gradCall, d.gWin = k.wmr, 9, k.gradWin, true
	case kw == gradRowWidth && k.gradRow != nil:
		d.gmr, d.gnr, d.gradCall = k.rmr, gradRowWidth, k.gradRow
	}
	d.kp = (d.kk + d.gnr - 1) / d.gnr * d.gnr
	const f = 4 // bytes per float
	// Forward: weight (ki, kj, c) reads the input at the window's origin
	// plus (ki, kj) pixels, channel c.
	d.offF = make([]int32, 0, d.kk)
	for ki := range kh {
		for kj := range kw {
			for c := range d.c {
				d.offF = append(d.offF, int32(((ki*d.pw+kj)*d.cs+c)*L*f))
			}
		}
	}
	// Input gradient: flipped weight (ki', kj', m) reads the padded
	// output gradient.
	d.offB = make([]int32, 0, d.m*kh*kw)
	for ki := range kh {
		for kj := range kw {
			for m := range d.m {
				d.offB = append(d.offB, int32(((ki*d.dw+kj)*d.ms+m)*L*f))
			}
		}
	}
	// Weight gradient: weights in Caffe's order (c, ki, kj) read the
	// channel-major input; padded to whole tiles by repeating the last
	// weight, whose sums are dropped.
	d.offG = make([]int32, 0, d.kp)
	for c := range d.c {
		for ki := range kh {
			for kj := range kw {
				d.offG = append(d.offG, int32(((c*d.ph+ki)*d.pw+kj)*L*f))
			}
		}
	}
	for len(d.offG) < d.kp {
		d.offG = append(d.offG, d.offG[len(d.offG)-1])
	}
	d.fTiles = tiles(d.m, k.mr)
	d.bTiles = tiles(d.c, k.mr)
	d.gTiles = tiles(d.m, d.gmr)
	d.packedF = d.m * d.kk
	d.packedB = d.c * d.m * kh * kw
	d.wf = make([]float32, groups*d.packedF)
	d.wb = make([]float32, groups*d.packedB)
	d.xSize = d.ph * d.pw * d.cs * L
	d.dySize = d.dh * d.dw * d.ms * L
	d.fChunks, d.fBand = d.chunks(d.fTiles, d.oh, d.ow)
	d.bChunks, d.bBand = d.chunks(d.bTiles, height, width)
	d.ySize = max(d.bandRows(d.ow, d.ms)*d.ow*d.ms, d.bandRows(width, d.cs)*width*d.cs) * L
	for _, c := range d.fChunks {
		d.ySize = max(d.ySize, d.fBand*d.ow*(c.r1-c.r0)*L)
	}
	for _, c := range d.bChunks {
		d.ySize = max(d.ySize, d.bBand*width*(c.r1-c.r0)*L)
	}
	d.gGroup = max(1, min(directGradGroup, len(d.gTiles)))
	if d.gWin {
		d.gGroup = max(1, min(directGradWinGroup, len(d.gTiles)))
	}
	d.gChunk = max(d.gnr, min(d.kp, directGradChunk/d.gnr*d.gnr))
	d.gRows = max(1, directGradPixels/(d.gmr*L*d.ow))
	d.xcSize = d.c * d.ph * d.pw * L
	// Lane sums into rows of the scratch where dw is too large for the
	// caches (see directGradRowsBytes); prefetches an input channel ahead
	// where a group's input is past the L2 cache (directGradPrefetchBytes).
	d.gRowSums = d.mAll*d.kk*4 >= directGradRowsBytes
	if d.xcSize*4 >= directGradPrefetchBytes {
		d.gPrefetch = d.ph * d.pw * L * f
	}
	d.dypSize = d.m * d.oh * d.ow * L
	d.imgSize = channels * height * width
	d.gradOffs = d.gradOffsets()
	d.outSize = outputs * d.oh * d.ow
	d.planWino()
	return d
}

// Lanes returns the images of a block.
func (d *DirectConv) Lanes() int { return d.lanes }

// OutputSize returns the output's height and width.
func (d *DirectConv) OutputSize() (int, int) { return d.oh, d.ow }

// PackForward packs the weights, Caffe's [outputs][channels/groups][kh][kw],
// for Forward.
func (d *DirectConv) PackForward(w []float32) { d.PackForwardPart(w, 0, 1) }

// PackBackward packs the weights, flipped, for BackwardData.
func (d *DirectConv) PackBackward(w []float32) { d.PackBackwardPart(w, 0, 1) }

// PackParts returns the most parts PackForwardPart (backward false) or
// PackBackwardPart cuts its packing into: a part packs whole tiles of
// outputs (inputs) of a group.
func (d *DirectConv) PackParts(backward bool) int {
	if backward {
		return d.groups * len(d.bTiles)
	}
	return d.groups * len(d.fTiles)
}

// PackForwardPart packs part p of parts of what PackForward packs (the
// tiles of a group that span(p, parts) of PackParts(false) covers):
// the parts write apart, and may run at once on different goroutines.
func (d *DirectConv) PackForwardPart(w []float32, p, parts int) {
	if need := d.mAll * d.kk; len(w) < need {
		panic(fmt.Sprintf("kernel: DirectConv.PackForward: len(w) = %d, want >= %d", len(w), need))
	}
	area := d.kh * d.kw
	n := len(d.fTiles)
	for u := p * d.groups * n / parts; u < (p+1)*d.groups*n/parts; u++ {
		g, t := u/n, d.fTiles[u%n]
		wg := w[g*d.m*d.kk:]
		// Forward: tile t holds [k][i] = W[r0+i][c][ki][kj], k = (ki, kj, c).
		pf := d.wf[g*d.packedF:]
		dst := pf[t.r0*d.kk : (t.r0+t.h)*d.kk]
		src := wg[t.r0*d.kk : (t.r0+t.h)*d.kk]
		// Input channel by input channel: the tile's kernels' area
		// values of channel c, contiguous in each kernel, become the
		// area rows of k = (·, ·, c), d.c rows apart.
		for c := range d.c {
			d.k.packTile(&dst[c*t.h], &src[c*area], t.h, area, d.kk, d.c*t.h, 1)
		}
		if d.wino {
			d.packWinoForward(w, g, t)
		}
	}
}

// PackBackwardPart packs part p of parts of what PackBackward packs, as
// PackForwardPart does PackForward's.
func (d *DirectConv) PackBackwardPart(w []float32, p, parts int) {
	if need := d.mAll * d.kk; len(w) < need {
		panic(fmt.Sprintf("kernel: DirectConv.PackBackward: len(w) = %d, want >= %d", len(w), need))
	}
	area := d.kh * d.kw
	kb := d.m * area
	n := len(d.bTiles)
	for u := p * d.groups * n / parts; u < (p+1)*d.groups*n/parts; u++ {
		g, t := u/n, d.bTiles[u%n]
		wg := w[g*d.m*d.kk:]
		// Tile t holds [k][i] = W[m][r0+i][kh-1-ki][kw-1-kj], k = (ki, kj, m).
		pb := d.wb[g*d.packedB:]
		dst := pb[t.r0*kb : (t.r0+t.h)*kb]
		// Output by output: the area values of the tile's kernels of
		// output m, contiguous in each kernel, become the rows of k =
		// (·, ·, m), d.m rows apart, the last kernel position first (the
		// flip: the rows run backwards from the last a's).
		for m := range d.m {
			d.k.packTile(&dst[(area-1)*d.m*t.h+m*t.h], &wg[m*d.kk+t.r0*area], t.h, area, area, -d.m*t.h, 1)
		}
		if d.wino {
			d.packWinoBackward(w, g, t)
		}
	}
}

// DirectScratch holds one goroutine's buffers for a DirectConv: the
// interleaved output gradient of the block in hand, an output block, and
// the weight gradient's input, output gradient and sums.
type DirectScratch struct {
	d   *DirectConv
	y   []float32
	dy  []float32
	xc  []float32 // channel-major input of a group, the border zero
	dyp []float32 // output gradient of a group, tile by tile
	acc []float32
	// rows: the lane sums of a group of tiles, whole rows of dw (see
	// directGradRowsBytes)
	rows []float32
	// dyt: the output gradient of every group in the weight gradient's
	// layout (LoadGradTiles), valid while tiled
	dyt   []float32
	tiled bool
	// pooled vectors of a band (ForwardPool), or the pooling's gradient
	pool []float32
	n    int // images whose gradient dy holds (LoadGrad), or 0
	// band: a band of the output gradient routed from the pooling's
	// (unpoolBand); buckets: planeSums' buckets of each channel of a group
	// of tiles, added to band by band
	band, buckets []float32
	// sums: the lanes' plane sums (WeightGradPooledBias)
	sums [16]float32
	// wv, wm: Winograd's transformed input of a pair of blocks and their
	// products (winoPass)
	wv, wm []float32
}

// NewScratch returns one goroutine's buffers. The weight gradient's are
// made on its first use.
func (d *DirectConv) NewScratch() *DirectScratch {
	s := &DirectScratch{d: d, y: HugePageFloats(d.ySize), dy: HugePageFloats(d.dySize)}
	if d.wino {
		s.wv, s.wm = HugePageFloats(d.wvSize), HugePageFloats(d.wmSize)
	}
	return s
}

// DirectBlocks holds the interleaved inputs of image blocks for Forward,
// a slot each. Goroutines may work on distinct slots at once.
type DirectBlocks struct {
	d     *DirectConv
	slots int
	x     []float32
}

// NewBlocks returns slots for slots image blocks.
func (d *DirectConv) NewBlocks(slots int) *DirectBlocks {
	slots = max(1, slots)
	return &DirectBlocks{d: d, slots: slots, x: HugePageFloats(slots * d.xSize)}
}

// Slots returns the image blocks b holds.
func (b *DirectBlocks) Slots() int { return b.slots }

// check panics unless s and b (those not nil) belong to d, slot is one of
// b's, n is a block's number of images and the slices (len, want pairs)
// hold n images.
func (d *DirectConv) check(name string, s *DirectScratch, b *DirectBlocks, slot, n int, lens ...int) {
	if (s != nil && s.d != d) || (b != nil && b.d != d) {
		panic(fmt.Sprintf("kernel: DirectConv.%s: buffers of another plan", name))
	}
	if b != nil && (slot < 0 || slot >= b.slots) {
		panic(fmt.Sprintf("kernel: DirectConv.%s: slot %d of %d", name, slot, b.slots))
	}
	if n < 1 || n > d.lanes {
		panic(fmt.Sprintf("kernel: DirectConv.%s: %d images, want 1 to %d", name, n, d.lanes))
	}
	for i := 0; i < len(lens); i += 2 {
		if lens[i] < lens[i+1] {
			panic(fmt.Sprintf("kernel: DirectConv.%s: slice %d holds %d floats, want >= %d", name, i/2, lens[i], lens[i+1]))
		}
	}
}

// LoadInput interleaves n images (NCHW, one after the other) into the
// input of slot.
func (d *DirectConv) LoadInput(b *DirectBlocks, slot int, x []float32, n int) {
	d.check("LoadInput", nil, b, slot, n, len(x), n*d.imgSize)
	L, f := d.lanes, 4
	xs := b.x[slot*d.xSize:]
	if d.padW == 0 {
		// The padded rows are the image's: one run of pixels per channel.
		for c := range d.cAll {
			d.k.interleave(&xs[d.padH*d.pw*d.cs*L+c*L], d.cs*L*f, &x[c*d.h*d.w], d.imgSize*f, d.h*d.w, n)
		}
		return
	}
	for c := range d.cAll {
		for y := range d.h {
			dst := &xs[((y+d.padH)*d.pw+d.padW)*d.cs*L+c*L]
			d.k.interleave(dst, d.cs*L*f, &x[(c*d.h+y)*d.w], d.imgSize*f, d.w, n)
		}
	}
}

// Forward convolves n images x (NCHW) into y (n outputs, NCHW), adding
// bias (per output channel) if not nil, with the weights packed by
// PackForward, interleaving the input into slot of b.
func (d *DirectConv) Forward(s *DirectScratch, b *DirectBlocks, slot int, x []float32, n int, y []float32, bias []float32) {
	d.forward("Forward", s, b, slot, x, n, y, bias, false, 0)
}

// ForwardReLU is Forward followed by Relu(y, y, slope) over the n
// outputs, each run of a channel's rows rectified right after it is
// stored, while it is in the cache, instead of in a pass over the block:
// the same values.
func (d *DirectConv) ForwardReLU(s *DirectScratch, b *DirectBlocks, slot int, x []float32, n int, y []float32, bias []float32, slope float32) {
	d.forward("ForwardReLU", s, b, slot, x, n, y, bias, true, slope)
}

// forward is Forward, with relu ForwardReLU.
func (d *DirectConv) forward(name string, s *DirectScratch, b *DirectBlocks, slot int, x []float32, n int, y []float32, bias []float32, relu bool, slope float32) {
	d.check(name, s, b, slot, n, len(y), n*d.outSize)
	if bias != nil && len(bias) < d.mAll {
		panic(fmt.Sprintf("kernel: DirectConv.%s: len(bias) = %d, want >= %d", name, len(bias), d.mAll))
	}
	d.LoadInput(b, slot, x, n)
	p := d.forwardPass(b.x[slot*d.xSize:])
	p.relu, p.slope = relu, slope
	if d.wino {
		d.winoPass(p, d.uf, d.wfChunks, s, y, n, bias)
		return
	}
	d.convolveChunks(p, s.y, y, n, bias)
}

// forwardPass is Forward's pass on the interleaved input xs.
func (d *DirectConv) forwardPass(xs []float32) directPass {
	return directPass{
		w: d.wf, packed: d.packedF, kk: d.kk, off: d.offF, tiles: d.fTiles, chunks: d.fChunks, band: d.fBand,
		in: xs, chans: d.c, pixStep: d.cs, rowStep: d.pw * d.cs, pad: d.padH, inRows: d.h, padW: d.padW, valid: d.w,
		outs: d.m, outAll: d.mAll, rows: d.oh, width: d.ow,
	}
}

// directPass is the geometry of a pass that convolves interleaved
// planes with packed weights a chunk of tiles at a time: Forward
// (input channels into output channels) and BackwardData (the padded
// output gradient into input channels, with the flipped weights).
type directPass struct {
	relu         bool      // the stored output rectified (ForwardReLU)
	slope        float32   // the rectifier's negative slope
	w            []float32 // packed weights, packed floats a group
	packed, kk   int       // floats of a group's weights; weights of a tile's row
	off          []int32   // the kernel's offsets of the weights' inputs
	tiles        []dtile
	chunks       []dchunk
	band         int
	in           []float32 // the interleaved (padded) input planes
	chans        int       // input channels of a group
	pixStep      int       // vectors from pixel to pixel of in
	rowStep      int       // … from row to row
	pad, inRows  int       // kernel row ki of output row y reads input row y+ki−pad, of inRows
	padW, valid  int       // the tile kernels' left padding and valid input columns
	outs, outAll int       // output channels of a group and in all
	rows, width  int       // output rows and columns
}

// convolveChunks runs pass p a group at a time, a chunk of its tiles at
// a time (their weights staying in the caches from band to band), the
// chunk's band of output rows computed into the scratch y and stored
// into the n images of dst (plus bias, if not nil) while it is in the
// cache.
func (d *DirectConv) convolveChunks(p directPass, y, dst []float32, n int, bias []float32) {
	L := d.lanes
	for g := range d.groups {
		w := p.w[g*p.packed:]
		for _, ch := range p.chunks {
			mc := ch.r1 - ch.r0
			for y0 := 0; y0 < p.rows; y0 += p.band {
				y1 := min(p.rows, y0+p.band)
				for _, t := range p.tiles[ch.t0:ch.t1] {
					for oy := y0; oy < y1; {
						// Kernel rows ki read input row oy+ki−pad; those
						// outside the input are skipped. Two rows that take
						// the same kernel rows go together.
						kiLo, kiHi := max(0, p.pad-oy), min(d.kh, p.pad+p.inRows-oy)
						xr, yr := p.in[(oy*p.rowStep+g*p.chans)*L:], y[((oy-y0)*p.width*mc+t.r0-ch.r0)*L:]
						if oy+1 < y1 && kiLo == max(0, p.pad-oy-1) && kiHi == min(d.kh, p.pad+p.inRows-oy-1) {
							d.tileRows(t.h, w[t.r0*p.kk:], p.off, p.chans, kiLo, kiHi, xr, p.pixStep*L, p.rowStep*L, yr, mc*L, p.width*mc*L, p.width, p.padW, p.valid)
							oy += 2
							continue
						}
						d.tileRow(t.h, w[t.r0*p.kk:], p.off, p.chans, kiLo, kiHi, xr, p.pixStep*L, yr, mc*L, p.width, p.padW, p.valid)
						oy++
					}
				}
				d.storeChunk(y, g*p.outs+ch.r0, g*p.outs+ch.r1, p.outAll, y0, y1, p.rows, p.width, dst, n, bias, p)
			}
		}
	}
}

// storeChunk deinterleaves rows [y0, y1) of channels [c0, c1) of an
// output block of channels×oh×ow pixels, held from src[0] on in the
// layout of a chunk (the c1−c0 vectors of a pixel together, the band's
// pixels in order), into n images, adding bias, and rectifies each
// image's run of rows right after where p says so (ForwardReLU).
func (d *DirectConv) storeChunk(src []float32, c0, c1, channels, y0, y1, oh, ow int, dst []float32, n int, bias []float32, p directPass) {
	L, f := d.lanes, 4
	size := channels * oh * ow
	for c := c0; c < c1; c++ {
		var b float32
		if bias != nil {
			b = bias[c]
		}
		at := (c*oh + y0) * ow
		d.deinterleaveLines(&dst[at], size*f, &src[(c-c0)*L], (c1-c0)*L*f, (y1-y0)*ow, n, b)
		if p.relu {
			for j := range n {
				run := dst[j*size+at : j*size+at+(y1-y0)*ow]
				Relu(run, run, p.slope)
			}
		}
	}
}

// deinterleaveLines is the kernels' deinterleave, its stores of whole
// rows of lanes pixels aligned on cache lines where they can be: when
// the images lie a multiple of 64 bytes apart (dstStride), so that their
// rows start at the same place in a line, the pixels up to the first
// line boundary go in a call of their own. A store that crosses a line
// costs two; AlexNet's planes of 13×13 and 27×27 pixels start anywhere in
// a line. Each value is the same sum, pixel by pixel.
func (d *DirectConv) deinterleaveLines(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32) {
	if dstStride%64 == 0 {
		if head := int(-uintptr(unsafe.Pointer(dst))%64) / 4; head > 0 && head < w {
			d.k.deinterleave(dst, dstStride, src, srcStep, head, n, bias)
			dst, src, w = at(dst, 4*head), at(src, head*srcStep), w-head
		}
	}
	d.k.deinterleave(dst, dstStride, src, srcStep, w, n, bias)
}

// convolveBand computes output rows [y0, y1) of the interleaved images
// xs into s.y, interleaved, the band's first row at the start.
func (d *DirectConv) convolveBand(s *DirectScratch, xs []float32, y0, y1 int) {
	d.convolveBandTo(s.y, xs, y0, y1)
}

// convolveBandTo is convolveBand into out.
func (d *DirectConv) convolveBandTo(out []float32, xs []float32, y0, y1 int) {
	for g := range d.groups {
		d.convolveGroupTo(out, xs, g, y0, y1)
	}
}

// convolveGroupTo is convolveBandTo for the output channels of group g.
func (d *DirectConv) convolveGroupTo(out []float32, xs []float32, g, y0, y1 int) {
	for _, t := range d.fTiles {
		d.convolveTileTo(out, xs, g, t, y0, y1)
	}
}

// convolveTileTo is convolveGroupTo for the output channels of tile t.
func (d *DirectConv) convolveTileTo(out []float32, xs []float32, g int, t dtile, y0, y1 int) {
	L := d.lanes
	pf := d.wf[g*d.packedF:]
	for oy := y0; oy < y1; oy++ {
		// Kernel rows ki read padded input row oy+ki; those in the
		// border are skipped.
		kiLo, kiHi := max(0, d.padH-oy), min(d.kh, d.padH+d.h-oy)
		d.tileRow(t.h, pf[t.r0*d.kk:], d.offF, d.c, kiLo, kiHi, xs[(oy*d.pw*d.cs+g*d.c)*L:], d.cs*L,
			out[(((oy-y0)*d.ow)*d.ms+g*d.m+t.r0)*L:], d.ms*L, d.ow, d.padW, d.w)
	}
}

// tileRow runs the tile kernel over one row of npix output pixels of a
// tile of h channels, whose packed weights a and offsets off are in the
// order (kernel row, kernel column, channel) with chans channels. Only
// kernel rows [kiLo, kiHi) meet the input; along the row the input's
// valid columns start pad columns into the padded row and number valid,
// so a pixel's window holds columns of padding at the edges. The pixels
// whose windows lie inside take every kernel column, in runs of at most
// directKC weights; the edge pixels, in pairs, take the kernel columns
// that meet the input, a rectangle of weights in one call. x and y start
// at the row's first pixel, the pixels xstep and ystep floats apart.
func (d *DirectConv) tileRow(h int, a []float32, off []int32, chans, kiLo, kiHi int, x []float32, xstep int, y []float32, ystep, npix, pad, valid int) {
	const f = 4
	kw := d.kw
	x0 := min(npix, max(0, pad))
	x1 := max(x0, min(npix, pad+valid-kw+1))
	if x0 < x1 {
		start, end := kiLo*kw*chans, kiHi*kw*chans
		for k0 := start; k0 < end; k0 += directKC {
			kb := min(directKC, end-k0)
			d.k.tile(h, kb, 1, 0, &a[k0*h], &x[x0*xstep], &off[k0], xstep*f, &y[x0*ystep], ystep*f, x1-x0, k0 > start)
		}
	}
	edge := func(px, n int) {
		lo := max(0, pad-(px+n-1))
		hi := min(kw, pad+valid-px)
		k0 := (kiLo*kw + lo) * chans
		d.k.tile(h, (hi-lo)*chans, kiHi-kiLo, (kw-(hi-lo))*chans, &a[k0*h], &x[px*xstep], &off[k0], xstep*f, &y[px*ystep], ystep*f, n, false)
	}
	for px := 0; px < x0; px += 2 {
		edge(px, min(2, x0-px))
	}
	for px := x1; px < npix; px += 2 {
		edge(px, min(2, npix-px))
	}
}

// tileRows is tileRow for two rows with the same kernel rows [kiLo,
// kiHi), the second xrow and yrow floats after the first in x and y: the
// same calls for each row, but where a row would leave one pixel to a
// call of its own (the last inner pixel of an odd run, an edge pixel
// without a partner), the two rows' pixels go as one pair, so that no
// call runs a single pixel, which costs a weight's broadcasts for half
// the multiply-adds. Each pixel takes the same weights in the same runs
// as in tileRow, so the sums are the same bit for bit.
func (d *DirectConv) tileRows(h int, a []float32, off []int32, chans, kiLo, kiHi int, x []float32, xstep, xrow int, y []float32, ystep, yrow, npix, pad, valid int) {
	const f = 4
	kw := d.kw
	x0 := min(npix, max(0, pad))
	x1 := max(x0, min(npix, pad+valid-kw+1))
	if x0 < x1 {
		start, end := kiLo*kw*chans, kiHi*kw*chans
		even := (x1 - x0) &^ 1
		for k0 := start; k0 < end; k0 += directKC {
			kb := min(directKC, end-k0)
			if even > 0 {
				for r := range 2 {
					d.k.tile(h, kb, 1, 0, &a[k0*h], &x[r*xrow+x0*xstep], &off[k0], xstep*f, &y[r*yrow+x0*ystep], ystep*f, even, k0 > start)
				}
			}
			if x0+even < x1 {
				px := x1 - 1
				d.k.tile(h, kb, 1, 0, &a[k0*h], &x[px*xstep], &off[k0], xrow*f, &y[px*ystep], yrow*f, 2, k0 > start)
			}
		}
	}
	edge := func(px, n int) {
		lo := max(0, pad-(px+n-1))
		hi := min(kw, pad+valid-px)
		k0 := (kiLo*kw + lo) * chans
		k, skip := (hi-lo)*chans, (kw-(hi-lo))*chans
		if n == 1 {
			d.k.tile(h, k, kiHi-kiLo, skip, &a[k0*h], &x[px*xstep], &off[k0], xrow*f, &y[px*ystep], yrow*f, 2, false)
			return
		}
		for r := range 2 {
			d.k.tile(h, k, kiHi-kiLo, skip, &a[k0*h], &x[r*xrow+px*xstep], &off[k0], xstep*f, &y[r*yrow+px*ystep], ystep*f, n, false)
		}
	}
	for px := 0; px < x0; px += 2 {
		edge(px, min(2, x0-px))
	}
	for px := x1; px < npix; px += 2 {
		edge(px, min(2, npix-px))
	}
}

// directBand is about how many bytes of interleaved output a band holds.
const directBand = 96 << 10

// bandRows returns the rows of a band of interleaved output of width w
// and stride vectors per pixel.
func (d *DirectConv) bandRows(w, stride int) int {
	return max(1, directBand/(w*stride*d.lanes*4))
}

// store deinterleaves rows [y0, y1) of an output block of channels×oh×ow
// pixels, stride vectors per pixel, held from src[0] on, into n images,
// adding bias. The rows follow each other in both layouts, so each
// channel's rows are one run of pixels. With stream, dst is written by
// non-temporal stores where they apply.
func (d *DirectConv) store(src []float32, channels, stride, y0, y1, oh, ow int, dst []float32, n int, bias []float32, stream bool) {
	d.storeChannels(src, 0, channels, channels, stride, y0, y1, oh, ow, dst, n, bias, stream)
}

// storeChannels is store for channels [c0, c1) of the channels.
func (d *DirectConv) storeChannels(src []float32, c0, c1, channels, stride, y0, y1, oh, ow int, dst []float32, n int, bias []float32, stream bool) {
	L, f := d.lanes, 4
	deinterleave := d.deinterleaveLines
	if stream {
		deinterleave = d.k.deinterleaveStream
	}
	size := channels * oh * ow
	for c := c0; c < c1; c++ {
		var b float32
		if bias != nil {
			b = bias[c]
		}
		deinterleave(&dst[(c*oh+y0)*ow], size*f, &src[c*L], stride*L*f, (y1-y0)*ow, n, b)
	}
}

// LoadGrad interleaves the output gradient of n images (NCHW) into s,
// padded for the input gradient, for BackwardData.
func (d *DirectConv) LoadGrad(s *DirectScratch, dy []float32, n int) {
	d.check("LoadGrad", s, nil, 0, n, len(dy), n*d.outSize)
	L, f := d.lanes, 4
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	for m := range d.mAll {
		for y := range d.oh {
			dst := &s.dy[((y+p0)*d.dw+p1)*d.ms*L+m*L]
			d.k.interleave(dst, d.ms*L*f, &dy[(m*d.oh+y)*d.ow], d.outSize*f, d.ow, n)
		}
	}
	s.n, s.tiled = n, false
}

// LoadGradTiles is LoadGrad that also puts the output gradient in the
// weight gradient's layout, tile by tile, for WeightGradLoaded, and adds
// to db[m], if db is not nil, the sum of each image's plane of channel m
// (Sum, image by image): the bias gradient. With ry not nil (n outputs,
// NCHW, those of an in-place ReLU of slope slope), the gradient is first
// that of the rectifier: each plane of dy becomes ReluGrad(dy, dy, ry,
// slope), in place. It goes through the channels in runs of about
// directLoadChannels: the rectifier's gradient of a run image by image
// (an image's planes of the run lie together), then each plane's sum and
// tiles, then LoadGrad's layout, while the run is in the caches, where
// ReluGrad, LoadGrad, WeightGrad and the bias gradient would each read the
// whole gradient of the block from memory. The tiles are written only where WeightGradLoaded would
// copy them out of LoadGrad's layout; elsewhere it reads that layout in
// place.
func (d *DirectConv) LoadGradTiles(s *DirectScratch, dy []float32, n int, db, ry []float32, slope float32) {
	d.check("LoadGradTiles", s, nil, 0, n, len(dy), n*d.outSize)
	if ry != nil && len(ry) < n*d.outSize {
		panic(fmt.Sprintf("kernel: DirectConv.LoadGradTiles: len(ry) = %d, want >= %d", len(ry), n*d.outSize))
	}
	if db != nil && len(db) < d.mAll {
		panic(fmt.Sprintf("kernel: DirectConv.LoadGradTiles: len(db) = %d, want >= %d", len(db), d.mAll))
	}
	L, f := d.lanes, 4
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	P := d.oh * d.ow
	tiled := d.ms > directGradStride
	if tiled && s.dyt == nil {
		s.dyt = HugePageFloats(d.groups * d.dypSize)
	}
	// A padded gradient larger than the L2 cache is written past it
	// (non-temporal stores): its lines are not read from memory first,
	// and they do not push the tiles and planes out of the cache.
	interleave := d.k.interleave
	stream := d.k.interleaveStream != nil && L*4 == 64 && 4*len(s.dy) >= directStreamBytes &&
		uintptr(unsafe.Pointer(unsafe.SliceData(s.dy)))%64 == 0
	if stream {
		interleave = d.k.interleaveStream
	}
	for g := range d.groups {
		for t0 := 0; t0 < len(d.gTiles); {
			// A run of tiles of about directLoadChannels channels: each
			// plane first (the rectifier's gradient, the bias sums, the
			// tiles), then the run's vectors of each pixel of LoadGrad's
			// layout, row by row, so that the stores of a pixel fill
			// consecutive lines.
			t1, m0 := t0+1, g*d.m+d.gTiles[t0].r0
			for t1 < len(d.gTiles) && d.gTiles[t1].r0+d.gTiles[t1].h-d.gTiles[t0].r0 <= directLoadChannels {
				t1++
			}
			m1 := g*d.m + d.gTiles[t1-1].r0 + d.gTiles[t1-1].h
			if ry != nil {
				// The rectifier's gradient of the run's planes, image by
				// image: each image's planes of the run lie together.
				for j := range n {
					o0, o1 := j*d.outSize+m0*P, j*d.outSize+m1*P
					ReluGrad(dy[o0:o1], dy[o0:o1], ry[o0:o1], slope)
				}
			}
			for _, t := range d.gTiles[t0:t1] {
				for i := range t.h {
					m := g*d.m + t.r0 + i
					plane := dy[m*P:]
					if db != nil {
						for j := range n {
							db[m] += Sum(plane[j*d.outSize : j*d.outSize+P])
						}
					}
					if tiled {
						d.k.interleave(&s.dyt[g*d.dypSize+(t.r0*P+i)*L], t.h*L*f, &plane[0], d.outSize*f, P, n)
					}
				}
			}
			for y := range d.oh {
				for m := m0; m < m1; m++ {
					dst := &s.dy[((y+p0)*d.dw+p1)*d.ms*L+m*L]
					interleave(dst, d.ms*L*f, &dy[m*P+y*d.ow], d.outSize*f, d.ow, n)
				}
			}
			t0 = t1
		}
	}
	if stream {
		d.k.fence()
	}
	s.n, s.tiled = n, tiled
}

// directStreamBytes is the size of the padded output gradient from which
// LoadGradTiles writes it by non-temporal stores (AlexNet's conv2–conv5,
// 5.5–15.8 MB a block; CIFAR-10 quick's largest, 0.6 MB, stays in the
// caches for the passes that read it); a variable for benchmarks.
var directStreamBytes = 2 << 20

// directGradRowsBytes is the size of a weight gradient (all groups) from
// which WeightGrad adds its lane sums to rows of the scratch, whole rows
// of dw for a group of tiles, and adds those to dw in one pass: its lane
// sums of a chunk meet a few cache lines of each of the group's rows of
// dw, which a dw larger than the L2 cache brings from memory one line at
// a time while the lane sums wait (AlexNet's conv2–conv5, 1.2–3.5 MB),
// where the pass streams. The lane sums are stored to the rows
// (laneSumsSet), so that dw gets the same sum as it would directly; a
// variable for benchmarks.
var directGradRowsBytes = 512 << 10

// directGradPrefetchBytes is the size of a group's channel-major input
// (DirectScratch.xc) from which the weight gradient's kernels prefetch
// the input an input channel ahead of the one they read: AlexNet's
// conv2–conv5 (2.8–3.7 MB a block) stream their input from the L3 cache,
// and the rows of each group of weights came late without; CIFAR-10
// quick's (0.3–0.8 MB) stay in the L2 cache. A variable for benchmarks.
var directGradPrefetchBytes = 1 << 20

// directLoadChannels is about how many output channels LoadGradTiles
// takes together: their planes of a block stay in the L2 cache (AlexNet's
// 13×13 planes of 16 images, 16 channels: 173 KB; its 27×27 ones, 746 KB)
// while it writes their vectors pixel by pixel; a variable for
// benchmarks.
var directLoadChannels = 16

// loaded panics unless s holds the gradient of n images.
func (d *DirectConv) loaded(name string, s *DirectScratch, n int) {
	if s.n != n {
		panic(fmt.Sprintf("kernel: DirectConv.%s: the scratch holds the gradient of %d images, not %d (LoadGrad first)", name, s.n, n))
	}
}

// BackwardData computes the input gradient dx (n images, NCHW) from the
// output gradient in s (LoadGrad) and the weights packed by PackBackward.
// Each input row multiplies only the kernel rows that meet output rows
// (the others would read the zero border of the padded gradient).
func (d *DirectConv) BackwardData(s *DirectScratch, dx []float32, n int) {
	d.check("BackwardData", s, nil, 0, n, len(dx), n*d.imgSize)
	d.loaded("BackwardData", s, n)
	// The padded gradient holds the output rows after p0 rows of zeros.
	p0 := d.kh - 1 - d.padH
	p := directPass{
		w: d.wb, packed: d.packedB, kk: d.m * d.kh * d.kw, off: d.offB, tiles: d.bTiles, chunks: d.bChunks, band: d.bBand,
		in: s.dy, chans: d.m, pixStep: d.ms, rowStep: d.dw * d.ms, pad: p0, inRows: d.oh, padW: d.kw - 1 - d.padW, valid: d.ow,
		outs: d.c, outAll: d.cAll, rows: d.h, width: d.w,
	}
	if d.wino {
		d.winoPass(p, d.ub, d.wbChunks, s, dx, n, nil)
		return
	}
	d.convolveChunks(p, s.y, dx, n, nil)
}

// WeightGrad adds to dw (Caffe's [outputs][channels/groups][kh][kw]) the
// weight gradient of n images: their input x and output gradient dy
// (NCHW). The lanes are summed over the block's pixels and images before
// they are added.
//
// A group's input is interleaved channel-major and its gradient tile by
// tile, so that the kernel's calls read both in order. The output
// channels of a few tiles share a chunk of weights (channels of the
// input): their calls run a band of output rows at a time, the sums in
// the scratch between bands, and the chunk's sums are added to dw before
// the next. Each weight's sum runs over the rows and pixels in order,
// whatever the blocking.
func (d *DirectConv) WeightGrad(s *DirectScratch, x, dy []float32, n int, dw []float32) {
	d.check("WeightGrad", s, nil, 0, n, len(x), n*d.imgSize, len(dy), n*d.outSize, len(dw), d.mAll*d.kk)
	d.weightGrad(s, x, dy, n, dw, nil, nil, nil, nil)
}

// PrepareWeightGrad makes the buffers of s that the weight gradient
// (WeightGrad and its variants, with the pooling p or nil) uses, which
// the first call would make: a layer calls it for every goroutine's
// scratch before a backward pass, so that a goroutine whose first weight
// gradient comes late in training does not allocate then. It returns the
// rows of output a band of the pooling's gradient holds.
func (d *DirectConv) PrepareWeightGrad(s *DirectScratch, p *DirectPool) (gRows int) {
	L := d.lanes
	if s.xc == nil {
		s.xc = HugePageFloats(d.xcSize)
		s.dyp = HugePageFloats(d.dypSize)
		s.acc = make([]float32, d.gGroup*d.gmr*d.gChunk*L)
	}
	if d.gRowSums && s.rows == nil {
		s.rows = make([]float32, d.gGroup*d.gmr*d.kk)
	}
	if p != nil {
		// unpoolTiles' and unpoolBand's staging of the pooling's gradient.
		if need := max(p.ph*p.pw*L, p.band/p.sh*p.pw*d.ms*L); len(s.pool) < need {
			s.pool = make([]float32, need)
		}
	}
	gRows = d.gRows
	if p != nil && d.poolBands(p) {
		gRows = max(p.sh, d.gRows/p.sh*p.sh)
		if need := gRows * d.ow * d.gmr * L; len(s.band) < need {
			s.band = make([]float32, need)
		}
		if need := d.gGroup * d.gmr * d.k.sumBuckets * L; len(s.buckets) < need {
			s.buckets = make([]float32, need)
		}
	}
	return gRows
}

// weightGrad is WeightGrad; with a pooling p, the output gradient comes
// from the pooling's gradient pdy and the block's mask (see
// WeightGradPooled), and is written to dy unless dy is nil, and its
// planes' sums added to db unless db is nil (WeightGradPooledBias).
func (d *DirectConv) weightGrad(s *DirectScratch, x, dy []float32, n int, dw []float32, p *DirectPool, pdy []float32, mask []int32, db []float32) {
	L, f := d.lanes, 4
	gRows := d.PrepareWeightGrad(s, p)
	rows := d.gRowSums
	gnr, pf, P := d.gnr, d.gPrefetch, d.oh*d.ow
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	chunk := d.gChunk
	// The pooling's gradient is routed band by band where the weights
	// take one chunk: each band right before the calls that read it.
	bands := p != nil && d.poolBands(p)
	for g := range d.groups {
		d.loadChannelMajor(s, g, x, n)
		// The gradient loaded already (WeightGradLoaded) is read in
		// the tiles LoadGradTiles wrote, or where it lies if its pixels
		// are near enough for the kernels to stream through, else
		// copied tile by tile; the others are interleaved tile by tile.
		loaded := p == nil && dy == nil && d.ms <= directGradStride && !s.tiled
		dyp := s.dyp
		if p == nil && dy == nil && s.tiled {
			dyp = s.dyt[g*d.dypSize:]
		} else if p != nil {
			if !bands {
				d.unpoolTiles(s, p, g, pdy, mask, n, dy, db)
			}
		} else if dy == nil {
			if !loaded {
				d.tilesFromLoaded(s, g)
			}
		} else {
			for _, t := range d.gTiles {
				for i := range t.h {
					m := g*d.m + t.r0 + i
					d.k.interleave(&s.dyp[(t.r0*P+i)*L], t.h*L*f, &dy[m*P], d.outSize*f, P, n)
				}
			}
		}
		for t0 := 0; t0 < len(d.gTiles); t0 += d.gGroup {
			group := d.gTiles[t0:min(len(d.gTiles), t0+d.gGroup)]
			first := group[0].r0
			for k0 := 0; k0 < d.kp; k0 += chunk {
				k1 := min(d.kp, k0+chunk)
				if bands && db != nil {
					clear(s.buckets)
				}
				for r0 := 0; r0 < d.oh; r0 += gRows {
					nr := min(gRows, d.oh-r0)
					for _, t := range group {
						dyt, step, skip := &dyp[(t.r0*P+r0*d.ow*t.h)*L], t.h*L*f, 0
						if bands {
							d.unpoolBand(s, p, g, t, t.r0-first, r0, nr, pdy, mask, n, dy, db != nil)
							dyt = &s.band[0]
						}
						if loaded {
							// The tile's vectors of each pixel in the padded
							// pixel-major gradient.
							dyt = &s.dy[(((r0+p0)*d.dw+p1)*d.ms+g*d.m+t.r0)*L]
							step, skip = d.ms*L*f, (d.dw-d.ow)*d.ms*L*f
						}
						// The chunk's weights, gnr at a time, in one call.
						d.gradCall(t.h, dyt, step, skip, &s.xc[r0*d.pw*L], &d.offG[k0], (d.pw-d.ow)*L*f,
							nr, d.ow, &s.acc[(t.r0-first)*chunk*L], chunk*L*f, r0 > 0, (k1-k0)/gnr, pf)
					}
				}
				if bands && db != nil {
					d.bucketSums(s, g, group, n, db)
				}
				for _, t := range group {
					for i := range t.h {
						r := t.r0 + i
						if rows {
							d.k.laneSumsSet(&s.rows[(r-first)*d.kk+k0], &s.acc[(r-first)*chunk*L], min(k1, d.kk)-k0)
						} else {
							d.k.laneSums(&dw[(g*d.m+r)*d.kk+k0], &s.acc[(r-first)*chunk*L], min(k1, d.kk)-k0)
						}
					}
				}
			}
			if rows {
				// The group's rows of dw follow each other: one pass adds
				// the sums, which every chunk has set.
				last := group[len(group)-1]
				n := (last.r0 + last.h - first) * d.kk
				AddRows(dw[(g*d.m+first)*d.kk:], n, s.rows, n, 1, n)
			}
		}
	}
}

// loadChannelMajor interleaves group g's channels of the n images x
// (NCHW) into s.xc, channel-major, the border zero.
func (d *DirectConv) loadChannelMajor(s *DirectScratch, g int, x []float32, n int) {
	L, f := d.lanes, 4
	for c := range d.c {
		for y := range d.h {
			d.k.interleave(&s.xc[((c*d.ph+y+d.padH)*d.pw+d.padW)*L], L*f, &x[((g*d.c+c)*d.h+y)*d.w], d.imgSize*f, d.w, n)
		}
	}
}

// The portable kernels: the reference the assembly is tested against,
// and the implementation for CPUs without it (used in tests).

// at returns the float at byte offset off from p.
func at(p *float32, off int) *float32 { return (*float32)(unsafe.Add(unsafe.Pointer(p), off)) }

func directTileGo(lanes int) func(mr, k, krows, kskip int, a, x *float32, off *int32, xstep int, y *float32, ystep, npix int, loadY bool) {
	return func(mr, k, krows, kskip int, a, x *float32, off *int32, xstep int, y *float32, ystep, npix int, loadY bool) {
		span := max(0, (krows-1)*(k+kskip)+k)
		as := unsafe.Slice(a, span*mr)
		offs := unsafe.Slice(off, span)
		for p := range npix {
			for i := range mr {
				for l := range lanes {
					var s float32
					for r := range krows {
						for kk := r * (k + kskip); kk < r*(k+kskip)+k; kk++ {
							s += as[kk*mr+i] * *at(x, p*xstep+int(offs[kk])+4*l)
						}
					}
					dst := at(y, p*ystep+4*(i*lanes+l))
					if loadY {
						*dst += s
					} else {
						*dst = s
					}
				}
			}
		}
	}
}

func directGradGo(lanes, nr int) func(mr int, dy *float32, dyRow, dyStep int, x *float32, offs *int32, xRow, xStep, oh, ow int, acc *float32, accRow int, load bool) {
	return func(mr int, dy *float32, dyRow, dyStep int, x *float32, offs *int32, xRow, xStep, oh, ow int, acc *float32, accRow int, load bool) {
		os := unsafe.Slice(offs, nr)
		for i := range mr {
			for j := range nr {
				for l := range lanes {
					dst := at(acc, i*accRow+4*(j*lanes+l))
					var s float32
					if load {
						s = *dst
					}
					for oy := range oh {
						for ox := range ow {
							s += *at(dy, oy*dyRow+ox*dyStep+4*(i*lanes+l)) * *at(x, oy*xRow+ox*xStep+int(os[j])+4*l)
						}
					}
					*dst = s
				}
			}
		}
	}
}

func directGradSeqGo(lanes, nr int) func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
	grad := directGradGo(lanes, nr)
	return func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
		const f = 4
		for g := range groups {
			grad(mr, dy, ow*dyStep+dySkip, dyStep, x, (*int32)(unsafe.Add(unsafe.Pointer(offs), g*nr*f)), ow*lanes*f+xSkip, lanes*f, oh, ow,
				at(acc, g*nr*lanes*f), accRow, load)
		}
	}
}

// directGradWinGo is directGradSeqGo for the nine weights of an input
// channel of a 3×3 kernel, read from each channel's first offset in rows
// of ow vectors and xSkip bytes.
func directGradWinGo(lanes int) func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
	seq := directGradSeqGo(lanes, 9)
	return func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
		const f = 4
		row := int32(ow*lanes*f + xSkip)
		for g := range groups {
			off := *(*int32)(unsafe.Add(unsafe.Pointer(offs), g*9*f))
			var win [9]int32
			for j := range win {
				win[j] = off + int32(j/3)*row + int32(j%3*lanes*f)
			}
			seq(mr, dy, dyStep, dySkip, x, &win[0], xSkip, oh, ow, at(acc, g*9*lanes*f), accRow, load, 1, pf)
		}
	}
}

// directGradRowGo is directGradSeqGo for kernel rows of gradRowWidth
// weights whose input vectors follow each other from each row's offset.
func directGradRowGo(lanes int) func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
	seq := directGradSeqGo(lanes, gradRowWidth)
	return func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
		const f = 4
		for g := range groups {
			off := *(*int32)(unsafe.Add(unsafe.Pointer(offs), g*gradRowWidth*f))
			var row [gradRowWidth]int32
			for j := range row {
				row[j] = off + int32(j*lanes*f)
			}
			seq(mr, dy, dyStep, dySkip, x, &row[0], xSkip, oh, ow, at(acc, g*gradRowWidth*lanes*f), accRow, load, 1, pf)
		}
	}
}

func interleaveGo(lanes int) func(dst *float32, dstStep int, src *float32, srcStride, w, n int) {
	return func(dst *float32, dstStep int, src *float32, srcStride, w, n int) {
		for x := range w {
			for r := range lanes {
				var v float32
				if r < n {
					v = *at(src, r*srcStride+4*x)
				}
				*at(dst, x*dstStep+4*r) = v
			}
		}
	}
}

func deinterleaveGo(lanes int) func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32) {
	return func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32) {
		for r := range n {
			for x := range w {
				*at(dst, r*dstStride+4*x) = *at(src, x*srcStep+4*r) + bias
			}
		}
	}
}

func packTileGo(dst, src *float32, h, n, lda, ldd int, alpha float32) {
	for p := range n {
		for i := range h {
			*at(dst, 4*(p*ldd+i)) = alpha * *at(src, 4*(i*lda+p))
		}
	}
}

// laneSumsGo is laneSums for the portable implementation.
func laneSumsGo(lanes int) func(dst, src *float32, n int) { return laneSumsRef(lanes, true) }

// laneSumsRef returns the portable lane sums: each vector's lanes added
// first to last, the sum added to dst[i] (add) or stored there.
func laneSumsRef(lanes int, add bool) func(dst, src *float32, n int) {
	return func(dst, src *float32, n int) {
		d := unsafe.Slice(dst, n)
		s := unsafe.Slice(src, n*lanes)
		for i := range n {
			sum := s[i*lanes]
			for l := 1; l < lanes; l++ {
				sum += s[i*lanes+l]
			}
			if add {
				d[i] += sum
			} else {
				d[i] = sum
			}
		}
	}
}

// laneSumsSetGo is laneSumsGo storing the sums.
func laneSumsSetGo(lanes int) func(dst, src *float32, n int) { return laneSumsRef(lanes, false) }

// planeSumsGo is planeSums for the portable implementation, whose Sum
// adds the floats one after the other from zero.
func planeSumsGo(lanes int) func(dst, src *float32, step, n int) {
	return func(dst, src *float32, step, n int) {
		d := unsafe.Slice(dst, lanes)
		clear(d)
		for p := range n {
			v := unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(src), p*step)), lanes)
			for l := range lanes {
				d[l] += v[l]
			}
		}
	}
}

// planeSumsAddGo is planeSumsAdd for the portable implementation.
func planeSumsAddGo(lanes int) func(dst, src *float32, step, n int) {
	return func(dst, src *float32, step, n int) {
		d := unsafe.Slice(dst, n*lanes)
		for i := range n {
			v := unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(src), i*step)), lanes)
			for l := range lanes {
				d[i*lanes+l] += v[l]
			}
		}
	}
}

// planeSumsAtGo is planeSumsAt for the portable implementation.
func planeSumsAtGo(lanes int) func(dst, src *float32, offs *int32, pix, n int) {
	return func(dst, src *float32, offs *int32, pix, n int) {
		d := unsafe.Slice(dst, lanes)
		clear(d)
		for _, o := range unsafe.Slice(offs, n) {
			v := unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(src), int(o)*pix)), lanes)
			for l := range lanes {
				d[l] += v[l]
			}
		}
	}
}

// goDirect is the portable direct convolution: 8 lanes, in Go. It is
// slower than the column products and serves only as the reference.
var goDirect = &directKernels{
	lanes: 8, mr: 6, gmr: 3, gnr: 4,
	tile: directTileGo(8), grad: directGradGo(8, 4), gradSeq: directGradSeqGo(8, 4),
	gradRow: directGradRowGo(8), rmr: 2, gradWin: directGradWinGo(8), wmr: 2,
	winoIn: winoInGo(8), winoOut: winoOutGo(8), winoFilter: winoFilterGo, winoIn6: winoIn6Go(8), winoOut6: winoOut6Go(8),
	interleave: interleaveGo(8), deinterleave: deinterleaveGo(8), laneSums: laneSumsGo(8), laneSumsSet: laneSumsSetGo(8),
	planeSums: planeSumsGo(8), planeSumsAt: planeSumsAtGo(8), sumBuckets: 1, sumWidth: 1, planeSumsAdd: planeSumsAddGo(8),
	maxPool: goDirectPoolMax(8), unpool: goDirectUnpool(8), deinterleaveStream: deinterleaveGo(8),
	biasRelu: goDirectBiasRelu(8), reluGradBits: goDirectReluGradBits(8), avePool: goDirectPoolAve(8),
	unpoolAdd: goDirectUnpoolAdd(8), spreadAve: goDirectSpreadAve(8), putRows: goDirectPutRows(8),
	packTile: packTileGo,
}
