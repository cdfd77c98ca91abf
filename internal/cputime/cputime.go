// Package cputime reads CPU clocks: the CPU time of the calling OS thread
// and of the whole process. Speed figures taken with them are not skewed
// by time that other processes on a busy machine take from the cores, as
// wall-clock figures are.
//
// Thread measures the OS thread, not the goroutine: a caller that wants
// the CPU time of its own work locks its goroutine to its thread first
// (runtime.LockOSThread). On systems without per-thread clocks Supported
// reports false and both functions return 0.
package cputime

import "time"

// Supported reports whether this system has the clocks.
func Supported() bool { return supported }

// Thread returns the CPU time the calling OS thread has used so far.
func Thread() time.Duration { return thread() }

// Process returns the CPU time all threads of the process have used.
func Process() time.Duration { return process() }
