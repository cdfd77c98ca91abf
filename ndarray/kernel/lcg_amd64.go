//go:build !noasm

package kernel

// lcgFill runs LCGFill's vector kernel of the active implementation on
// the longest front of dst that is a whole number of its steps (four
// vectors of states) and returns how many values it wrote and the last
// state; LCGFill writes the rest.
func lcgFill(dst []float32, state, mul, add uint32) (int, uint32) {
	var per int
	switch active.name {
	case "avx512":
		per = 64
	case "avx2":
		per = 32
	default:
		return 0, state
	}
	n := len(dst) &^ (per - 1)
	if n == 0 {
		return 0, state
	}
	var tab [2*64 + 2]uint32
	lcgTable(tab[:2*per+2], per, mul, add)
	if per == 64 {
		return n, lcgFillAVX512(dst[:n], state, &tab[0])
	}
	return n, lcgFillAVX2(dst[:n], state, &tab[0])
}
