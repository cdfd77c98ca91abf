//go:build !linux

package caffe

import "runtime"

// spinYield is one round of a goroutine's polling for work or for other
// goroutines' parts: it lets the other goroutines of its thread run.
func spinYield() { runtime.Gosched() }
