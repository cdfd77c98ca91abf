// Package mpi runs sparknet across processes and machines on MPI (Open
// MPI or MPICH): it is a small cgo binding of MPI's world communicator as
// an rdd.Comm, and it registers the master "mpi" with package rdd.
//
// # Building
//
// The binding is compiled only with the build tag mpi, and needs an MPI
// library with its headers and a pkg-config file named "mpi" (Debian and
// Ubuntu: apt-get install openmpi-bin libopenmpi-dev, or mpich
// libmpich-dev):
//
//	go build -tags mpi ./cmd/sparknet-shell
//
// Without the tag the package still compiles, so that code using it
// builds everywhere, but World returns ErrNotBuilt and the master "mpi"
// is unknown to rdd.NewContext, whose error says to rebuild with -tags
// mpi. A command enables the master by importing the package for its
// side effect, in a file of its own:
//
//	//go:build mpi
//
//	package main
//
//	import _ "github.com/sparknet-go/sparknet/rdd/mpi"
//
// # Running
//
// Every rank runs the same program, started by mpirun (or srun, or the
// Kubernetes MPI Operator):
//
//	mpirun -np 4 sparknet-shell --master mpi train.go
//
// where the program opens its Context with
//
//	sc, err := rdd.NewContext("mpi") // MPI starts here
//	if err != nil {
//		return err
//	}
//	defer sc.Close() // collective: finalizes MPI once every rank is here
//
// Rank r owns the partitions p with p mod size = r. Actions compute
// those and exchange results with collectives, so every rank gets the
// same answer; sc.IsDriver() is true on rank 0 only, which alone should
// print. A trainer sums weights over the ranks with
// rdd.AllreduceWeights(sc.Comm(), w), which calls MPI_Allreduce.
//
// # Failures
//
// MPI cannot recover a lost rank, so a failure ends the job instead of
// leaving ranks waiting: ranks that disagree (one closes its Context, or
// fails alone, while others run a job) abort the job with MPI_Abort and a
// message naming each rank's call; a rank that panics with a deferred
// sc.Close() aborts it with the panic's message and stack; a rank that
// exits without closing, or is killed, makes mpirun end the job (Open
// MPI does so by default). Errors that every rank sees alike, such as a
// task that failed on every attempt, are returned by the action as under
// a local master.
//
// # Threads
//
// MPI is initialized with MPI_THREAD_MULTIPLE requested, and every call
// except MPI_Abort runs on one goroutine locked to the OS thread that
// initialized MPI, so the binding works with any thread level from
// MPI_THREAD_FUNNELED up. Errors of MPI calls are returned
// (MPI_ERRORS_RETURN), with MPI's error string.
package mpi
