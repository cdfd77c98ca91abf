//go:build ignore

// Untyped integer constants divide as integers even where the result is a
// float, a constant list repeats the expressions before it, and real,
// imag and complex of constants are constants.
package main

import "fmt"

const scale = 10

const cz = 1 + 2i

const (
	lo, hi = iota, iota * 2
	lo1, hi1
	lo2, hi2
)

type Weekday int

const (
	Sunday, FirstDay Weekday = iota, iota + 1
	Monday, SecondDay
)

func half() float64 { return 7 / 2 }

func celsius(f float64) float64 { return (f - 32) * 5 / 9 }

func main() {
	var f float64 = 7 / 2
	var g float64
	g = 1 / 2 * 10
	fmt.Println(f, g, half())
	x := 7 / 2 * 1.0
	fmt.Printf("%v %T\n", x, x)
	var c complex128 = 5 / 2
	fmt.Println(c)
	fmt.Println(float32(9/5), 9.0/5, scale/4*1.5, -7/2+0.5)
	var h float64 = 7.0 / 2
	fmt.Println(h, 1/3.0)
	avg := float64(17) / 4
	fmt.Println(avg, 17%5*1.0)
	fmt.Printf("%.1f %.1f\n", celsius(212), celsius(98.6))
	fmt.Println(lo, hi, lo1, hi1, lo2, hi2)
	fmt.Println(Sunday, FirstDay, Monday, SecondDay)
	var ratio float64 = 2 / 3 * 100
	pct := 2.0 / 3 * 100
	fmt.Printf("%.2f %.2f\n", ratio, pct)
	fmt.Println(real(cz), imag(cz))
	const d = complex(3, 4)
	fmt.Println(d, real(d)*2, imag(d)/3)
	fmt.Printf("%T %T\n", real(cz), real(complex64(cz)))
	var f32 float32 = imag(cz)
	z := 2 + 3i
	fmt.Println(f32, real(z), imag(z))
}
