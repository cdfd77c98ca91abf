package kernel

// LCGFill sets dst[i] to the top 24 bits of the generator's next states,
// over 2²⁴ (uniform in [0, 1)): s[0] = state, s[i+1] = mul·s[i] + add
// (mod 2³²), dst[i] = float32(s[i+1]>>8) / 2²⁴; it returns the last state
// (state itself for an empty dst). The vector kernels step four vectors of
// consecutive states at once by the generator's step of as many values
// (each lane's multiplier and addend from lcgTable), the same states and
// values bit for bit as one value at a time: the 24-bit integers convert
// exactly, and the scaling by a power of two is exact.
func LCGFill(dst []float32, state, mul, add uint32) uint32 {
	n, state := lcgFill(dst, state, mul, add)
	return lcgFillGo(dst[n:], state, mul, add)
}

// lcgFillGo is LCGFill one value at a time.
func lcgFillGo(dst []float32, state, mul, add uint32) uint32 {
	for i := range dst {
		state = mul*state + add
		dst[i] = float32(state>>8) / (1 << 24)
	}
	return state
}

// lcgTable fills tab (2·per + 2 values) for the vector kernels' per
// consecutive states: the multiplier and the addend of the generator's
// step of j+1 values (tab[j], tab[per+j]) for j < per, then those of the
// step of per values. The step of k values is s ↦ A·s + C with
// A = mul^k and C = add·(mul^(k−1) + … + mul + 1), mod 2³².
func lcgTable(tab []uint32, per int, mul, add uint32) {
	a, c := uint32(1), uint32(0)
	for j := range per {
		a, c = mul*a, mul*c+add
		tab[j], tab[per+j] = a, c
	}
	tab[2*per], tab[2*per+1] = a, c
}
