//go:build noasm || !amd64

package kernel

// available lists the implementations this build runs: the portable one.
func available() []*gemmImpl { return []*gemmImpl{goGemm} }
