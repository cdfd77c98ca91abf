//go:build ignore

// Constants whose values are comparisons and logical operations, and float
// constants computed from another package's (math.Pi * 2), at the package
// level and in a function, typed and untyped.
package main

import (
	"fmt"
	"math"
	"time"
)

type Level int

const (
	Debug Level = iota
	Info
	Warn
)

const current = Info
const verbose = current <= Debug
const enabled = current >= Info

const (
	big        = 3 > 2
	typed bool = 3 > 2
	not        = !false
	both       = true && 1 < 2
	same       = "a" == "a"
	later      = time.Second > time.Millisecond
	runes      = 'a' < 'b'
)

const TwoPi = math.Pi * 2

const (
	Half   = math.Pi / 2
	EPlus  = math.E + 1
	Scaled = math.MaxInt8 * 2
	F32    = float32(math.Pi)
)

var table [3]int

func main() {
	fmt.Println(verbose, enabled, big, typed, not, both, same, later, runes)
	if big && enabled {
		fmt.Println("taken")
	}
	x := big
	fmt.Printf("%v %T\n", x, big)
	fmt.Println(TwoPi, float64(TwoPi), float32(TwoPi))
	fmt.Println(float64(Half), float32(Half), float64(EPlus), int(Scaled), F32)
	const local = len(table) > 2
	const Root = math.Sqrt2 * 2
	fmt.Println(local, float64(Root), float32(Root)*1, math.Sin(TwoPi) < 1e-15)
}
