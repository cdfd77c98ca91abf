// Package stdlib holds the interpreter symbol tables that sparknet-shell
// adds to the interpreter's own: sparknet's packages, and the standard
// library symbols and packages that the interpreter's tables lack because
// they stop at Go 1.22.
//
// Every other file of this package is generated; do not edit them. To
// regenerate after an API change, run
//
//	go generate ./stdlib
//
// The first go:generate line below is the list of sparknet packages the
// shell exposes: adding a package is a change to that one line. The
// second writes the standard-library additions; its -add flag names the
// standard packages that the interpreter lacks entirely (the others are
// found by comparing with the interpreter's tables). TestSymbolsCurrent
// fails when the tables are stale.
//
// A shell uses the tables together with the interpreter's:
//
//	i := interp.New(interp.Options{})
//	i.Use(yaegistdlib.Symbols)
//	i.Use(stdlib.Symbols)
package stdlib

import "reflect"

// Symbols maps "import/path/name" to the package's exported symbols, in
// the form interp.Interpreter.Use takes.
var Symbols = map[string]map[string]reflect.Value{}

//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -name stdlib github.com/sparknet-go/sparknet github.com/sparknet-go/sparknet/ndarray github.com/sparknet-go/sparknet/data github.com/sparknet-go/sparknet/rdd github.com/sparknet-go/sparknet/caffe github.com/sparknet-go/sparknet/caffe/caffepb github.com/sparknet-go/sparknet/caffe/format github.com/sparknet-go/sparknet/repl/display github.com/sparknet-go/sparknet/ui
//go:generate go run ./internal/stdextract -name stdlib -add crypto/fips140,crypto/hpke,crypto/mlkem,crypto/sha3
