package rdd

import (
	"errors"
	"fmt"
)

// Comm is a communicator: a group of ranks, usually one process each,
// that make the same collective calls in the same order. An SPMD engine
// runs over one (see NewSPMDEngine); package rdd/mpi provides one over
// MPI, and NewLocalComms one whose ranks are goroutines of this process.
//
// A rank calls its Comm from one goroutine at a time. Every rank must
// make the same calls, with the same root and the same lengths where the
// method says so; a rank that cannot go on calls Abort, which ends every
// rank's part in the job instead of leaving the others waiting.
type Comm interface {
	// Rank is this rank, 0 to Size()-1.
	Rank() int
	// Size is the number of ranks.
	Size() int
	// Barrier returns once every rank has called it.
	Barrier() error
	// Broadcast returns root's data on every rank; the data of other
	// ranks is ignored. The result must not be modified on root.
	Broadcast(root int, data []byte) ([]byte, error)
	// AllreduceFloat32Sum replaces xs, in place, with the elementwise sum
	// of every rank's xs. Every rank passes the same length.
	AllreduceFloat32Sum(xs []float32) error
	// Allgather returns every rank's data, indexed by rank, on every
	// rank. The lengths may differ from rank to rank.
	Allgather(data []byte) ([][]byte, error)
	// Alltoall sends data[r] to rank r, for every rank r (data has
	// Size() parts, of any lengths, nil for nothing), and returns what
	// every rank sent to this one, indexed by rank. Shuffles move their
	// buckets between ranks with it.
	Alltoall(data [][]byte) ([][]byte, error)
	// Abort ends the job with an exit code and a message that names the
	// cause. An MPI communicator prints the message and ends every
	// process, so it does not return; the in-process communicator makes
	// every rank's waiting and later collectives fail with an *AbortError
	// and returns.
	Abort(code int, msg string)
}

// ErrAborted reports a collective that failed because a rank aborted the
// job (see Comm.Abort) or left it; test for it with errors.Is.
var ErrAborted = errors.New("rdd: job aborted")

// AbortError is the error a collective returns once the job is aborted.
type AbortError struct {
	Rank int    // the rank that aborted
	Code int    // the exit code it gave
	Msg  string // its message
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("rdd: rank %d aborted the job (code %d): %s", e.Rank, e.Code, e.Msg)
}

// Is makes errors.Is(err, ErrAborted) hold.
func (e *AbortError) Is(target error) bool { return target == ErrAborted }

// closer is a Comm that releases what it holds when its rank is done, as
// the MPI communicator finalizes MPI. The SPMD engine closes its Comm in
// Close, once every rank has reached Close.
type closer interface {
	Close() error
}
