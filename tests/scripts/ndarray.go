//go:build ignore

// NDArrays print numpy-style; weight collections draw as tables; shape
// errors come back as errors from ndarray.Try.
a := ndarray.Arange(0, 6, 1).Reshape(2, 3)
fmt.Println(a)
fmt.Println(a.Sum(0))
fmt.Println(a.T().MatMul(a).Shape())

wc := ndarray.NewWeightCollection()
wc.Set("ip1", ndarray.Ones(2, 2), ndarray.Zeros(2))
fmt.Print(display.WeightTable(wc))

err := ndarray.Try(func() { a.Add(ndarray.Ones(4)) })
fmt.Println(errors.Is(err, ndarray.ErrShape))

// Output:
// Array[2 3] float32
// [[0. 1. 2.]
//  [3. 4. 5.]]
// Array[3] float32
// [3. 5. 7.]
// [3 3]
// WeightCollection{1 layers, 6 params}
// ┌───────┬──────┬───────┬──────┐
// │ layer │ blob │ shape │ norm │
// ├───────┼──────┼───────┼──────┤
// │ ip1   │    0 │ 2×2   │    2 │
// │ ip1   │    1 │ 2     │    0 │
// └───────┴──────┴───────┴──────┘
// true
