//go:build !linux

package repl

// totalMemory returns the machine's memory, or 0 where it is not
// measured.
func totalMemory() int64 { return 0 }
