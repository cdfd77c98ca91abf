// Package ndarray provides sparknet's n-dimensional float32 arrays and the
// WeightCollection that SparkNet averages.
//
// # Arrays
//
// An Array is a shape and strides over a backing []float32. Slices,
// reshapes and transposes are views that share that storage; Copy makes an
// independent array. The storage of a contiguous array is reachable without
// a copy through Data, so Caffe blobs and the compute kernels in package
// kernel work on the same memory:
//
//	a := ndarray.FromValues(1, 2, 3, 4, 5, 6).Reshape(2, 3)
//	row := a.Index(0, 1)        // view of the second row
//	row.ScaleInPlace(10)        // a is now [[1 2 3] [40 50 60]]
//	b := a.T().MatMul(a)        // 3×3
//	fmt.Println(b.Sum(0))       // column sums
//
// Arrays interoperate with gorgonia.org/tensor: Dense returns a
// *tensor.Dense sharing the storage of a contiguous array, and FromDense
// wraps a tensor's backing slice.
//
// Binary operations broadcast as numpy does. Shape errors are programmer
// errors: methods panic with an error wrapping ErrShape, which Try turns
// back into an error (the shell reports such panics and carries on).
//
// Random fills take seeds, so results repeat: Rand, Randn, FillXavier and
// FillMSRA (Caffe's fillers, with fan-in computed as Caffe does).
//
// # Weight collections
//
// A WeightCollection maps layer names, in net order, to each layer's
// parameter arrays. Add, Sub, Scale, Axpy, Average, Dot and Norm do the
// arithmetic of model averaging; MarshalBinary and
// DecodeWeightCollection give the compact encoding used for broadcasts and
// MPI collectives, and the decoder rejects damaged bytes with an error
// wrapping ErrCorrupt.
package ndarray
