// Command sparknet-shell is sparknet's interactive Go shell: with no
// arguments an interactive session with sc ready, with FILE.go a script,
// with -e CODE one evaluation, with --notebook FILE.go (or FILE.ipynb) a
// notebook run that writes a Markdown report or the executed notebook,
// and with --kernel CONNECTION_FILE a Jupyter kernel (--install-kernel
// writes its kernelspec). Built with -tags mpi it also runs under mpirun
// with --master mpi, one session per rank. See package repl.
package main

import (
	"os"

	"github.com/sparknet-go/sparknet/repl"
)

func main() {
	os.Exit(repl.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
