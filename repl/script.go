package repl

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Load runs the Go file at path in the session, as :load does: a package
// main file as a whole (its main function runs), any other file cell by
// cell (see SplitCells), each cell as one input. Its declarations stay in
// the session.
func (s *Session) Load(ctx context.Context, path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	if err := s.RunSource(ctx, path, string(src), false); err != nil {
		return err
	}
	s.mu.Lock()
	s.n++
	s.inputs = append(s.inputs, Input{N: s.n, Src: string(src), From: path})
	s.mu.Unlock()
	return nil
}

// RunSource runs src, read from file name, as a script: a package main
// file as a whole, anything else cell by cell. With echo, the value of
// each cell's final expression is echoed.
func (s *Session) RunSource(ctx context.Context, name, src string, echo bool) error {
	if hasPackageClause(src) {
		return s.EvalCell(ctx, name, src, 1, false)
	}
	for _, c := range SplitCells(src) {
		if strings.TrimSpace(c.Code) == "" {
			continue
		}
		if err := s.EvalCell(ctx, name, c.Code, c.Line, echo); err != nil {
			return err
		}
	}
	return nil
}

// EvalCell evaluates code read from file name, where it starts at line
// first. With echo, the value of a final expression is echoed.
func (s *Session) EvalCell(ctx context.Context, name, code string, first int, echo bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evalChunks(ctx, name, code, first, echo)
}
