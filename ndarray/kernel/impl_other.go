//go:build noasm || !amd64

package kernel

// available lists the implementations this build runs: the portable one.
func available() []*gemmImpl { return []*gemmImpl{goGemm} }

// col2imImageRow is never called: no implementation of this build sets
// vecImpl.col2imImageRow.
func col2imImageRow(dst, col []float32, masks []uint16, offs []int32, kiCount, kiStep, kw int) {
	panic("kernel: col2imImageRow without an implementation")
}
