//go:build !linux

package caffe

import "time"

// threadCPUTime is not measured on this system.
func threadCPUTime() time.Duration { return 0 }

// processCPUTime is not measured on this system.
func processCPUTime() time.Duration { return 0 }
