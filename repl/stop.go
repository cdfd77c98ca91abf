package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"reflect"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// Stopping interpreted code. The interpreter stops all interpreted code,
// on every goroutine, when the context of a running execution is
// canceled: each interpreted function returns at its next statement.
// The session uses that for Ctrl-C, for :reset, for goroutines left
// running by earlier inputs, and for a stack that grew past its limit
// (returning frame by frame is fast, where a panic would unwind the
// interpreter's frames in quadratic time).

// running is the input being executed: its cancel function, so that a
// probe can stop it, with the reason.
type running struct {
	mu     sync.Mutex
	cancel context.CancelCauseFunc // nil between executions
	// last is the context of the latest execution. Once it is canceled,
	// the input's top-level statements do not go on: a stop can release
	// the compiled call the input's goroutine waits in (a
	// sync.WaitGroup.Wait whose goroutines the stop unwound), and a Go
	// program stopped there would not have run its next statement.
	last atomic.Pointer[context.Context]
	// owner maps the goroutine that runs an execution's top-level
	// statements to that execution's context, from its first statement
	// on: a goroutine interrupted inside a compiled call that ignores
	// ctx (time.Sleep) may return from it while a later input runs,
	// whose context is last; its own stays canceled.
	owner map[uint64]*context.Context
}

// halted ends the calling goroutine if the execution whose top-level
// statements it runs was stopped: the session calls it before each
// top-level statement of an input.
func (r *running) halted() {
	id := goid()
	r.mu.Lock()
	c, ok := r.owner[id]
	if !ok {
		c = r.last.Load()
		if r.owner == nil {
			r.owner = map[uint64]*context.Context{}
		}
		r.owner[id] = c
	}
	stopped := c != nil && (*c).Err() != nil
	if stopped {
		delete(r.owner, id)
	}
	r.mu.Unlock()
	if stopped {
		runtime.Goexit()
	}
}

// ended forgets the goroutines of the execution of ctx, which ended
// without being stopped (a stopped one's goroutine may yet come back
// from a compiled call, and forgets itself in halted).
func (r *running) ended(ctx *context.Context) {
	if (*ctx).Err() != nil {
		return
	}
	r.mu.Lock()
	for id, c := range r.owner {
		if c == ctx {
			delete(r.owner, id)
		}
	}
	r.mu.Unlock()
}

// guardContext derives the context an execution runs under, which a
// stack probe can cancel; done must be called when the execution ends.
func (s *Session) guardContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	own := &ctx
	s.exec.last.Store(own)
	s.exec.mu.Lock()
	s.exec.cancel = cancel
	s.exec.mu.Unlock()
	s.busy.enter()
	return ctx, func() {
		s.busy.leave()
		s.exec.ended(own)
		s.exec.mu.Lock()
		s.exec.cancel = nil
		s.exec.mu.Unlock()
		cancel(nil)
	}
}

// stopFor stops the interpreted code because of err: the running input
// with err as its error, or, between inputs, the goroutines that earlier
// inputs left running, with err reported on the error stream.
func (s *Session) stopFor(err error) {
	s.exec.mu.Lock()
	cancel := s.exec.cancel
	s.exec.mu.Unlock()
	if cancel != nil {
		cancel(err)
		return
	}
	if !s.stopping.CompareAndSwap(false, true) {
		return // a stop is under way
	}
	go func() {
		defer s.stopping.Store(false)
		s.mu.Lock()
		defer s.mu.Unlock()
		fmt.Fprintln(s.errOut(), s.mapPositions((&PanicError{Value: err, Goroutine: true}).Error()))
		s.stopInterpreted(2 * time.Second)
	}()
}

// stopped returns the error of an execution whose context was canceled
// by stopFor, or nil when it was canceled otherwise (by Ctrl-C).
func (s *Session) stopped(ctx context.Context) error {
	var trace []string
	switch cause := context.Cause(ctx).(type) {
	case *StackOverflowError:
		if pos := s.funcPos[cause.Func]; pos != "" {
			trace = append(trace, s.mapPositions("in "+cause.Func+" at "+pos))
		}
	case *MemoryError:
	case *PanicError: // a goroutine's (see goroutine)
		s.stderr.take()
		return cause
	case *DeadlockError:
		if i := int(s.at.Load()); i < len(s.atPos) {
			trace = append(trace, s.mapPositions("at "+s.atPos[i]))
		}
		s.stderr.take()
		return &DeadlockError{Waiting: cause.Waiting, Trace: trace}
	default:
		return nil
	}
	if i := int(s.at.Load()); i < len(s.atPos) {
		trace = append(trace, s.mapPositions("at "+s.atPos[i]))
	}
	s.stderr.take()
	return &PanicError{Value: context.Cause(ctx), Trace: trace}
}

// executeLabeled runs prog with the interpreter's ExecuteWithContext,
// which executes it on a goroutine of its own that may outlive the call
// (it returns when ctx is canceled, and the execution stops at its next
// statement). That goroutine carries the session's label, by which
// evalRunning finds it, however deep its stack.
func (s *Session) executeLabeled(ctx context.Context, prog *interp.Program) (v reflect.Value, err error) {
	pprof.Do(ctx, pprof.Labels("sparknet-shell", s.execLabelValue()), func(context.Context) {
		v, err = s.in.ExecuteWithContext(ctx, prog)
	})
	return v, err
}

// execLabelValue is the value of the label "sparknet-shell" of the
// goroutines that execute the session's programs.
func (s *Session) execLabelValue() string { return fmt.Sprintf("execute %p", s) }

// execLabel is the label as a goroutine profile (debug=1) writes it.
func (s *Session) execLabel() string {
	return fmt.Sprintf("%q:%q", "sparknet-shell", s.execLabelValue())
}

// parking is a stop under way: Park closes parked on arrival and waits
// for release.
type parking struct {
	parked, release chan struct{}
}

// parkHere is the runtime's Park: it waits until stopInterpreted has
// stopped the interpreter.
func (s *Session) parkHere() {
	if p := s.park.Swap(nil); p != nil {
		close(p.parked)
		<-p.release
	}
}

// StopGoroutines stops the goroutines that go statements of earlier
// inputs started and that still run interpreted code, as Ctrl-C at the
// prompt and :reset do. A goroutine inside a compiled call (time.Sleep,
// a channel operation of compiled code) stops when that call returns.
// It returns how many goroutines ran, and how many still run after
// waiting up to timeout.
func (s *Session) StopGoroutines(timeout time.Duration) (ran, left int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopInterpreted(timeout)
}

// Goroutines returns how many goroutines started by go statements of
// inputs are running.
func (s *Session) Goroutines() int { return int(s.live.Load()) }

// stopInterpreted stops every interpreted function on every goroutine:
// it cancels an execution of a program that waits (the runtime's Park),
// which makes the interpreter stop all of its code. The caller holds
// s.mu.
func (s *Session) stopInterpreted(timeout time.Duration) (ran, left int) {
	ran = int(s.live.Load())
	if ran == 0 {
		return 0, 0
	}
	// Imports belong to files: the program is compiled as part of the
	// inputs' file, which imports the runtime.
	f, err := parser.ParseFile(s.in.FileSet(), inputFile, "package main; func main() { "+rtName+".Park() }", 0)
	if err != nil {
		return ran, ran
	}
	prog, err := s.compile(f.Decls[0].(*ast.FuncDecl).Body, nil)
	if err != nil {
		return ran, ran
	}
	// The program waits in Park until the interpreter has been told to
	// stop, so that the cancellation, not its end, ends the execution;
	// and the cancellation waits until the program is in Park, past the
	// point where the execution marks the session's variables as current
	// (functions called after the stop would go on running otherwise).
	p := &parking{parked: make(chan struct{}), release: make(chan struct{})}
	s.park.Store(p)
	stopCtx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-p.parked:
		case <-time.After(timeout):
		}
		cancel()
	}()
	s.executeLabeled(stopCtx, prog)
	close(p.release)
	deadline := time.Now().Add(timeout)
	for s.live.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	// The canceled execution of the empty program may still be finishing.
	for s.evalRunning() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	s.restoreRunID()
	return ran, int(s.live.Load())
}

// The interpreter stops interpreted code by counting a run: every frame
// carries the count it was made under, and code runs only in frames of
// the current count. A closure keeps the frame it was made in, so after
// a stop the functions that earlier inputs made (a method's function
// variable, a converter the session registered, f := func() {...}) did
// nothing when called, silently: a method returned its zero values.
// restoreRunID puts the count back where it was before the stop once
// nothing interpreted runs any more (no goroutine of an input goes on),
// so that those closures run again. Where a goroutine of the stopped
// input still waits in a compiled call, the count stays (that goroutine
// would go on), and so do the closures' silence.

// runIDOf returns the address of the interpreter's run counter, or nil
// if the interpreter has none of that name and type.
func runIDOf(in *interp.Interpreter) *uint64 {
	v := reflect.ValueOf(in).Elem().FieldByName("id")
	if !v.IsValid() || v.Kind() != reflect.Uint64 {
		return nil
	}
	return (*uint64)(unsafe.Pointer(v.UnsafeAddr()))
}

// restoreRunID puts the interpreter's run counter back to its value
// before any stop, where no interpreted code runs; it reports whether
// the counter is at that value.
func (s *Session) restoreRunID() bool {
	if s.runID == nil {
		return false
	}
	if atomic.LoadUint64(s.runID) == s.runBase {
		return true
	}
	if s.live.Load() > 0 || s.evalRunning() {
		return false
	}
	atomic.StoreUint64(s.runID, s.runBase)
	return true
}
