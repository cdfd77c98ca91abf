// Package alloctest counts the heap allocations of a function, as
// testing.AllocsPerRun does, but leaves out those the runtime makes to
// refill its own caches, and names the place of every one it counts.
//
// A goroutine that blocks (on a channel, a mutex) takes a wait record
// from a cache that the runtime keeps per P, and returns it to the cache
// of the P it resumes on. Goroutines that park on one P and resume on
// another, as the pooled goroutines of a multi-threaded layer do on a
// loaded machine, move the records from one cache to the other, and the
// runtime allocates new ones for the emptied cache until the two balance;
// every garbage collection drops the records it keeps in reserve. These
// allocations are few, bounded and none of the code's doing, but they
// reach testing.AllocsPerRun's count, so that a test of code that
// allocates nothing fails now and then on a busy machine.
package alloctest

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
)

// runtimeRefills are the functions whose allocations are the runtime's
// cache refills: a stack through one of them is not counted.
var runtimeRefills = []string{"runtime.acquireSudog"}

// Site is a place that allocated: the allocating call stack, innermost
// first, and how many objects it allocated.
type Site struct {
	Objects int64
	Stack   []string
}

// Count runs f once, then runs more times, and returns the objects
// allocated per run (as testing.AllocsPerRun: the total divided by runs,
// rounded down), leaving out the runtime's cache refills, and the sites
// that allocated them. Unlike testing.AllocsPerRun it leaves GOMAXPROCS
// as it is, so that code that splits its work over threads runs as it
// does in use. It records every allocation of the process while it runs,
// so no other goroutine of the test binary should allocate meanwhile.
func Count(runs int, f func()) (perRun int64, sites []Site) {
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 1 // record every allocation
	defer func() { runtime.MemProfileRate = rate }()
	f()
	before := snapshot()
	for range runs {
		f()
	}
	after := snapshot()
	var total int64
	for key, n := range after {
		n -= before[key]
		if n <= 0 {
			continue
		}
		stack := frames(key)
		if notCounted(stack) {
			continue
		}
		total += n
		sites = append(sites, Site{Objects: n, Stack: stack})
	}
	sort.Slice(sites, func(i, j int) bool { return sites[i].Objects > sites[j].Objects })
	return total / int64(max(runs, 1)), sites
}

// String formats the sites for a test's message, a stack a line.
func String(sites []Site) string {
	var sb strings.Builder
	for _, s := range sites {
		fmt.Fprintf(&sb, "\n\t%d at %s", s.Objects, strings.Join(s.Stack, " < "))
	}
	return sb.String()
}

// snapshot returns the objects allocated so far, by stack. The profile
// is published by garbage collections: the second one completes the
// cycle of the allocations made before the first.
func snapshot() map[[32]uintptr]int64 {
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	for {
		n, ok := runtime.MemProfile(recs, true)
		if ok {
			recs = recs[:n]
			break
		}
		recs = make([]runtime.MemProfileRecord, n+64)
	}
	m := make(map[[32]uintptr]int64, len(recs))
	for _, r := range recs {
		m[r.Stack0] += r.AllocObjects
	}
	return m
}

// frames returns the function names of a recorded stack, innermost first,
// without the allocator's own frames.
func frames(key [32]uintptr) []string {
	var pcs []uintptr
	for _, pc := range key {
		if pc == 0 {
			break
		}
		pcs = append(pcs, pc)
	}
	var names []string
	it := runtime.CallersFrames(pcs)
	for {
		fr, more := it.Next()
		switch fr.Function {
		case "", "runtime.mallocgc", "runtime.newobject", "runtime.makeslice", "runtime.growslice":
		default:
			names = append(names, fmt.Sprintf("%s:%d", fr.Function, fr.Line))
		}
		if !more {
			break
		}
	}
	return names
}

// notCounted reports whether a stack is one of the runtime's cache
// refills, an allocation of the runtime's own goroutines (no frame outside
// the runtime: its timers, its scavenger), or Count's own (its snapshots).
func notCounted(stack []string) bool {
	own := true
	for _, fn := range stack {
		for _, r := range runtimeRefills {
			if strings.HasPrefix(fn, r+":") {
				return true
			}
		}
		if strings.HasPrefix(fn, snapshotFunc+":") {
			return true
		}
		if !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/runtime/") {
			own = false
		}
	}
	return own
}

// snapshotFunc is snapshot's name in a stack.
var snapshotFunc = runtime.FuncForPC(reflect.ValueOf(snapshot).Pointer()).Name()
