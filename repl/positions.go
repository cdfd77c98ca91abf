package repl

import (
	"errors"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// posErrorf returns an error at pos.
func posErrorf(fset *token.FileSet, pos token.Pos, format string, args ...any) error {
	return fmt.Errorf("%s: %s", fset.Position(pos), fmt.Sprintf(format, args...))
}

var inputPos = regexp.MustCompile(regexp.QuoteMeta(inputFile) + `:(\d+)(?::(\d+))?`)

// mapPositions rewrites positions in interactive inputs, such as
// sparknet-input:12:5, to the input and line they refer to: in[3]:2:5.
func (s *Session) mapPositions(msg string) string {
	return inputPos.ReplaceAllStringFunc(msg, func(m string) string {
		sub := inputPos.FindStringSubmatch(m)
		line, _ := strconv.Atoi(sub[1])
		i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i].first > line }) - 1
		if i < 0 {
			return m
		}
		out := fmt.Sprintf("%s[%d]:%d", s.inputName(), s.lines[i].n, line-s.lines[i].first+1)
		if sub[2] != "" {
			out += ":" + sub[2]
		}
		return out
	})
}

// mapErr rewrites the positions in err's message.
func (s *Session) mapErr(err error) error {
	if err == nil {
		return nil
	}
	var el scanner.ErrorList
	if errors.As(err, &el) && len(el) > 0 {
		msgs := make([]string, 0, min(len(el), 3))
		for _, e := range el[:min(len(el), 3)] {
			msgs = append(msgs, e.Error())
		}
		return &mappedError{msg: s.mapPositions(strings.Join(msgs, "\n")), err: err}
	}
	switch pe := err.(type) {
	case *ExitError:
		return err
	case *PanicError:
		for i, t := range pe.Trace {
			pe.Trace[i] = s.mapPositions(t)
		}
		if v := fmt.Sprint(pe.Value); inputPos.MatchString(v) {
			pe.msg = s.mapPositions(v)
		}
		return pe
	}
	if errors.Is(err, ErrInterrupted) {
		return err
	}
	return &mappedError{msg: s.suggest(s.mapPositions(err.Error())), err: err}
}

// mappedError is an error whose message has its positions rewritten.
type mappedError struct {
	msg string
	err error
}

func (e *mappedError) Error() string { return e.msg }

func (e *mappedError) Unwrap() error { return e.err }

// errAt is the position that starts a compile error's message.
var errAt = regexp.MustCompile(`^(.+?):(\d+):(\d+): `)

// nameCalls fills in the function that the interpreter leaves out of two
// of its messages when the callee is a method value or an expression:
// "not enough (too many) arguments in call to " and "assignment mismatch:
// 2 variables but  returns 1 values". It finds the call at the message's
// position in f, the input's syntax tree.
func (s *Session) nameCalls(err error, f *ast.File) error {
	msg := err.Error()
	first, rest, _ := strings.Cut(msg, "\n")
	tail := strings.HasSuffix(first, " call to ")
	mid := strings.Contains(first, " but  returns ")
	m := errAt.FindStringSubmatch(first)
	if (!tail && !mid) || m == nil || f == nil {
		return err
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	fset := s.in.FileSet()
	at := func(n ast.Node) bool {
		p := fset.Position(n.Pos())
		return p.Line == line && p.Column == col
	}
	var call *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if call != nil || n == nil {
			return false
		}
		var rhs []ast.Expr
		switch n := n.(type) {
		case *ast.CallExpr:
			if tail && at(n) {
				call = n
			}
		case *ast.AssignStmt:
			rhs = n.Rhs
		case *ast.ValueSpec:
			rhs = n.Values
		}
		if mid && len(rhs) == 1 && at(n) {
			call, _ = ast.Unparen(rhs[0]).(*ast.CallExpr)
		}
		return call == nil
	})
	if call == nil {
		return err
	}
	name := types.ExprString(call.Fun)
	if tail {
		first += name
	} else {
		first = strings.Replace(first, " but  returns ", " but "+name+" returns ", 1)
		first = strings.Replace(first, " returns 1 values", " returns 1 value", 1)
	}
	if rest != "" {
		first += "\n" + rest
	}
	return &mappedError{msg: first, err: err}
}
