package repl

import (
	"fmt"
	"runtime"
	"sync/atomic"

	sparknet "github.com/sparknet-go/sparknet"
)

// The session's trainers. A sparknet.Trainer keeps a net replica per
// partition in the worker stores until it is closed, or until nothing
// refers to it and the garbage collector has run (the trainer releases
// its replicas then). In a shell, trainers are replaced all the time (a
// cell run again makes a new one under the same name), so after an input
// that made trainers the session runs the collector: the trainers that
// input replaced are closed at once rather than at some later collection.
// The session also names the checkpoint each of its trainers resumed from.

type trainerWatch struct {
	made   atomic.Int64 // trainers made on the session's context
	remove func()
}

// watchTrainers starts noticing the trainers made on the session's
// context.
func (s *Session) watchTrainers() {
	s.trainers.remove = sparknet.OnParallelize(func(t *sparknet.Trainer) {
		if t.Context() != s.sc {
			return
		}
		s.trainers.made.Add(1)
		o := t.Options()
		switch {
		case t.ResumedFrom() != "":
			fmt.Fprintf(s.errOut(), "resuming from %s: round %d, iteration %d\n", t.ResumedFrom(), t.RoundsDone(), t.Iter())
		case o.Resume && o.Checkpoint != "":
			fmt.Fprintf(s.errOut(), "no checkpoint under %s to resume from: starting at round 0\n", o.Checkpoint)
		}
	})
}

// collectReplaced runs the garbage collector when trainers were made
// since the last call, so that those they replaced release their
// replicas.
func (s *Session) collectReplaced() {
	if s.trainers.made.Swap(0) > 0 {
		runtime.GC()
	}
}

func (s *Session) stopWatchingTrainers() {
	if s.trainers.remove != nil {
		s.trainers.remove()
		s.trainers.remove = nil
	}
}
