package repl

import (
	"go/ast"
	"reflect"

	"golang.org/x/tools/go/ast/astutil"
)

// Calls of recover in inputs become _sn.Recovered(recover()). Recovered
// returns the panic value as panic was given it (the interpreter hands
// some values over wrapped in a reflect.Value, so that r.(error) would
// fail), and, when a panic was recovered, forgets the frames it unwound:
// they belong to no report, and would otherwise turn up in the report of
// the next panic that is not recovered.

// guardRecover rewrites the calls of the builtin recover in node. A
// recover that the input declares itself is left alone.
func guardRecover(node ast.Node) {
	if declaresName(node, "recover") {
		return
	}
	astutil.Apply(node, nil, func(c *astutil.Cursor) bool {
		if e, ok := c.Node().(ast.Expr); ok && isRecoverCall(e) {
			c.Replace(recovered(e.(*ast.CallExpr))) // not walked again
		}
		return true
	})
}

// isRecoverCall reports whether e is recover().
func isRecoverCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "recover"
}

// recovered wraps a call of recover: _sn.Recovered(recover()).
func recovered(call *ast.CallExpr) ast.Expr {
	pos := call.Pos()
	return &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Recovered", pos)},
		Lparen: pos, Args: []ast.Expr{call}, Rparen: call.End(),
	}
}

// declaresName reports whether node declares name anywhere: a function,
// a variable, a parameter.
func declaresName(node ast.Node, name string) bool {
	found := false
	ast.Inspect(node, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			if x.Recv == nil && x.Name.Name == name {
				found = true
			}
		case *ast.Field:
			for _, id := range x.Names {
				found = found || id.Name == name
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				found = found || id.Name == name
			}
		case *ast.AssignStmt:
			for _, e := range x.Lhs {
				if id, ok := e.(*ast.Ident); ok && id.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// recoveredValue is the runtime's Recovered.
func (s *Session) recoveredValue(v any) any {
	if v == nil {
		return nil
	}
	s.stderr.take()
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface()
	}
	if pn, ok := v.(panicNamed); ok {
		return pn.v
	}
	return s.namedPanic(v) // the runtime's errors as Go gives them
}
