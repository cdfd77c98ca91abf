package kernel

import (
	"runtime"
	"syscall"
)

// SpinYield is one round of a goroutine's polling for work or for other
// goroutines' parts: it lets the other goroutines of its thread run
// (runtime.Gosched), then lets the other threads of its core run
// (sched_yield). The second matters when the system has placed the
// polling thread and the one it waits for on the same core (it does so
// after a wake-up, and takes milliseconds to move one of them): without
// it the poller keeps the core for up to its whole polling time while the
// thread that has the work waits for it. Alone on its core, sched_yield
// returns at once.
func SpinYield() {
	runtime.Gosched()
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
