package repl

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
)

// Load runs the Go file at path in the session, as :load does: a package
// main file as a whole (its main function runs), any other file cell by
// cell (see SplitCells), each cell as one input whose final expression's
// value is shown, as at the prompt. Its declarations stay in the session.
// Under an SPMD master rank 0 reads the file for every rank.
func (s *Session) Load(ctx context.Context, path string) error {
	src, err := s.readFile(path)
	if err != nil {
		return err
	}
	if err := s.RunSource(ctx, path, src, true); err != nil {
		return err
	}
	s.mu.Lock()
	s.n++
	s.inputs = append(s.inputs, Input{N: s.n, Src: src, From: path})
	s.mu.Unlock()
	return nil
}

// RunFile runs the script at path, as sparknet-shell FILE.go does (see
// RunSource). Under an SPMD master rank 0 reads the file for every rank.
func (s *Session) RunFile(ctx context.Context, path string) error {
	src, err := s.readFile(path)
	if err != nil {
		return err
	}
	if hasPackageClause(src) && !declaresMain(src) {
		// As the go command refuses to build it.
		return fmt.Errorf("%s: function main is undeclared in the main package", path)
	}
	return s.RunSource(ctx, path, src, false)
}

// uncalledMain matches the declaration of func main in a script.
var uncalledMain = regexp.MustCompile(`(?m)^func main\(\)\s*\{`)

// declaresMain reports whether src, a file with a package clause,
// declares func main, or fails to parse (which running it reports).
func declaresMain(src string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil || f.Name.Name != "main" {
		return true // (running it reports either)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			return true
		}
	}
	return false
}

// RunSource runs src, read from file name, as a script: a package main
// file as a whole, anything else cell by cell. With echo, the value of
// each cell's final expression is echoed. The first cell that fails
// stops the script, and a return among a cell's top-level statements
// ends it without an error, as a return in main ends a Go program. The
// calls that defer statements among the top-level statements defer run
// when the script ends, the last first, unless os.Exit or an interrupt
// ended it; a panic that ended it is what recover returns in them (a
// function literal's own call of recover), and a recovered one ends the
// script without an error. Under an SPMD master every rank runs every cell, and
// after each the ranks compare outcomes, so that all stop at the same
// cell; when their errors differ, the error is a *RankError.
func (s *Session) RunSource(ctx context.Context, name, src string, echo bool) error {
	if hasPackageClause(src) {
		return s.settle(s.EvalCell(ctx, name, src, 1, false))
	}
	var defers []func()
	if s.scriptDefers == nil { // not a script that :load runs
		s.scriptDefers = &defers
		defer func() { s.scriptDefers = nil }()
	}
	err := s.runCells(ctx, name, src, echo)
	if err == nil && uncalledMain.MatchString(src) && strings.Count(src, "main(") == 1 {
		// A program without its package clause: say why main did not run.
		fmt.Fprintf(s.stderr, "note: %s has no package clause, so its lines run as top-level statements, and its func main runs only where called; begin it with package main to run it as a program\n", name)
	}
	var ex *ExitError
	if errors.As(err, &ex) || errors.Is(err, ErrInterrupted) {
		return err // os.Exit and Ctrl-C run no deferred call
	}
	var pe *PanicError
	panicked := errors.As(err, &pe) && !pe.Goroutine
	if panicked {
		s.scriptPanic = pe // for recover in the deferred calls
	}
	derr := s.runDefers(&defers)
	if panicked && s.scriptPanic == nil {
		err = nil // recovered, as in main
	}
	s.scriptPanic = nil
	if err == nil {
		err = derr
	}
	return err
}

// runCells runs the cells of a script (see RunSource).
func (s *Session) runCells(ctx context.Context, name, src string, echo bool) error {
	for _, c := range SplitCells(src) {
		if strings.TrimSpace(c.Code) == "" {
			continue
		}
		// Under an SPMD master the ranks compare the return too: should
		// only some of them return, their sessions part ways.
		if err := s.settle(s.evalCell(ctx, name, c.Code, c.Line, echo)); errors.Is(err, errReturned) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// runDefers runs the deferred calls of a script's top-level statements,
// the last first, and returns the first panic among them as a
// *PanicError (the others still run, as in Go).
func (s *Session) runDefers(defers *[]func()) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(*defers) > 0 {
		f := (*defers)[len(*defers)-1]
		*defers = (*defers)[:len(*defers)-1]
		func() {
			defer func() {
				if r := recover(); r != nil && err == nil {
					if ex, ok := r.(exitRequest); ok {
						err = &ExitError{Code: ex.code}
						return
					}
					err = newPanicError(s.namedPanic(r), s.trace(s.stderr.take(), ""), false)
				}
			}()
			f()
		}()
	}
	return err
}

// EvalCell evaluates code read from file name, where it starts at line
// first. With echo, the value of a final expression is echoed.
// A return among its top-level statements ends it.
func (s *Session) EvalCell(ctx context.Context, name, code string, first int, echo bool) error {
	defer endRoundChain() // the cell's display of its Round calls
	if err := s.evalCell(ctx, name, code, first, echo); !errors.Is(err, errReturned) {
		return err
	}
	return nil
}

// evalCell is EvalCell, which reports a return among the cell's
// top-level statements as errReturned.
func (s *Session) evalCell(ctx context.Context, name, code string, first int, echo bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evalChunks(ctx, name, code, first, echo)
}
