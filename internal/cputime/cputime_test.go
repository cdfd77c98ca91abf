package cputime

import (
	"runtime"
	"testing"
)

// TestThreadAdvances checks that the thread's clock counts the work the
// locked goroutine does and that the process clock is at least as far.
func TestThreadAdvances(t *testing.T) {
	if !Supported() {
		t.Skip("no per-thread CPU clock on this system")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, p0 := Thread(), Process()
	x := 1.0
	for Thread()-t0 < 5e6 { // 5 ms of CPU time
		for range 1000 {
			x = x*1.0000001 + 1e-9
		}
	}
	dt, dp := Thread()-t0, Process()-p0
	if dt <= 0 || dp < dt {
		t.Errorf("thread clock advanced %v, process clock %v: want 0 < thread <= process", dt, dp)
	}
	if x == 0 {
		t.Log(x)
	}
}
