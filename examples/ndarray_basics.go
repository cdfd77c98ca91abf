//go:build ignore

// # NDArray basics
//
// sparknet computes on `ndarray.Array`: n-dimensional arrays of float32
// values, printed the way numpy prints them. This notebook walks through
// creating arrays, views that share memory, broadcasting, reductions and
// matrix products, and the `WeightCollection` that SparkNet averages.
//
// Run it cell by cell in the shell (`:load examples/ndarray_basics.go`) or
// as a report:
//
//     go run ./cmd/sparknet-shell --notebook examples/ndarray_basics.go --out ndarray_basics.md

// %% Creating arrays
// `FromValues` takes the values, `Reshape` gives them a shape. The shell
// prints an array under a header with its shape.
a := ndarray.FromValues(1, 2, 3, 4, 5, 6).Reshape(2, 3)
a

// %% Constructors
// `Zeros`, `Ones`, `Full` and `Arange` make arrays of a given shape;
// `Rand` and `Randn` take a seed, so the numbers repeat.
fmt.Println(ndarray.Zeros(2, 2))
fmt.Println(ndarray.Arange(0, 1, 0.25))
ndarray.Randn(7, 2, 3)

// %% Views share memory
// `Index`, `Slice`, `Reshape` and `T` return views of the same storage:
// scaling the second row in place changes `a`.
row := a.Index(0, 1)
row.ScaleInPlace(10)
a

// %% Broadcasting
// Binary operations broadcast as numpy does: a row of three values is
// added to every row.
a.Add(ndarray.FromValues(100, 200, 300))

// %% Reductions
// Reductions take an axis; the `All` forms reduce everything.
fmt.Println("column sums:", a.Sum(0))
fmt.Println("row maxima: ", a.Max(1))
fmt.Printf("mean of all: %.2f, norm: %.2f\n", a.MeanAll(), a.Norm())

// %% Matrix products
// `MatMul` multiplies matrices with sparknet's own vectorised kernels.
g := a.T().MatMul(a)
g

// %% Random numbers and a histogram
// A million normal samples: their mean is near 0 and their standard
// deviation near 1. The sparkline is the histogram.
r := ndarray.Randn(1, 1000000)
mean := r.MeanAll()
std := math.Sqrt(r.AddScalar(float32(-mean)).Apply(func(v float32) float32 { return v * v }).MeanAll())
fmt.Printf("mean %.3f, std %.3f\n", mean, std)
counts := make([]float64, 24)
for _, v := range r.Data() {
	if b := int((v + 3) / 6 * 24); b >= 0 && b < 24 {
		counts[b]++
	}
}
display.Sparkline(counts)

// %% Shape errors
// A shape mismatch is a programming error: the operation panics. The
// shell reports the panic and carries on; `ndarray.Try` turns it into an
// error wrapping `ndarray.ErrShape`.
err := ndarray.Try(func() { a.Add(ndarray.Ones(4)) })
fmt.Println(err)
errors.Is(err, ndarray.ErrShape)

// %% Weight collections
// A `WeightCollection` holds each layer's parameter arrays, in net
// order. SparkNet's averaging is arithmetic on them; the shell shows one
// as a table of layer, shape and norm.
w1 := ndarray.NewWeightCollection()
w1.Set("conv1", ndarray.Full(1, 20, 1, 5, 5), ndarray.Zeros(20))
w1.Set("ip1", ndarray.Full(0.5, 10, 500), ndarray.Zeros(10))
w2 := w1.Clone().ScaleInPlace(3)
avg := ndarray.Average(w1, w2)
avg
