package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/rdd"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// How a session runs under an SPMD master such as "mpi", where every
// process (rank) runs a session of its own:
//
//   - Rank 0 alone reads input: the lines typed at the prompt, the script
//     file, the -e code, the notebook's cells, the files of :load. It
//     broadcasts each input, and every rank evaluates it, so every rank
//     holds the same variables and makes the same RDD actions.
//   - Only rank 0 writes output. Other ranks send their results, their
//     fmt.Print output and what interpreted code writes to os.Stdout and
//     os.Stderr to nowhere, unless Options.AllRanksOutput is set. (The
//     process's own standard error stays, for MPI's messages.)
//   - After every input the ranks compare outcomes (an allgather of
//     their errors), so that rank 0 reports an error of any rank with the
//     rank, and every rank takes the same branch: go on, stop, or quit.
//   - An input that failed on some ranks and not on others leaves the
//     ranks' sessions different. A script stops there on every rank; the
//     interactive shell ends the job (Comm.Abort) with the ranks' errors,
//     since later inputs would see different variables on different ranks.
//   - Ctrl-C cannot stop one input on every rank at the same point, so
//     under an SPMD master an interrupt ends the job. (mpirun itself ends
//     the job on Ctrl-C, by signaling every rank.)

// ranks is the SPMD side of a session: its communicator.
type ranks struct {
	comm rdd.Comm
}

// rank is this process's rank.
func (g *ranks) rank() int { return g.comm.Rank() }

// share makes v, on every rank, what it is on rank 0: rank 0 sends v as
// JSON and the other ranks decode it into v.
func (g *ranks) share(v any) error {
	var b []byte
	if g.rank() == 0 {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return fmt.Errorf("repl: sending an input to the ranks: %w", err)
		}
	}
	got, err := g.comm.Broadcast(0, b)
	if err != nil {
		return fmt.Errorf("repl: sending an input to the ranks: %w", err)
	}
	if g.rank() == 0 {
		return nil
	}
	if err := json.Unmarshal(got, v); err != nil {
		return fmt.Errorf("repl: an input from rank 0: %w", err)
	}
	return nil
}

// outcome is how an input ended on one rank.
type outcome struct {
	Failed bool   `json:"failed,omitempty"`
	Err    string `json:"err,omitempty"`  // the report of the error
	Exit   *int   `json:"exit,omitempty"` // the code of os.Exit, when the input called it
}

func outcomeOf(err error) outcome {
	if err == nil {
		return outcome{}
	}
	var ex *ExitError
	if errors.As(err, &ex) {
		code := ex.Code
		return outcome{Failed: true, Err: ex.Error(), Exit: &code}
	}
	return outcome{Failed: true, Err: FormatError(err)}
}

func (o outcome) same(p outcome) bool {
	if o.Failed != p.Failed || o.Err != p.Err || (o.Exit == nil) != (p.Exit == nil) {
		return false
	}
	return o.Exit == nil || *o.Exit == *p.Exit
}

// settle compares the outcome of an input on every rank and returns the
// same verdict on each: nil when the input succeeded everywhere; err
// itself when it failed alike on every rank; otherwise a *RankError with
// every rank's outcome.
func (g *ranks) settle(err error) error {
	out := outcomeOf(err)
	b, jerr := json.Marshal(out)
	if jerr != nil {
		return fmt.Errorf("repl: %w", jerr)
	}
	// Should another rank still be running the input (this one failed
	// early, say), the job ends with this rank's error in its message.
	all, gerr := rdd.AllgatherNoting(g.comm, "the end of an input", out.Err, b)
	if gerr != nil {
		return fmt.Errorf("repl: comparing the ranks' outcomes: %w", gerr)
	}
	outs := make([]outcome, len(all))
	failed := 0
	for r, b := range all {
		if err := json.Unmarshal(b, &outs[r]); err != nil {
			return fmt.Errorf("repl: the outcome from rank %d: %w", r, err)
		}
		if outs[r].Failed {
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	alike := failed == len(outs)
	for _, o := range outs[1:] {
		alike = alike && o.same(outs[0])
	}
	if alike {
		return err
	}
	re := &RankError{Errs: make([]string, len(outs)), Code: 1}
	for r, o := range outs {
		switch {
		case o.Failed && o.Err == "":
			re.Errs[r] = "failed"
		case o.Failed:
			re.Errs[r] = o.Err
		}
	}
	if e := outs[0].Exit; e != nil && *e != 0 {
		re.Code = *e
	}
	return re
}

// RankError reports an input, under an SPMD master, that failed on some
// ranks only, or differently on different ranks.
type RankError struct {
	// Errs holds every rank's error report, indexed by rank: "" where
	// the input succeeded.
	Errs []string
	// Code is the exit status a script ends with: the code of rank 0's
	// os.Exit when it called it with a code other than 0, else 1.
	Code int
}

// Error lists the failures by rank, "rank 1: ...", with ranks that
// failed alike together, and names the ranks where the input succeeded.
func (e *RankError) Error() string {
	byErr := map[string][]int{}
	var ok []int
	for r, msg := range e.Errs {
		if msg == "" {
			ok = append(ok, r)
			continue
		}
		byErr[msg] = append(byErr[msg], r)
	}
	msgs := make([]string, 0, len(byErr))
	for msg := range byErr {
		msgs = append(msgs, msg)
	}
	sort.Slice(msgs, func(i, j int) bool { return byErr[msgs[i]][0] < byErr[msgs[j]][0] })
	var b strings.Builder
	for i, msg := range msgs {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s", rankList(byErr[msg]), msg)
	}
	if len(ok) > 0 {
		fmt.Fprintf(&b, "\n(no error on %s)", rankList(ok))
	}
	return b.String()
}

// Partial reports whether the input succeeded on some ranks: their
// sessions then differ from those of the ranks where it failed.
func (e *RankError) Partial() bool {
	for _, msg := range e.Errs {
		if msg == "" {
			return true
		}
	}
	return false
}

// rankList writes "rank 1" or "ranks 0, 2".
func rankList(ranks []int) string {
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = fmt.Sprint(r)
	}
	if len(s) == 1 {
		return "rank " + s[0]
	}
	return "ranks " + strings.Join(s, ", ")
}

// fileText is a file read by rank 0 for every rank.
type fileText struct {
	Src string `json:"src,omitempty"`
	Err string `json:"err,omitempty"`
}

// readFile reads the file at path: under an SPMD master, rank 0 reads it
// and the other ranks get its text (or the error) from rank 0.
func (s *Session) readFile(path string) (string, error) {
	if s.group == nil {
		b, err := fsio.ReadFile(path, fsio.TextLimit)
		if err != nil {
			return "", fmt.Errorf("repl: %w", err)
		}
		return string(b), nil
	}
	var f fileText
	if s.group.rank() == 0 {
		b, err := fsio.ReadFile(path, fsio.TextLimit)
		f.Src = string(b)
		if err != nil {
			f.Err = err.Error()
		}
	}
	if err := s.group.share(&f); err != nil {
		return "", err
	}
	if f.Err != "" {
		return "", fmt.Errorf("repl: %s", f.Err)
	}
	return f.Src, nil
}

// share makes v what it is on rank 0, under an SPMD master; see
// ranks.share. Under a local master it does nothing.
func (s *Session) share(v any) error {
	if s.group == nil {
		return nil
	}
	return s.group.share(v)
}

// settle turns the error of an input on this rank into the verdict of
// all ranks (see ranks.settle). Under a local master it returns err.
func (s *Session) settle(err error) error {
	if s.group == nil {
		return err
	}
	return s.group.settle(err)
}

// abort ends the job of every rank with msg; with an in-process
// communicator Abort returns, and abort does too.
func (s *Session) abort(code int, msg string) {
	if s.group != nil {
		s.group.comm.Abort(code, msg)
	}
}

// interruptible returns a context for running inputs. Under a local
// master an interrupt (Ctrl-C, SIGINT) cancels it; under an SPMD master
// it ends the job, since the ranks could not all stop at the same point.
func (s *Session) interruptible(parent context.Context) (context.Context, func()) {
	if s.group == nil {
		return signal.NotifyContext(parent, os.Interrupt)
	}
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	go func() {
		select {
		case <-sigs:
			s.abort(130, fmt.Sprintf("interrupted (SIGINT) on rank %d", s.sc.Rank()))
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}

// scriptInterrupts is interruptible for a script that runs as a program
// (sparknet-shell FILE.go) under a local master: SIGINT does to it what
// it does to a Go program. A script that catches it (signal.Notify,
// signal.NotifyContext) gets it and goes on; one that does not ends at
// once, by the signal, without running its deferred calls.
func (s *Session) scriptInterrupts(parent context.Context) (context.Context, func()) {
	if s.group != nil {
		return s.interruptible(parent)
	}
	ctx, cancel := context.WithCancel(parent)
	if signal.Ignored(os.Interrupt) {
		// Started with SIGINT ignored (in the background of a shell
		// without job control): it stays so, as for a Go program,
		// unless the script asks for it.
		return ctx, cancel
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	go func() {
		for {
			select {
			case <-sigs:
				if s.sigint.caught() {
					continue
				}
				// The default action: the process ends by the signal.
				signal.Reset(os.Interrupt)
				if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(os.Interrupt) == nil {
					time.Sleep(time.Second)
				}
				os.Exit(128 + 2)
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}

// onDriver runs f on rank 0 only, as for writing a file that every rank
// would write alike, and returns its error on every rank. Under a local
// master it runs f.
func (s *Session) onDriver(f func() error) error {
	if s.group == nil {
		return f()
	}
	var res fileText
	if s.group.rank() == 0 {
		if err := f(); err != nil {
			res.Err = err.Error()
		}
	}
	if err := s.group.share(&res); err != nil {
		return err
	}
	if res.Err != "" {
		return errors.New(res.Err)
	}
	return nil
}
