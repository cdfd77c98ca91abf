package tool

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	register(&command{
		name:    "device_query",
		summary: "describe the CPU sparknet computes on: model, cores, vector kernels",
		usage:   "",
		run:     runDeviceQuery,
	})
}

// runDeviceQuery is Caffe's device_query for sparknet, which computes on
// the CPU: what a cluster node offers, so that nodes can be compared
// before a job starts.
func runDeviceQuery(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Device: CPU\n")
	if model := cpuModel(); model != "" {
		fmt.Fprintf(stdout, "Model: %s\n", model)
	}
	fmt.Fprintf(stdout, "Architecture: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "Cores: %d (GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "Kernels: %s (available: %s; choose with %s)\n", kernel.Implementation(), strings.Join(kernel.Implementations(), ", "), kernel.KernelsEnv)
	if err := kernel.ImplementationError(); err != nil {
		fmt.Fprintf(stdout, "Note: %v\n", err)
	}
	fmt.Fprintf(stdout, "Go: %s\n", runtime.Version())
	return nil
}

// cpuModel returns the CPU's model name from /proc/cpuinfo, or "".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
