package caffe

import (
	"time"

	"github.com/sparknet-go/sparknet/internal/cputime"
)

// threadCPUTime returns the CPU time the calling OS thread has used (0
// where the system has no thread clock).
func threadCPUTime() time.Duration { return cputime.Thread() }

// processCPUTime returns the CPU time all threads of the process have used.
func processCPUTime() time.Duration { return cputime.Process() }
