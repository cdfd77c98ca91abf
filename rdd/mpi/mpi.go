//go:build mpi && cgo

package mpi

/*
#cgo pkg-config: mpi
#include <mpi.h>
#include <stdlib.h>

// Go turns SIGSEGV, SIGBUS and SIGFPE into panics that rdd recovers from;
// UCX (used by Open MPI on InfiniBand) would take those signals over
// unless told otherwise.
static int sn_init(int want, int *provided) {
	int flag = 0;
	if (getenv("UCX_ERROR_SIGNALS") == NULL) {
		setenv("UCX_ERROR_SIGNALS", "", 0);
	}
	MPI_Initialized(&flag);
	if (flag) {
		return MPI_Query_thread(provided);
	}
	int rc = MPI_Init_thread(NULL, NULL, want, provided);
	if (rc != MPI_SUCCESS) {
		return rc;
	}
	return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static int sn_rank_size(int *rank, int *size) {
	int rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
	if (rc != MPI_SUCCESS) {
		return rc;
	}
	return MPI_Comm_size(MPI_COMM_WORLD, size);
}

static int sn_bcast(void *buf, int n, int root) {
	return MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
}

static int sn_allreduce_f32(float *buf, int n) {
	return MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static int sn_allgatherv(void *send, int n, void *recv, int *counts, int *displs) {
	return MPI_Allgatherv(send, n, MPI_BYTE, recv, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
}

// Non-blocking forms of the small collectives every exchange starts with;
// their request and scalars live in C memory, so Go may move nothing that
// MPI still holds while the Go side polls.
typedef struct {
	MPI_Request req;
	long long n;     // a broadcast length, or this rank's length
	long long *all;  // the gathered lengths (size entries)
	long long *each; // the lengths this rank sends to each rank (size entries), or NULL
} sn_op;

static sn_op *sn_op_new(int size) {
	sn_op *op = calloc(1, sizeof(sn_op));
	if (op != NULL && size > 0) {
		op->all = calloc(size, sizeof(long long));
		op->each = calloc(size, sizeof(long long));
		if (op->all == NULL || op->each == NULL) {
			free(op->all);
			free(op->each);
			free(op);
			return NULL;
		}
	}
	return op;
}

static void sn_op_free(sn_op *op) {
	if (op != NULL) {
		free(op->all);
		free(op->each);
		free(op);
	}
}

static int sn_ialltoall_len(sn_op *op) {
	return MPI_Ialltoall(op->each, 1, MPI_LONG_LONG, op->all, 1, MPI_LONG_LONG, MPI_COMM_WORLD, &op->req);
}

static int sn_allreduce_max_ll(long long *x) {
	return MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
}

static int sn_alltoallv(void *send, int *scounts, int *sdispls, void *recv, int *rcounts, int *rdispls) {
	return MPI_Alltoallv(send, scounts, sdispls, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD);
}

static int sn_ibarrier(sn_op *op) { return MPI_Ibarrier(MPI_COMM_WORLD, &op->req); }

static int sn_ibcast_len(sn_op *op, int root) {
	return MPI_Ibcast(&op->n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD, &op->req);
}

static int sn_iallgather_len(sn_op *op) {
	return MPI_Iallgather(&op->n, 1, MPI_LONG_LONG, op->all, 1, MPI_LONG_LONG, MPI_COMM_WORLD, &op->req);
}

static int sn_test(sn_op *op, int *done) { return MPI_Test(&op->req, done, MPI_STATUS_IGNORE); }

static int sn_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }

static int sn_finalize(void) { return MPI_Finalize(); }

static void sn_error_string(int rc, char *buf, int *len) {
	if (MPI_Error_string(rc, buf, len) != MPI_SUCCESS) {
		*len = 0;
	}
}

static void sn_version(char *buf, int *len) {
	if (MPI_Get_library_version(buf, len) != MPI_SUCCESS) {
		*len = 0;
	}
}
*/
import "C"

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/sparknet-go/sparknet/rdd"
)

// Built reports whether this binary has the MPI binding (the build tag
// mpi).
const Built = true

// maxChunk is the largest message, in bytes, handed to one MPI call:
// MPI counts are C ints, so larger buffers go in pieces. Tests lower it.
var maxChunk = 1 << 30

// Comm is MPI_COMM_WORLD as an rdd.Comm: the ranks started by mpirun.
// Get it with World. Its methods follow rdd.Comm: every rank makes the
// same calls in the same order, from one goroutine at a time.
type Comm struct {
	rank, size int
	thread     int         // the thread level MPI provides
	calls      chan func() // run on the goroutine locked to MPI's thread

	mu        sync.Mutex
	finalized bool
	hb        *heartbeat // the watch over the other ranks, nil when off
}

var _ rdd.Comm = (*Comm)(nil)

var world struct {
	once sync.Once
	c    *Comm
	err  error

	mu     sync.Mutex
	opened bool // an "mpi" Context holds the Comm
}

// World initializes MPI, on the first call, and returns the communicator
// of all ranks. After the Comm is closed (MPI finalized), MPI cannot
// start again: World returns ErrFinalized.
func World() (*Comm, error) {
	world.once.Do(func() { world.c, world.err = initialize() })
	if world.err != nil {
		return nil, world.err
	}
	if world.c.isFinalized() {
		return nil, ErrFinalized
	}
	return world.c, nil
}

// initialize starts the goroutine that makes every MPI call, locked to
// its OS thread, and initializes MPI there.
func initialize() (*Comm, error) {
	c := &Comm{calls: make(chan func())}
	started := make(chan error)
	go func() {
		runtime.LockOSThread() // for good: MPI's thread is this one
		var provided C.int
		if err := mpiError("MPI_Init_thread", C.sn_init(C.MPI_THREAD_MULTIPLE, &provided)); err != nil {
			started <- err
			return
		}
		var rank, size C.int
		if err := mpiError("MPI_Comm_rank", C.sn_rank_size(&rank, &size)); err != nil {
			started <- err
			return
		}
		c.rank, c.size, c.thread = int(rank), int(size), int(provided)
		started <- nil
		for f := range c.calls {
			f()
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

// ErrFinalized reports a call after the Comm was closed.
var ErrFinalized = errors.New("mpi: MPI was finalized when its Context closed, and cannot start again in this process")

// do runs f on MPI's thread and returns its error.
func (c *Comm) do(f func() error) error {
	if c.isFinalized() {
		return ErrFinalized
	}
	done := make(chan error)
	c.calls <- func() { done <- f() }
	return <-done
}

func (c *Comm) isFinalized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.finalized
}

// mpiError turns an MPI return code into an error naming the call.
func mpiError(call string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	buf := make([]byte, C.MPI_MAX_ERROR_STRING)
	var n C.int
	C.sn_error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return fmt.Errorf("mpi: %s failed: %s (error code %d)", call, buf[:n], int(rc))
}

// Rank is this process's rank in MPI_COMM_WORLD.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in MPI_COMM_WORLD.
func (c *Comm) Size() int { return c.size }

// ThreadLevel is the thread support MPI provides: "single", "funneled",
// "serialized" or "multiple".
func (c *Comm) ThreadLevel() string {
	switch C.int(c.thread) {
	case C.MPI_THREAD_SINGLE:
		return "single"
	case C.MPI_THREAD_FUNNELED:
		return "funneled"
	case C.MPI_THREAD_SERIALIZED:
		return "serialized"
	}
	return "multiple"
}

// Barrier returns once every rank has called it.
func (c *Comm) Barrier() error {
	return c.do(func() error {
		op := C.sn_op_new(0)
		if op == nil {
			return errors.New("mpi: MPI_Ibarrier: out of memory")
		}
		defer C.sn_op_free(op)
		return wait("MPI_Ibarrier", op, C.sn_ibarrier(op))
	})
}

// wait completes a non-blocking operation started with result rc. It
// tests at once and keeps testing for a short spin, for latency; after
// that it sleeps between tests with a growing pause (up to pollMax), so a
// rank that waits long — for instance while rank 0's user types the next
// input — does not keep a core busy. Every exchange between ranks starts
// with such a small collective, so the large transfers that follow never
// wait for a rank that is not there yet.
func wait(call string, op *C.sn_op, rc C.int) error {
	if err := mpiError(call, rc); err != nil {
		return err
	}
	spinUntil := time.Now().Add(pollSpin)
	pause := 20 * time.Microsecond
	for {
		var done C.int
		if err := mpiError("MPI_Test", C.sn_test(op, &done)); err != nil {
			return err
		}
		if done != 0 {
			return nil
		}
		if time.Now().Before(spinUntil) {
			continue
		}
		time.Sleep(pause)
		pause = min(2*pause, pollMax)
	}
}

// pollSpin is how long wait tests without sleeping; pollMax is its
// longest pause between tests.
const (
	pollSpin = 2 * time.Millisecond
	pollMax  = 5 * time.Millisecond
)

// Broadcast returns root's data on every rank: the length goes first, so
// the other ranks need not know it. On root the result is data itself.
func (c *Comm) Broadcast(root int, data []byte) ([]byte, error) {
	if root < 0 || root >= c.size {
		return nil, fmt.Errorf("mpi: Broadcast root %d: ranks are 0 to %d", root, c.size-1)
	}
	var out []byte
	err := c.do(func() error {
		op := C.sn_op_new(0)
		if op == nil {
			return errors.New("mpi: MPI_Ibcast: out of memory")
		}
		defer C.sn_op_free(op)
		op.n = C.longlong(len(data))
		if err := wait("MPI_Ibcast", op, C.sn_ibcast_len(op, C.int(root))); err != nil {
			return err
		}
		n := op.n
		out = data
		if c.rank != root {
			out = make([]byte, int(n))
		}
		for off := 0; off < len(out); off += maxChunk {
			k := min(maxChunk, len(out)-off)
			if err := mpiError("MPI_Bcast", C.sn_bcast(unsafe.Pointer(&out[off]), C.int(k), C.int(root))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AllreduceFloat32Sum replaces xs with its elementwise sum over the ranks
// (MPI_Allreduce, MPI_FLOAT, MPI_SUM, in place).
func (c *Comm) AllreduceFloat32Sum(xs []float32) error {
	return c.do(func() error {
		step := max(maxChunk/4, 1)
		for off := 0; off < len(xs); off += step {
			k := min(step, len(xs)-off)
			if err := mpiError("MPI_Allreduce", C.sn_allreduce_f32((*C.float)(unsafe.Pointer(&xs[off])), C.int(k))); err != nil {
				return err
			}
		}
		return nil
	})
}

// Allgather returns every rank's data, indexed by rank: the lengths are
// gathered first (MPI_Allgather), then the bytes (MPI_Allgatherv).
func (c *Comm) Allgather(data []byte) ([][]byte, error) {
	out := make([][]byte, c.size)
	err := c.do(func() error {
		op := C.sn_op_new(C.int(c.size))
		if op == nil {
			return errors.New("mpi: MPI_Iallgather: out of memory")
		}
		defer C.sn_op_free(op)
		op.n = C.longlong(len(data))
		if err := wait("MPI_Iallgather", op, C.sn_iallgather_len(op)); err != nil {
			return err
		}
		lens := make([]C.longlong, c.size)
		copy(lens, unsafe.Slice(op.all, c.size))
		total := 0
		for _, n := range lens {
			total += int(n)
		}
		counts := make([]C.int, c.size)
		displs := make([]C.int, c.size)
		if total <= maxChunk {
			buf := make([]byte, total+1) // +1: a valid address when total is 0
			off := 0
			for r, n := range lens {
				counts[r], displs[r] = C.int(n), C.int(off)
				out[r] = buf[off : off+int(n) : off+int(n)]
				off += int(n)
			}
			return allgatherv(data, counts, displs, buf)
		}
		// Too large for int displacements: rounds in which each rank
		// sends at most maxChunk/size bytes.
		per := max(maxChunk/c.size, 1)
		for r, n := range lens {
			out[r] = make([]byte, int(n))
		}
		buf := make([]byte, per*c.size)
		for sent := 0; sent < total; {
			off := 0
			for r := range lens {
				k := min(per, max(len(out[r])-int(displs[r]), 0)) // displs[r] tracks rank r's progress
				counts[r] = C.int(k)
				off += k
			}
			roundDispls := make([]C.int, c.size)
			at := 0
			for r := range lens {
				roundDispls[r] = C.int(at)
				at += int(counts[r])
			}
			from := int(displs[c.rank])
			if err := allgatherv(data[from:from+int(counts[c.rank])], counts, roundDispls, buf); err != nil {
				return err
			}
			for r := range lens {
				k, d := int(counts[r]), int(displs[r])
				copy(out[r][d:d+k], buf[roundDispls[r]:int(roundDispls[r])+k])
				displs[r] += C.int(k)
			}
			sent += off
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Alltoall sends data[r] to rank r and returns what every rank sent to
// this one: the lengths go first (MPI_Ialltoall), then the bytes
// (MPI_Alltoallv), in rounds of at most maxChunk bytes per rank so that
// counts and displacements fit C ints.
func (c *Comm) Alltoall(data [][]byte) ([][]byte, error) {
	if len(data) != c.size {
		return nil, fmt.Errorf("mpi: Alltoall with %d parts for %d ranks", len(data), c.size)
	}
	out := make([][]byte, c.size)
	err := c.do(func() error {
		op := C.sn_op_new(C.int(c.size))
		if op == nil {
			return errors.New("mpi: MPI_Ialltoall: out of memory")
		}
		defer C.sn_op_free(op)
		each := unsafe.Slice(op.each, c.size)
		var most C.longlong
		for r, d := range data {
			each[r] = C.longlong(len(d))
			most = max(most, each[r])
		}
		if err := wait("MPI_Ialltoall", op, C.sn_ialltoall_len(op)); err != nil {
			return err
		}
		lens := make([]int, c.size)
		for r, n := range unsafe.Slice(op.all, c.size) {
			lens[r] = int(n)
			out[r] = make([]byte, lens[r])
			most = max(most, n)
		}
		// Every rank must make as many rounds: the longest message
		// between any two ranks decides.
		if err := mpiError("MPI_Allreduce", C.sn_allreduce_max_ll(&most)); err != nil {
			return err
		}
		per := max(maxChunk/c.size, 1)
		rounds := (int(most) + per - 1) / per
		scounts, sdispls := make([]C.int, c.size), make([]C.int, c.size)
		rcounts, rdispls := make([]C.int, c.size), make([]C.int, c.size)
		var sbuf, rbuf []byte
		for k := 0; k < rounds; k++ {
			lo := k * per
			st, rt := 0, 0
			for r := range data {
				sn := min(per, max(len(data[r])-lo, 0))
				rn := min(per, max(lens[r]-lo, 0))
				scounts[r], sdispls[r] = C.int(sn), C.int(st)
				rcounts[r], rdispls[r] = C.int(rn), C.int(rt)
				st += sn
				rt += rn
			}
			sbuf = slices.Grow(sbuf[:0], st+1)[:st+1] // +1: a valid address when empty
			rbuf = slices.Grow(rbuf[:0], rt+1)[:rt+1]
			for r := range data {
				if scounts[r] > 0 {
					copy(sbuf[sdispls[r]:], data[r][lo:lo+int(scounts[r])])
				}
			}
			if err := mpiError("MPI_Alltoallv", C.sn_alltoallv(unsafe.Pointer(&sbuf[0]), &scounts[0], &sdispls[0],
				unsafe.Pointer(&rbuf[0]), &rcounts[0], &rdispls[0])); err != nil {
				return err
			}
			for r := range out {
				if rcounts[r] > 0 {
					copy(out[r][lo:], rbuf[rdispls[r]:rdispls[r]+rcounts[r]])
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// allgatherv calls MPI_Allgatherv; buf has room for every rank's count.
func allgatherv(send []byte, counts, displs []C.int, buf []byte) error {
	var sp unsafe.Pointer
	if len(send) > 0 {
		sp = unsafe.Pointer(&send[0])
	} else {
		sp = unsafe.Pointer(&buf[0]) // not read: the count is 0
	}
	return mpiError("MPI_Allgatherv", C.sn_allgatherv(sp, C.int(len(send)), unsafe.Pointer(&buf[0]), &counts[0], &displs[0]))
}

// Abort prints msg to standard error, naming this rank, and ends every
// process of the job with MPI_Abort; it does not return. It may be
// called from any goroutine, also while another waits in a collective.
func (c *Comm) Abort(code int, msg string) { c.abort(code, msg, 10*time.Second) }

// abort is Abort, leaving the process after wait should MPI_Abort not
// return: it may not, when this rank's host cannot reach mpirun's.
func (c *Comm) abort(code int, msg string, wait time.Duration) {
	if code == 0 {
		code = 1
	}
	fmt.Fprintf(os.Stderr, "mpi: rank %d of %d aborts the job: %s\n", c.rank, c.size, strings.TrimRight(msg, "\n"))
	if c.isFinalized() {
		os.Exit(code)
	}
	// Should MPI_Abort not end this process, leaving it is enough: mpirun
	// ends a job when one of its processes exits without finalizing.
	time.AfterFunc(wait, func() { os.Exit(code) })
	C.sn_abort(C.int(code))
	os.Exit(code)
}

// Close finalizes MPI. Every rank must call it (rdd's Context.Close does
// so once all ranks have reached it); later calls return ErrFinalized.
func (c *Comm) Close() error {
	c.mu.Lock()
	hb := c.hb
	c.hb = nil
	c.mu.Unlock()
	if hb != nil {
		hb.close()
	}
	err := c.do(func() error { return mpiError("MPI_Finalize", C.sn_finalize()) })
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.finalized = true
	c.mu.Unlock()
	world.mu.Lock()
	world.opened = false
	world.mu.Unlock()
	return nil
}

// Version is the MPI library's version string, such as "Open MPI v4.1.4".
func Version() string {
	buf := make([]byte, C.MPI_MAX_LIBRARY_VERSION_STRING)
	var n C.int
	C.sn_version((*C.char)(unsafe.Pointer(&buf[0])), &n)
	s := string(buf[:n])
	if i := strings.IndexAny(s, ",\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, "\x00 ")
}

func init() {
	if err := rdd.RegisterMaster("mpi", open); err != nil {
		panic(err)
	}
}

// open is the master "mpi": an SPMD engine over World.
func open(master string) (rdd.Engine, error) {
	if master != "mpi" {
		return nil, fmt.Errorf("mpi: the MPI master is just \"mpi\"; the number of ranks comes from the launcher (mpirun -np N, srun -n N)")
	}
	world.mu.Lock()
	defer world.mu.Unlock()
	if world.opened {
		return nil, errors.New("mpi: this process has an open mpi Context already; MPI allows one, so use it")
	}
	c, err := World()
	if err != nil {
		return nil, err
	}
	if err := c.watch(); err != nil {
		return nil, err
	}
	world.opened = true
	return rdd.NewSPMDEngine(c), nil
}

// watch starts the heartbeats between the ranks (see heartbeat.go). It
// is collective: every rank calls it as its Context opens, and every rank
// watches only when all have heartbeats on.
func (c *Comm) watch() error {
	if c.size == 1 {
		return nil
	}
	timeout, terr := heartbeatTimeout()
	var conn *net.UDPConn
	var me []byte // empty: off on this rank
	if terr == nil && timeout > 0 {
		var p peer
		var err error
		if conn, p, err = localPeer(); err != nil {
			fmt.Fprintf(os.Stderr, "mpi: rank %d: %v; a host that stops answering will not end the job\n", c.rank, err)
		} else {
			if c.rank == 0 {
				p.Token = newToken()
			}
			me = encodePeer(p)
		}
	}
	all, err := c.Allgather(me)
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		return err
	}
	if terr != nil || conn == nil || slices.ContainsFunc(all, func(b []byte) bool { return len(b) == 0 }) {
		if conn != nil {
			conn.Close()
		}
		return terr
	}
	peers, err := decodePeers(all)
	if err != nil {
		conn.Close()
		return err
	}
	hb := newHeartbeat(c.rank, conn, peers, timeout, func(r int, _ time.Duration, msg string) {
		// A rank cut off from the others may not reach mpirun either:
		// it leaves soon whether MPI_Abort returns or not.
		c.abort(1, msg, 2*time.Second)
	})
	c.mu.Lock()
	c.hb = hb
	c.mu.Unlock()
	hb.start()
	return nil
}
