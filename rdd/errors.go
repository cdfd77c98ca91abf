package rdd

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
)

// Errors that actions wrap; test for them with errors.Is.
var (
	// ErrClosed reports an action on a closed Context.
	ErrClosed = errors.New("rdd: context closed")
	// ErrCanceled reports a job stopped by CancelJobs or its context.
	ErrCanceled = errors.New("rdd: job canceled")
	// ErrEmpty reports Reduce or First on an RDD without elements.
	ErrEmpty = errors.New("rdd: empty RDD")
)

// NoRetry marks err as a failure that another attempt would repeat (bad
// settings, a diverging loss): the task that returns it fails at once,
// without the retries other errors get. errors.Is(NoRetry(err), err)
// holds, and errors.As sees through it.
func NoRetry(err error) error {
	if err == nil {
		return nil
	}
	return &noRetryError{err}
}

type noRetryError struct{ err error }

func (e *noRetryError) Error() string { return e.err.Error() }
func (e *noRetryError) Unwrap() error { return e.err }

// retryable reports whether a failed attempt may be tried again.
func retryable(err error) bool {
	var nr *noRetryError
	return !errors.As(err, &nr)
}

// TaskError reports a task that failed on every attempt (or on one whose
// error NoRetry marked), which fails its job.
type TaskError struct {
	Job       int    // job ID
	Action    string // the action that ran the job, such as "Count"
	Stage     int    // stage ID within the context
	Partition int    // partition (task) index
	Attempts  int    // attempts made (1 for an error that NoRetry marked)
	Err       error  // the last attempt's error
}

func (e *TaskError) Error() string {
	attempts := fmt.Sprintf("after %d attempts", e.Attempts)
	switch {
	case !retryable(e.Err):
		attempts = fmt.Sprintf("on attempt %d, not to be retried", e.Attempts)
	case e.Attempts == 1:
		attempts = "after 1 attempt"
	}
	return fmt.Sprintf("rdd: %s (job %d, stage %d): partition %d failed %s: %v",
		e.Action, e.Job, e.Stage, e.Partition, attempts, e.Err)
}

func (e *TaskError) Unwrap() error { return e.Err }

// PanicError is a panic in a callback (or in a task), turned into an
// error.
type PanicError struct {
	Func      string // what panicked: "Map", "Filter", ... or "task"
	Partition int    // partition being computed, or -1 in the driver
	Element   int    // index of the element in the partition, or -1
	Value     any    // the value passed to panic
	Stack     string // the goroutine's stack at the panic
}

func (e *PanicError) Error() string {
	switch {
	case e.Partition < 0:
		return fmt.Sprintf("rdd: %s function panicked in the driver: %v", e.Func, e.Value)
	case e.Element >= 0:
		return fmt.Sprintf("rdd: %s function panicked on element %d of partition %d: %v", e.Func, e.Element, e.Partition, e.Value)
	}
	return fmt.Sprintf("rdd: %s function panicked in partition %d: %v", e.Func, e.Partition, e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

func newPanicError(fn string, p, elem int, v any) *PanicError {
	// An interpreted callback's panic (sparknet-shell's) reaches
	// compiled code as the reflect.Value of the value passed to panic.
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface()
	}
	return &PanicError{Func: fn, Partition: p, Element: elem, Value: v, Stack: string(debug.Stack())}
}

// each calls f(i) for i in [0, n), turning a panic into a *PanicError
// that names fn, partition p and the element. An element that the
// callback cannot take (see ErrType) fails at once: another attempt
// would fail the same way.
func each(fn string, p, n int, f func(i int)) (err error) {
	i := 0
	defer func() {
		if v := recover(); v != nil {
			err = recovered(fn, p, i, v)
		}
	}()
	for ; i < n; i++ {
		f(i)
	}
	return nil
}

// call calls f once, turning a panic into a *PanicError.
func call(fn string, p int, f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = recovered(fn, p, -1, v)
		}
	}()
	f()
	return nil
}

// recovered turns a panic in a callback into an error.
func recovered(fn string, p, i int, v any) error {
	switch e := v.(type) {
	case *typeError:
		return NoRetry(e.placedAt(p, i))
	case *fetchFailed:
		return e
	}
	return newPanicError(fn, p, i, v)
}
