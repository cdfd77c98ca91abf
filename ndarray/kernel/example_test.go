package kernel_test

import (
	"fmt"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func ExampleSgemm() {
	// c (2×2) = a (2×3) · b (3×2)
	a := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float32{
		1, 0,
		0, 1,
		1, 1,
	}
	c := make([]float32, 4)
	kernel.Sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)

	// c += aᵀ (3×2) · a (2×3)'s first two columns, read through lda = 3.
	d := make([]float32, 9)
	kernel.Sgemm(true, false, 3, 3, 2, 1, a, 3, a, 3, 0, d, 3)
	fmt.Println(d)
	// Output:
	// [4 5 10 11]
	// [17 22 27 22 29 36 27 36 45]
}

func ExampleIm2col() {
	// One 3×3 channel, a 2×2 kernel, stride 1, no padding: four output
	// positions, each column holding one 2×2 window.
	img := []float32{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	}
	col := make([]float32, 4*4)
	kernel.Im2col(img, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, col)
	for r := 0; r < 4; r++ {
		fmt.Println(col[r*4 : r*4+4])
	}
	// Output:
	// [1 2 4 5]
	// [2 3 5 6]
	// [4 5 7 8]
	// [5 6 8 9]
}

func ExampleDot() {
	x := []float32{1, 2, 3}
	y := []float32{4, 5, 6}
	fmt.Println(kernel.Dot(x, y))
	kernel.Axpy(2, x, y) // y += 2x
	fmt.Println(y)
	// Output:
	// 32
	// [6 9 12]
}

func ExampleMaxPoolRow() {
	// A 2×6 plane pooled by 2×2 windows at stride 2: one row of three
	// outputs, each the largest of its window and that value's index.
	plane := []float32{
		1, 5, 2, 2, 0, -1,
		3, 4, 7, 2, -3, -2,
	}
	y, arg := make([]float32, 3), make([]int32, 3)
	kernel.MaxPoolRow(y, arg, plane, 3, 2, 6, 2, 2, 0)
	fmt.Println(y, arg)
	// Average pooling: the window sums divided by 4.
	kernel.AvePoolRow(y, plane, 3, 2, 6, 2, 2, 4)
	fmt.Println(y)
	// Output:
	// [5 7 0] [1 8 4]
	// [3.25 3.25 -1.5]
}

func ExampleRelu() {
	x := []float32{-2, -0.5, 0, 1.5}
	y := make([]float32, len(x))
	kernel.Relu(y, x, 0.1) // leaky, negative_slope 0.1
	fmt.Println(y)
	dy := []float32{1, 1, 1, 1}
	kernel.ReluGrad(dy, dy, x, 0.1)
	fmt.Println(dy)
	// Output:
	// [-0.2 -0.05 0 1.5]
	// [0.1 0.1 0.1 1]
}

func ExampleIm2colLd() {
	// The columns of two 2×2 images side by side: a 1×1 kernel makes one
	// row of four values per image, and ldc = 8 puts the second image's
	// after the first's.
	imgs := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	col := make([]float32, 8)
	for j := 0; j < 2; j++ {
		kernel.Im2colLd(imgs[j*4:(j+1)*4], 1, 2, 2, 1, 1, 0, 0, 1, 1, 1, 1, col[j*4:], 8)
	}
	fmt.Println(col)
	// Output:
	// [1 2 3 4 5 6 7 8]
}
