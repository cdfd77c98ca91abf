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
	return cpuTime(rusageThread)
}

// processCPUTime returns the CPU time all threads of the process have
// used.
func processCPUTime() time.Duration { return cpuTime(syscall.RUSAGE_SELF) }

func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
