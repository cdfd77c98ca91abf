// Package kernel holds sparknet's float32 compute kernels: matrix products
// (SGEMM in the four transpose cases Caffe uses), im2col and col2im for 2-D
// convolution, and vector primitives (axpy, scale, dot).
//
// All matrices are row-major. Every function works on plain []float32
// slices, so NDArrays and Caffe blobs can pass their backing storage
// without copying.
//
// # Single and multi-threaded use
//
// Sgemm runs on the calling goroutine. SgemmParallel may split a large
// product over up to the given number of goroutines; each local SparkNet
// worker runs its net single-threaded and so calls the single-threaded
// forms.
package kernel
