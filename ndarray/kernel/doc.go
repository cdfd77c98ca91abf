// Package kernel holds sparknet's float32 compute kernels: matrix products
// (SGEMM in the four transpose cases Caffe uses), im2col and col2im and a
// direct convolution for 2-D convolution, vector primitives (axpy, axpby,
// scale, add, mul, div, dot, sum, max, exp, sqrt, and SGDStep, a solver's
// SGD step in one pass, with SGDStepTo, the same step from a gradient in a
// buffer, its update written to memory with non-temporal stores) and the
// inner loops of other layers (ReLU, rows of
// max and average pooling, copies and sums of blocks of short rows).
//
// All matrices are row-major. Every function works on plain []float32
// slices, so NDArrays and Caffe blobs can pass their backing storage
// without copying:
//
//	// c (2×2) = a (2×3) · b (3×2)
//	a := []float32{1, 2, 3, 4, 5, 6}
//	b := []float32{1, 0, 0, 1, 1, 1}
//	c := make([]float32, 4)
//	kernel.Sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
//
// # Layer kernels
//
// DirectConv computes 2-D convolutions with stride 1 and no dilation
// without column matrices: on blocks of images interleaved in the lanes
// of a vector (16 with AVX-512, 8 with AVX2), the forward pass and the
// input gradient are register-tiled products whose B operand is read from
// the padded input block through a table of offsets, and the weight
// gradient sums over the pixels and images of a block in the lanes before
// adding them, reading the input channel-major and the output gradient
// tile by tile, in order (or, after LoadGrad, where it lies if its pixels
// are near; LoadGradTiles writes both layouts and the bias gradient, after
// an in-place ReLU's gradient, in one pass over the output gradient, a run
// of channels at a time, the padded gradient for the input gradient by
// non-temporal stores where it is larger than the L2 cache (AVX-512)), a
// chunk of weights per kernel call (with AVX-512, a 5-wide
// kernel a kernel row at a time, so that two neighbouring pixels share
// their input vectors). NewDirectConv returns nil where the kernels in use have no
// direct convolution (the portable code) or the geometry is not one it
// takes. A MAX or AVE pooling of the output (NewMaxPool, NewPool: any
// windows without padding, overlapping and clipped ones included, after
// an in-place ReLU or not) runs on the interleaved output band while it
// is in the cache (ForwardPool), its mask and the ReLU's outcome kept
// interleaved, and its gradient is routed straight into the layouts the
// backward kernels read (LoadGradPooled, WeightGradPooled,
// WeightGradLoaded), with the same results as the layers one by one.
// A last block of at most half the lanes runs on a DirectTail
// (DirectConv.NewTail): the lanes hold a few images' vertical strips, each
// strip's rows with the columns its windows read beyond it, so that the
// same tile and weight-gradient kernels cost about what the images need
// instead of a full block. Its blocks and scratch of 2 MB or more are
// advised into transparent huge pages on Linux (a pass over one channel
// reads or writes a vector every pixel's worth of channels, 6 to 25 KB
// apart for AlexNet's layers).
//
// RowConv computes the forward pass of a stride-1 convolution one image at
// a time in its own layout, the output pixels of a row in the lanes: for
// few input channels and many outputs (CIFAR-10 quick's first), whose
// outputs an interleaved block would have to transpose, and for strided
// ones (AlexNet's first, stride 4) on a copy split into stride phases.
// Its sums are the column path's (im2col and Sgemm, the bias added), bit
// for bit. Its weight gradient (GradBegin, GradAdd, GradEnd) sums in the
// lanes over neighbouring output pixels, for images small enough to stay
// in the L1 cache, and for larger ones (AlexNet's) on flat rows: a copy
// split into stride phases along both axes, whose rows are the output's
// plus (kw-1) div strideW floats, so that an output row meets one run of
// floats for every weight (GradFits), with the output gradient transposed
// pixel-major and the output channels in the lanes: each input value is
// broadcast into aligned vectors of channels; where those rows waste
// fewer lanes than the row layout's, the forward pass runs on them too,
// with the same sums. Where the weights leave a place in the kernels' last
// tile, the bias gradient is summed there, from a region of ones
// (GradBias). ForwardReLU rectifies the output as it is written (on flat
// rows, each band on its way out). The flat copy of a stride-4 image
// splits each row into its four phases with the kernels' shuffles, a
// block of quads at a time (deint4).
//
// FCForward, FCInputGrad and FCWeightGrad are the three products of a fully
// connected layer at small batch (the output transposed, the input
// gradient, the weight gradient), which read the weights, or stream their
// gradient, in place instead of packing them on every call, with
// AVX-512, AVX2 and portable kernels. They compute Sgemm's results bit for
// bit (the same multiply-adds in the same order) and split into parts
// that goroutines run at once (FCParts), with results that do not depend
// on the number of parts; FCForwardRows names the rows a forward part
// computes, FCForwardPack and FCForwardPacked let the parts share one
// packed input, FCInputGradBlocks names the blocks of depth an input
// gradient may be split into (each summed apart, then added in order: the
// same bits), and TransposeAdd turns the transposed output, plus the bias,
// into the layer's. FCWeightGradSpan computes a part of the weight
// gradient, or any run of its row tiles, into a buffer of its own, and
// FCBackward a large layer's
// input and weight gradients in one pass over its weights, tile by tile,
// handing each piece of the weight gradient to the caller (a solver's
// update) while the tile is in the cache: the weights are read from
// memory once, with the bits of FCInputGrad and FCWeightGrad.
// BenchmarkMemoryBandwidth measures one core's read, write (plain and
// non-temporal), read-modify-write and update streams, the floor of these
// memory-bound passes.
//
// LCGFill writes the uniform values of a linear congruential generator
// (the synthetic batches of the training benchmarks and sparknet time):
// four vectors of consecutive states stepped side by side by the
// generator's step of as many values, the values of the generator stepped
// one at a time, bit for bit.
//
// Im2colLd and Col2imLd are Im2col and Col2im for column matrices that hold
// several images side by side (rows ldc floats apart), so that a
// convolution can multiply a chunk of images at once. Relu and ReluGrad are
// Caffe's ReLU with negative_slope; ReluSigns also records which outputs
// are positive, a bit each, from which ReluGradSigns computes ReluGrad's
// values without reading the outputs back. MaxPoolRow and AvePoolRow compute a
// row of pooled outputs with Caffe's rules (the first maximum wins; the
// average divides by a given window size), MaxPoolRows and AvePoolRows
// many rows in one call (with AVX-512 two rows at a time, so that their
// chains of compares overlap), the caller handling windows that the
// plane's edges clip; MaxPoolBackward routes the gradients to the maxima, scattering
// them at once when the windows do not overlap. MaxPoolPlane and
// MaxPoolBackwardPlane pool a whole unpadded plane and route its
// gradients; for the overlapping 3×3 windows of stride 2 they run one
// assembly call per plane (AVX-512 and AVX2) that reduces each input row
// along the windows' columns once, and that writes each input gradient
// once as the sum, in output order, of the outputs that chose it (no
// scatter), with the same results as the scalar rules. MaxPoolPlanes and
// MaxPoolBackwardPlanes do this for a run of planes; the 2×2 windows of
// stride 2 (LeNet's) take one assembly call for the whole run, two input
// rows split into their even and odd columns by lane permutes, and the
// gradient written an input row at a time. MaxPoolBackwardPlanesStream
// writes a gradient larger than the caches by non-temporal stores where
// the rows make whole aligned vectors (3×3 windows of stride 2, widths a
// multiple of 32 floats under AVX-512, of 8 under AVX2), skipping each
// line's read for ownership, with the same values. AvePoolPlane and
// AvePoolBackwardPlane do the same for average pooling, in the order of
// additions of the row kernels and of the layer's spread rows; under
// AVX-512, AvePoolPlanes on planes 16 or 8 wide with 8 or 4 outputs a row
// (CIFAR-10 quick's pool2 and pool3) fills each vector with the same
// output row of 2 or 4 planes, and AvePoolBackwardPlanes does so on the
// 8-wide ones; under AVX2, AvePoolPlanes on the 8-wide planes runs 2 planes
// to a vector; the same results. CopyRows
// and AddRows copy or add a block of short rows without a call per row.
// LRNScale, LRNForward75, LRNRatio, LRNRatio75 and LRNBackward are the
// steps of cross-channel local response normalisation over a channel
// plane, each one pass that computes what the separate primitives would,
// to the bit; LRNStep75 is LRNRatio75 and LRNBackward in one pass, and
// LRNBackwardReLU and LRNStep75 with relu also pass the gradient through
// an in-place ReLU's (as ReluGrad). Under AVX2 they run in 256-bit
// vectors, at the rate of the divider and square-root unit; under AVX-512
// those with β = ¾ run in 512-bit vectors and take their square roots on
// the FMA units (an estimate, a Goldschmidt step and a correction by the
// exact remainder), which give VSQRTPS's bits: the tests compare them for
// every float32 in [2⁻¹⁰⁰, 2¹⁰⁰), the range where they are used, and the
// package checks a sample at first use, keeping the 256-bit kernels on a
// core where they differ.
//
// The functions panic, with a message that starts with "kernel: ", on
// arguments that describe no valid matrix or image (a negative size, a
// leading dimension shorter than a row, a slice too short); callers that
// take shapes from users check them first.
//
// # Single and multi-threaded use
//
// Sgemm runs on the calling goroutine. SgemmParallel splits a product of
// at least 128³ multiply-adds into blocks of columns of C (of rows, when C
// is taller than wide) that the calling goroutine and up to threads-1
// long-lived worker goroutines claim one at a time, so a goroutine that
// gets a core to itself takes over the blocks of one that does not. Every
// block is computed with the operations that Sgemm runs on it, in the same
// order (a block of one row or column does not take the single-row or
// single-column path unless the whole product does), so the result does
// not depend on the number of threads, to the bit. Each
// local SparkNet worker runs its net single-threaded and so calls the
// single-threaded forms. Neither allocates once its packing buffers, which
// are kept for reuse (across garbage collections too), have grown to the
// sizes in use.
//
// # Implementations and dispatch
//
// The package carries three implementations of its kernels and picks the
// fastest the CPU supports when it is loaded (golang.org/x/sys/cpu):
//
//   - "avx512": AVX-512F (with BMI2, AVX2 and FMA). The SGEMM microkernel
//     keeps a tile of up to 14×32 floats of C in 28 zmm registers.
//   - "avx2": AVX2 and FMA, a 6×16 tile in 12 ymm registers; tiles and
//     transposed-B panels packed by 8×8 register transposes; pooling rows
//     (strides 1 and 2), stride-1 im2col/col2im rows and the whole-channel
//     stride-1 im2col in assembly, their partial vectors under VMASKMOVPS
//     lane masks. Row copies and sums and the whole-image-row col2im of
//     AVX-512 use the portable code or the row kernels instead.
//   - "go": portable Go, used on other architectures and with the noasm
//     build tag (go test -tags noasm).
//
// Implementation reports the choice and SetImplementation overrides it,
// which tests and benchmarks use to compare the paths. The environment
// variable SPARKNET_KERNELS (avx512, avx2 or go) makes the same choice for
// a whole program, e.g. to see how a run behaves on a CPU without
// AVX-512; a name this CPU cannot run leaves the default in place and
// ImplementationError says why.
//
// SGEMM follows the GotoBLAS/BLIS scheme: op(B) is packed kc×nc at a time
// into panels as wide as the tile, alpha·op(A) mc×kc at a time into tiles
// of nearly equal height (so that M = 20 runs as two 10-row tiles, not a
// 14-row and a 6-row one), and one assembly microkernel per tile height
// multiplies a tile by a panel in registers, masking the columns past the
// edge of C. Products with a single row or column of C go to the vector
// primitives instead.
//
// # Regenerating the assembly
//
// The assembly (*_amd64.s) and its Go declarations (*_stub_amd64.go) are
// generated by the avo program in internal/asmgen and committed; never
// edit them by hand. After changing the generator, run
//
//	go generate ./ndarray/kernel
//
// TestGeneratedCodeUpToDate fails while the committed files differ from
// what the generator writes.
//
// # Benchmarks
//
// BenchmarkSgemm reports GFLOP/s on square and convolution-shaped products
// on one and two threads. Built with the openblas tag (cgo and
// libopenblas-dev), it runs OpenBLAS's cblas_sgemm beside ours on the same
// operands:
//
//	go test -tags openblas -run '^$' -bench Sgemm -count 5 ./ndarray/kernel
//
// The single-thread variants also report cpu-GFLOP/s, measured with the
// thread's CPU time, which time stolen by other processes does not skew.
//
// # The FMA peak
//
// MeasurePeak runs the peak probe of the kernels in use: a loop of 12
// independent chains of vector multiply-adds held in registers (512-bit
// with AVX-512, 256-bit with AVX2, scalar Go in the portable code),
// generated with the other kernels, which runs at the rate the core's FMA
// units allow. It reports the rate per second of the thread's CPU time, the
// yardstick for the share of the peak that products and whole nets reach
// (BenchmarkPeak; `sparknet time --flops`).
package kernel

//go:generate go run ./internal/asmgen
