//go:build noasm || !amd64

package kernel

// lcgFill leaves LCGFill's values to lcgFillGo.
func lcgFill(dst []float32, state, mul, add uint32) (int, uint32) { return 0, state }
