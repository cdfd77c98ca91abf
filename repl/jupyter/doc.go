// Package jupyter is the Jupyter side of sparknet-shell's kernel: the
// messaging protocol (version 5.3) over ZeroMQ, connection files,
// kernelspecs and the nbformat 4 notebook format. It knows nothing of
// the session that runs the cells; package repl puts one behind it.
//
// # The protocol
//
// Listen binds the five channels of a connection file (shell, control,
// iopub, stdin and heartbeat) with github.com/go-zeromq/zmq4, a ZeroMQ
// written in Go. Serve passes each request to a handler, one shell
// request at a time and control requests beside them, and publishes the
// kernel's status around each. Every message is signed with HMAC (the
// connection file's signature_scheme and key); a message with a wrong
// signature, or with a signature seen before, is refused with a line in
// the log and the kernel goes on.
//
//	info, err := jupyter.ReadConnectionFile(path)
//	srv, err := jupyter.Listen(*info, os.Stderr)
//	srv.Serve(ctx, func(r *jupyter.Request) { ... r.Reply(content) ... })
//
// # Kernelspecs and notebooks
//
// Install writes a kernelspec (kernel.json and logos) where Jupyter
// looks for kernels; Notebook reads and writes .ipynb files the way
// Jupyter does (sorted keys, one-space indent), so that a notebook
// written here and saved by Jupyter differ only where their content does.
package jupyter
