//go:build mpi

package main

// Built with -tags mpi, the command accepts the master "mpi".
import _ "github.com/sparknet-go/sparknet/rdd/mpi"
