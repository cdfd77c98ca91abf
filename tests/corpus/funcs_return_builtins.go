//go:build ignore

package main

import "fmt"

func f1(b []byte) (int, int)       { return 0, len(b) }
func f2(b []byte) (int, int)       { x := 5; return x, len(b) }
func f3(b []byte) (int, int)       { return len(b), 0 }
func f4(b []byte) (int, int, int)  { return 1, 2, len(b) }
func f5(b []byte) (string, int)    { return "s", len(b) }
func f6(b []byte) (int, int)       { return 0, cap(b) }
func f7(b []byte) ([]byte, int)    { return b, len(b) }
func f8(b []byte) (int, int)       { return 0, len(b) + 0 }
func f9(b []byte) (int, []byte)    { return 0, append(b, 9) }
func f10(m map[int]int) (int, int) { return 0, len(m) }
func f11(b []byte) (int, int)      { n := len(b); return 0, n }
func f12(b []byte) (x, y int)      { return 0, len(b) }
func f14(s string) (int, int)      { return 0, len(s) }

func main() {
	more()
	b := []byte{1, 2, 3}
	fmt.Println(f1(b))
	fmt.Println(f2(b))
	fmt.Println(f3(b))
	fmt.Println(f4(b))
	fmt.Println(f5(b))
	fmt.Println(f6(b))
	fmt.Println(f7(b))
	fmt.Println(f8(b))
	fmt.Println(f9(b))
	fmt.Println(f10(map[int]int{1: 1}))
	fmt.Println(f11(b))
	fmt.Println(f12(b))
	fmt.Println(f14("abcd"))
}

type N int

func p1(b []byte) (int, int)         { return 0, len(b) }
func p4(b []byte) (int, int, int)    { return 1, 2, len(b) }
func p5(b []byte) (string, int)      { return "s", len(b) }
func p7(b []byte) (float64, []byte)  { return 1.5, append(b, 4) }
func g1(b []byte) any                { return len(b) }
func g2(b []byte) fmt.Stringer       { return nil }
func g3(b []byte) (any, error)       { return len(b), nil }
func g4(x float64) (int, complex128) { return 0, complex(x, 1) }
func g5() (int, *int)                { return 0, new(int) }
func g6() (int, map[string]int)      { return 0, make(map[string]int) }

func more() {
	b := []byte{1, 2, 3}
	fmt.Println(p1(b))
	fmt.Println(p4(b))
	fmt.Println(p5(b))
	fmt.Println(p7(b))
	fmt.Println(g1(b))
	fmt.Println(g2(b))
	fmt.Println(g3(b))
	fmt.Println(g4(2))
	_, p := g5()
	fmt.Println(*p)
	fmt.Println(g6())
}
