package repl

import "golang.org/x/sys/unix"

// totalMemory returns the machine's memory, or 0.
func totalMemory() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
