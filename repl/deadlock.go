package repl

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Deadlocks. A Go program whose goroutines all wait on channels and
// locks ends with "fatal error: all goroutines are asleep - deadlock!".
// The runtime cannot see it in the shell, whose process has goroutines
// of its own (the web UI, the RDD workers), so the session looks itself
// while an input runs: when every goroutine that runs interpreted code
// waits, in the interpreter, on a channel operation, a select or a lock
// of package sync, and nothing outside can wake one of them, the input
// stops with a *DeadlockError.
//
// What can wake them from outside: timers, tickers and contexts with a
// deadline that interpreted code made (time.After, NewTimer, NewTicker,
// Tick, AfterFunc, context.WithTimeout and WithDeadline), signals
// (signal.Notify), ctx (Ctrl-C), and any goroutine that is not waiting:
// one running, sleeping, reading a file or a socket, or inside a call of
// compiled code (an RDD action). While any of those may, the session
// does not conclude. Channels that compiled code made and feeds from
// goroutines of its own are not seen.

// DeadlockError ends an input whose goroutines all wait for each other,
// as Go's runtime ends such a program.
type DeadlockError struct {
	// Waiting says what each waiting goroutine waits on, as Go's
	// tracebacks do ("select", "sync.WaitGroup.Wait").
	Waiting []string
	// Trace is the top-level statement that was running: "at
	// file:line:col".
	Trace []string
}

func (e *DeadlockError) Error() string {
	var b strings.Builder
	b.WriteString("fatal error: all goroutines are asleep - deadlock!")
	for _, t := range e.Trace {
		b.WriteString("\n\t" + t)
	}
	if len(e.Waiting) > 0 {
		fmt.Fprintf(&b, "\n\t(%s waiting: %s; none can go on, and nothing else would wake one)",
			plural(len(e.Waiting), "goroutine"), strings.Join(e.Waiting, ", "))
	}
	return b.String()
}

// wakers records what interpreted code made that can wake a goroutine
// from outside.
type wakers struct {
	// until is the time (Unix nanoseconds) until which a timer or a
	// deadline made by interpreted code may fire; math.MaxInt64 for one
	// that may fire at any time (a ticker, a timer that can be reset, a
	// signal).
	until atomic.Int64
}

// at notes a waker that may fire until t.
func (w *wakers) at(t time.Time) {
	n := t.UnixNano()
	for {
		old := w.until.Load()
		if n <= old || w.until.CompareAndSwap(old, n) {
			return
		}
	}
}

// always notes a waker that may fire at any time.
func (w *wakers) always() { w.until.Store(math.MaxInt64) }

// pending reports whether a waker may still fire: one that interpreted
// code made, or ctx, when the running input asked for its Done channel
// (Ctrl-C closes it).
func (s *Session) wakersPending() bool {
	return s.ctx.doneAsked.Load() || time.Now().UnixNano() < s.wakers.until.Load()
}

// wakerSymbols replaces the functions of time, context and os/signal
// that make wakers with ones that note them.
func (s *Session) wakerSymbols(replace func(pkg, name string, f any)) {
	w := &s.wakers
	replace("time/time", "After", func(d time.Duration) <-chan time.Time {
		w.at(time.Now().Add(d))
		return time.After(d)
	})
	replace("time/time", "Tick", func(d time.Duration) <-chan time.Time {
		w.always()
		return time.Tick(d)
	})
	replace("time/time", "NewTimer", func(d time.Duration) *time.Timer {
		w.always() // it can be reset
		return time.NewTimer(d)
	})
	replace("time/time", "NewTicker", func(d time.Duration) *time.Ticker {
		w.always()
		return time.NewTicker(d)
	})
	replace("time/time", "AfterFunc", func(d time.Duration, f func()) *time.Timer {
		w.always()
		return time.AfterFunc(d, f)
	})
	replace("context/context", "WithTimeout", func(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
		w.at(time.Now().Add(d))
		return context.WithTimeout(parent, d)
	})
	replace("context/context", "WithTimeoutCause", func(parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
		w.at(time.Now().Add(d))
		return context.WithTimeoutCause(parent, d, cause)
	})
	replace("context/context", "WithDeadline", func(parent context.Context, t time.Time) (context.Context, context.CancelFunc) {
		w.at(t)
		return context.WithDeadline(parent, t)
	})
	replace("context/context", "WithDeadlineCause", func(parent context.Context, t time.Time, cause error) (context.Context, context.CancelFunc) {
		w.at(t)
		return context.WithDeadlineCause(parent, t, cause)
	})
	h := &s.sigint
	replace("os/signal/signal", "Notify", func(c chan<- os.Signal, sig ...os.Signal) {
		w.always()
		signal.Notify(c, sig...)
		if catchesInterrupt(sig) {
			h.add(c)
		}
	})
	replace("os/signal/signal", "NotifyContext", func(parent context.Context, sig ...os.Signal) (context.Context, context.CancelFunc) {
		w.always()
		ctx, stop := signal.NotifyContext(parent, sig...)
		if !catchesInterrupt(sig) {
			return ctx, stop
		}
		key := new(int)
		h.add(key)
		return ctx, func() {
			h.remove(key)
			stop()
		}
	})
	replace("os/signal/signal", "Stop", func(c chan<- os.Signal) {
		h.remove(c)
		signal.Stop(c)
	})
	replace("os/signal/signal", "Reset", func(sig ...os.Signal) {
		if catchesInterrupt(sig) {
			h.clear()
		}
		signal.Reset(sig...)
	})
	replace("os/signal/signal", "Ignore", func(sig ...os.Signal) {
		if catchesInterrupt(sig) {
			h.ignored.Store(true)
		}
		signal.Ignore(sig...)
	})
}

// sigintHandlers are the ways interpreted code catches SIGINT
// (signal.Notify for os.Interrupt or for every signal, NotifyContext,
// Ignore): a script that catches it gets it, where the shell's own
// handling would end the script (scriptInterrupts).
type sigintHandlers struct {
	mu      sync.Mutex
	by      map[any]bool // the channels, and a key per NotifyContext
	ignored atomic.Bool
	// dropped is when the last handler went: a signal that reached it
	// reaches the shell's handler at about the same time, which may run
	// after the script took it and stopped catching (stop, deferred).
	dropped time.Time
}

// droppedGrace is how long after the last handler went a SIGINT still
// counts as caught (see dropped).
const droppedGrace = time.Second

func (h *sigintHandlers) add(k any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil {
		h.by = map[any]bool{}
	}
	h.by[k] = true
}

func (h *sigintHandlers) remove(k any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by[k] {
		delete(h.by, k)
		if len(h.by) == 0 {
			h.dropped = time.Now()
		}
	}
}

func (h *sigintHandlers) clear() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.by)
	h.ignored.Store(false)
	h.dropped = time.Time{}
}

// caught reports whether interpreted code catches or ignores SIGINT, or
// stopped catching it just now.
func (h *sigintHandlers) caught() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.by) > 0 || h.ignored.Load() || !h.dropped.IsZero() && time.Since(h.dropped) < droppedGrace
}

// catchesInterrupt reports whether a call of signal.Notify (and the
// others) with sig concerns SIGINT: sig names it, or no signal.
func catchesInterrupt(sig []os.Signal) bool {
	if len(sig) == 0 {
		return true
	}
	for _, s := range sig {
		if s == os.Interrupt || s == syscall.SIGINT {
			return true
		}
	}
	return false
}

// blockedStates are the waits of Go's tracebacks that only another
// goroutine (or a waker) ends.
var blockedStates = map[string]bool{
	"chan receive": true, "chan send": true, "select": true, "select (no cases)": true,
	"chan receive (nil chan)": true, "chan send (nil chan)": true,
	"sync.Mutex.Lock": true, "sync.RWMutex.Lock": true, "sync.RWMutex.RLock": true,
	"sync.WaitGroup.Wait": true, "sync.Cond.Wait": true, "semacquire": true,
}

const (
	interpPkg = "github.com/traefik/yaegi/interp."
	// spawnedFrame is the frame of a goroutine a go statement started,
	// before it reaches interpreted code.
	spawnedFrame = "github.com/sparknet-go/sparknet/repl.(*Session).goroutine.func1"
)

// asleep examines a dump of all goroutines (runtime.Stack's): it
// returns what each goroutine of interpreted code waits on, and whether
// all of them wait in the interpreter on another one.
func asleep(dump string) (waiting []string, ids []string, all bool) {
	for _, g := range strings.Split(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(g), "\n")
		head := lines[0]
		if !strings.HasPrefix(head, "goroutine ") {
			continue
		}
		open, close := strings.IndexByte(head, '['), strings.LastIndexByte(head, ']')
		if open < 0 || close < open {
			continue
		}
		state, _, _ := strings.Cut(head[open+1:close], ",")
		var funcs []string
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "created by ") || strings.HasPrefix(l, "...") {
				continue
			}
			if i := strings.LastIndexByte(l, '('); i > 0 {
				l = l[:i]
			}
			funcs = append(funcs, l)
		}
		if _, gone := abandoned.Load(head[:open]); gone {
			continue
		}
		user := slices.ContainsFunc(funcs, func(f string) bool { return f == interpPkg+"runCfg" || f == spawnedFrame })
		if !user {
			continue
		}
		if !blockedStates[state] {
			return nil, nil, false
		}
		// The wait must be the interpreter's own channel operation or
		// call of a sync method (through reflect), not one inside
		// compiled code.
		viaReflect := false
		top := ""
		for _, f := range funcs {
			if strings.HasPrefix(f, "reflect.") {
				viaReflect = true
			}
			if !strings.HasPrefix(f, "runtime.") && !strings.HasPrefix(f, "internal/") &&
				!strings.HasPrefix(f, "sync.") && !strings.HasPrefix(f, "reflect.") {
				top = f
				break
			}
		}
		if !viaReflect || !strings.HasPrefix(top, interpPkg) || strings.HasPrefix(top, interpPkg+"(*Interpreter)") {
			return nil, nil, false
		}
		if state == "select" {
			// The interpreter makes every channel operation a select.
			state = "channel operation or select"
		}
		waiting = append(waiting, state)
		ids = append(ids, head[:open])
	}
	slices.Sort(waiting)
	return waiting, ids, len(waiting) > 0
}

// abandoned holds the goroutines (by "goroutine N ") of deadlocks found
// so far in the process. Stopping the input ends those that wait in the
// interpreter's channel operations, but not those inside a compiled call
// (a sync.Mutex's Lock), which wait on for ever and must not count
// again.
var abandoned sync.Map

// watchDeadlock looks for a deadlock of the running input until stop is
// closed, more and more rarely (from 50 ms to a second), and stops the
// input when two looks in a row see the same goroutines all asleep.
func (s *Session) watchDeadlock(stop <-chan struct{}) {
	interval := 50 * time.Millisecond
	t := time.NewTimer(interval)
	defer t.Stop()
	var last string
	buf := make([]byte, 64<<10)
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		seen := ""
		if !s.wakersPending() {
			var dump string
			for {
				n := runtime.Stack(buf, true)
				if n < len(buf) {
					dump = string(buf[:n])
					break
				}
				buf = make([]byte, 2*len(buf))
			}
			waiting, ids, all := asleep(dump)
			if all {
				seen = strings.Join(ids, ",") + strings.Join(waiting, ",")
				if seen == last && !s.wakersPending() {
					for _, id := range ids {
						abandoned.Store(id, true)
					}
					if s.opts.GoroutinePanicsExit {
						// A script run as a program ends as Go's does:
						// at once, with status 2, no deferred call run
						// (stopping the input would unwind it).
						err := &DeadlockError{Waiting: waiting}
						if i := int(s.at.Load()); i < len(s.atPos) {
							err.Trace = []string{s.mapPositions("at " + s.atPos[i])}
						}
						fmt.Fprintln(s.stderr.w, FormatError(err))
						s.exit(2)
						return
					}
					s.stopFor(&DeadlockError{Waiting: waiting})
					return
				}
			}
		}
		last = seen
		interval = min(2*interval, time.Second)
		t.Reset(interval)
	}
}
