//go:build !mpi || !cgo

package mpi

import (
	"errors"

	"github.com/sparknet-go/sparknet/rdd"
)

// Built reports whether this binary has the MPI binding (the build tag
// mpi).
const Built = false

// ErrNotBuilt is what World returns in a binary built without MPI.
var ErrNotBuilt = errors.New("mpi: this binary was built without MPI: rebuild it with -tags mpi (and cgo), which needs Open MPI or MPICH and its pkg-config file, then start it with mpirun")

// ErrFinalized reports a call after the Comm was closed.
var ErrFinalized = errors.New("mpi: MPI was finalized when its Context closed, and cannot start again in this process")

// Comm is MPI_COMM_WORLD as an rdd.Comm. Without MPI there is none:
// World returns ErrNotBuilt, and the methods report it.
type Comm struct{}

var _ rdd.Comm = (*Comm)(nil)

// World returns ErrNotBuilt: this binary was built without MPI.
func World() (*Comm, error) { return nil, ErrNotBuilt }

func (*Comm) Rank() int                             { return 0 }
func (*Comm) Size() int                             { return 1 }
func (*Comm) ThreadLevel() string                   { return "" }
func (*Comm) Barrier() error                        { return ErrNotBuilt }
func (*Comm) Broadcast(int, []byte) ([]byte, error) { return nil, ErrNotBuilt }
func (*Comm) AllreduceFloat32Sum([]float32) error   { return ErrNotBuilt }
func (*Comm) Allgather([]byte) ([][]byte, error)    { return nil, ErrNotBuilt }
func (*Comm) Alltoall([][]byte) ([][]byte, error)   { return nil, ErrNotBuilt }
func (*Comm) Abort(int, string)                     {}
func (*Comm) Close() error                          { return ErrNotBuilt }

// Version reports that there is no MPI library.
func Version() string { return "none (built without -tags mpi)" }
