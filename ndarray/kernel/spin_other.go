//go:build !linux

package kernel

import "runtime"

// SpinYield is one round of a goroutine's polling for work or for other
// goroutines' parts: it lets the other goroutines of its thread run.
func SpinYield() { runtime.Gosched() }
