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
// returns at once (after about 1.3 µs on a virtual machine). Lighter
// polls cost more than they save: the parallel runner's hand-off polls
// yielding the core only every eighth round (runtime.Gosched alone in
// between) saw a run's start and end about 1 µs sooner, but made
// two-thread LeNet steps 51-104 µs slower (paired on and off on one
// solver, three runs); two sched_yields a round changed nothing
// measurable.
func SpinYield() {
	runtime.Gosched()
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
