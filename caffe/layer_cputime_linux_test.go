package caffe

import (
	"syscall"
	"time"
)

// threadCPUTime returns the CPU time the calling OS thread has used, so
// that single-threaded benchmarks can report speed that other processes
// on the machine do not distort.
func threadCPUTime() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
