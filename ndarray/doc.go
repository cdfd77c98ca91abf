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
// # NumPy files
//
// Load reads a NumPy .npy file and Save writes one, so arrays move
// between Python and Go:
//
//	a, err := ndarray.Load("x.npy") // np.save("x.npy", x) in Python
//	err = ndarray.Save("y.npy", a)  // np.load("y.npy")
//
// Load reads float16, float32, float64, the signed and unsigned integers
// and bool, in either byte order and in C or Fortran order; values become
// float32. SaveAs writes float64, uint8, int32 or int64 instead of
// float32. LoadNpz and SaveNpz read and write .npz archives of named
// arrays (numpy.savez and numpy.savez_compressed). Damaged files are
// errors wrapping ErrNpy that name the file, the byte and the problem;
// the shape a header declares is checked against the file's size before
// anything is allocated.
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
