package repl

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// DefaultMemoryShare is the share of the machine's memory (or of the
// container's memory limit, when lower) that a session's memory budget
// is by default.
const DefaultMemoryShare = 0.75

// DefaultStackLimit is how much stack a goroutine of interpreted code
// may use before its calls stop with a *StackOverflowError: room for
// about 100,000 nested interpreted calls, reached in about a second, and
// far below the Go runtime's limit (1 GB on 64-bit platforms), past which
// the runtime ends the process.
const DefaultStackLimit = 64 << 20

// fallbackMemory is the memory assumed where it cannot be measured.
const fallbackMemory = 8 << 30

// physicalMemory returns the memory of the machine, or the memory limit
// of the cgroup the process runs in when that is lower; 0 when unknown.
func physicalMemory() int64 {
	total := totalMemory()
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
			total = v
		}
	}
	return total
}

// defaultBudget is DefaultMemoryShare of the physical memory.
func defaultBudget() int64 {
	mem := physicalMemory()
	if mem <= 0 {
		mem = fallbackMemory
	}
	return int64(float64(mem) * DefaultMemoryShare)
}

// ParseMemory parses a memory size as the flag --memory takes it: a
// number of bytes with an optional unit (K, M, G, T: powers of 1024, as
// KiB, MiB, GiB, TiB; KB, MB, GB, TB: powers of 1000), or a percentage
// of the machine's memory ("50%").
func ParseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f <= 0 || f > 100 {
			return 0, fmt.Errorf("memory size %q: want a percentage above 0 and at most 100", s)
		}
		mem := physicalMemory()
		if mem <= 0 {
			return 0, fmt.Errorf("memory size %q: the machine's memory is unknown; give a size such as 8GiB", s)
		}
		return int64(float64(mem) * f / 100), nil
	}
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	mult, ok := memoryUnits[strings.ToLower(unit)]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || f <= 0 {
		return 0, fmt.Errorf("memory size %q: want a number with an optional unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB) or a percentage of the machine's memory, such as 8GiB or 50%%", s)
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(v), nil
}

var memoryUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}
