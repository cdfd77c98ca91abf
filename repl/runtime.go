package repl

import (
	"context"
	"fmt"
	"reflect"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// goroutine runs f on a new goroutine that reports a panic instead of
// crashing the process: the runtime behind rewritten go statements.
func (s *Session) goroutine(f func()) {
	s.live.Add(1)
	s.busy.enter()
	tag := s.Origin()
	started := s.exec.last.Load() // the execution that started it
	go func() {
		// What ending the goroutine undoes, which osExit does for a
		// goroutine that it parks.
		undo := func() {}
		if tag != nil {
			undo = s.adopt(tag)
		}
		id := goid()
		s.spawned.Store(id, func() {
			undo()
			s.live.Add(-1)
			s.busy.leave()
		})
		defer func() {
			if end, ok := s.spawned.LoadAndDelete(id); ok {
				end.(func())()
			}
		}()
		// Goroutines of interpreted code are not the input's own.
		pprof.SetGoroutineLabels(context.Background())
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if ex, ok := r.(exitRequest); ok {
				s.exit(ex.code)
				return
			}
			err := newPanicError(s.namedPanic(r), s.trace(s.stderr.take(), ""), true)
			if !s.opts.GoroutinePanicsExit {
				// Go's program ends: the input that started the
				// goroutine does, if it still runs, with the panic
				// as its error (a notebook's cell fails).
				s.exec.mu.Lock()
				cancel := s.exec.cancel
				s.exec.mu.Unlock()
				if cancel != nil && s.exec.last.Load() == started {
					cancel(err)
					return
				}
			}
			fmt.Fprintln(s.stderr.w, s.mapPositions(err.Error()))
			if s.opts.GoroutinePanicsExit {
				s.exit(2)
			}
		}()
		f()
	}()
}

// osExit is interpreted code's os.Exit. Go's ends the process at once:
// no deferred call runs, and no recover stops it. Here it ends the
// running input with an *ExitError (a script: the shell, with the code),
// and the calling goroutine never returns, so that nothing of it
// unwinds. (Earlier it panicked, and the deferred calls ran on the way
// out; a deferred recover even made os.Exit return.) A goroutine of an
// earlier input, when no input runs, still panics with exitRequest,
// which ends the shell (see goroutine).
func (s *Session) osExit(code int) {
	s.exec.mu.Lock()
	cancel := s.exec.cancel
	s.exec.mu.Unlock()
	if cancel == nil {
		panic(exitRequest{code})
	}
	cancel(&ExitError{Code: code})
	if end, ok := s.spawned.LoadAndDelete(goid()); ok {
		end.(func())()
	}
	// Not an execution of the session's any more (evalRunning).
	pprof.SetGoroutineLabels(context.Background())
	select {}
}

// spawn returns the runtime's Go (or GoSlice): it calls f with args on
// a new goroutine, converting the arguments to f's parameter types.
func (s *Session) spawn(slice bool) func(f any, args ...any) {
	return func(f any, args ...any) {
		fv := reflect.ValueOf(f)
		if fv.Kind() != reflect.Func || fv.IsNil() {
			panic(fmt.Sprintf("go statement: %v is not a function", f))
		}
		ft := fv.Type()
		in := make([]reflect.Value, len(args))
		for i, a := range args {
			var pt reflect.Type
			switch {
			case ft.IsVariadic() && i >= ft.NumIn()-1 && slice:
				pt = ft.In(ft.NumIn() - 1)
			case ft.IsVariadic() && i >= ft.NumIn()-1:
				pt = ft.In(ft.NumIn() - 1).Elem()
			case i < ft.NumIn():
				pt = ft.In(i)
			default:
				panic(fmt.Sprintf("go statement: too many arguments for %s", ft))
			}
			in[i] = convertArg(a, pt)
		}
		s.goroutine(func() {
			if slice {
				fv.CallSlice(in)
			} else {
				fv.Call(in)
			}
		})
	}
}

// dropWrapper removes the frame of the function literal that a wrapped
// top-level statement runs in: the last one before the top level.
func dropWrapper(frames []frame) []frame {
	end := len(frames)
	for i, f := range frames {
		if f.fn == "main" || f.fn == "" {
			end = i
			break
		}
	}
	if end > 0 && strings.HasSuffix(frames[end-1].fn, "func") {
		return append(frames[:end-1:end-1], frames[end:]...)
	}
	return frames
}

// convertArg makes a of type t, as an assignment would.
func convertArg(a any, t reflect.Type) reflect.Value {
	if a == nil {
		return reflect.Zero(t)
	}
	v := reflect.ValueOf(a)
	if !v.Type().AssignableTo(t) && v.Type().ConvertibleTo(t) {
		return v.Convert(t)
	}
	return v
}

// trace turns the frames the interpreter reported as a panic unwound
// into lines of a report: "in f (where f is declared)", "in func literal
// at ...", and "at" the top-level statement top, when known.
func (s *Session) trace(frames []frame, top string) []string {
	var out []string
	for _, f := range frames {
		var line string
		switch fn := strings.TrimPrefix(f.fn, "main."); {
		case fn == "" || fn == "main":
			if top == "" {
				continue
			}
			line = "at " + top
		case fn == "init.func":
			// The body of a method that forwardMethods declared: the
			// next frame is the method's.
			continue
		case strings.HasSuffix(fn, "func") && s.writtenLits[f.pos]:
			continue // a rewrite's (see callOne), not the input's
		case strings.HasSuffix(fn, "func"):
			line = "in func literal at " + f.pos
		case strings.HasPrefix(fn, rtName+"_main"):
			line = "in main at " + f.pos
		default:
			pos := s.funcPos[fn]
			if pos == "" {
				pos = f.pos
			}
			line = "in " + fn + " at " + pos
		}
		if len(out) == 0 || out[len(out)-1] != line {
			out = append(out, s.mapPositions(line))
		}
	}
	return out
}

// inputContext is the ctx variable of a session: it forwards to the
// context of the input running now.
type inputContext struct {
	mu  sync.Mutex
	cur context.Context
	// doneAsked is set when Done is called while an input runs: a
	// goroutine may wait for Ctrl-C (see watchDeadlock).
	doneAsked atomic.Bool
}

func (c *inputContext) set(ctx context.Context) {
	c.mu.Lock()
	c.cur = ctx
	c.mu.Unlock()
}

func (c *inputContext) get() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

func (c *inputContext) Deadline() (time.Time, bool) { return c.get().Deadline() }

func (c *inputContext) Done() <-chan struct{} {
	c.doneAsked.Store(true)
	return c.get().Done()
}

func (c *inputContext) Err() error { return c.get().Err() }

func (c *inputContext) Value(key any) any { return c.get().Value(key) }

func (c *inputContext) String() string {
	return "the context of the running input, canceled by Ctrl-C"
}
