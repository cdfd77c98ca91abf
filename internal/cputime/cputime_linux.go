package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

const supported = true

func thread() time.Duration  { return clock(unix.CLOCK_THREAD_CPUTIME_ID) }
func process() time.Duration { return clock(unix.CLOCK_PROCESS_CPUTIME_ID) }

func clock(id int32) time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(id, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
