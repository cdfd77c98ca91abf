// Command stdextract writes interpreter symbol tables for the standard
// library symbols that github.com/traefik/yaegi/stdlib lacks for the Go
// toolchain in use (symbols and packages added after Go 1.22). It runs the
// pinned yaegi extractor on each such package, restricted to the missing
// symbols, and writes one std_<package>.go file per package into the
// current directory, removing std_*.go files it no longer needs.
//
//	go run ./internal/stdextract -add crypto/sha3,crypto/mlkem
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sparknet-go/sparknet/stdlib/internal/stdsyms"
	"github.com/traefik/yaegi/extract"
)

func main() {
	add := flag.String("add", "", "comma-separated standard packages the interpreter lacks entirely")
	name := flag.String("name", "stdlib", "package name of the generated files")
	flag.Parse()
	if err := run(*name, strings.Split(*add, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "stdextract:", err)
		os.Exit(1)
	}
}

func run(dest string, extra []string) error {
	old, err := filepath.Glob("std_*.go")
	if err != nil {
		return err
	}
	paths := stdsyms.Packages(extra)
	im, err := stdsyms.NewImporter(paths...)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, p := range paths {
		pkg, err := im.Import(p)
		if err != nil {
			return err
		}
		names := stdsyms.Missing(pkg)
		if len(names) == 0 {
			continue
		}
		include := make([]string, len(names))
		for i, n := range names {
			include[i] = "^" + regexp.QuoteMeta(n) + "$"
		}
		ext := extract.Extractor{Dest: dest, Include: include}
		var buf bytes.Buffer
		if _, err := ext.Extract(p, "", &buf); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		file := stdsyms.FileName(p)
		keep[file] = true
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	for _, f := range old {
		if !keep[f] {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	return nil
}
