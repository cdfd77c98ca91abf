package repl

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// The interpreter loses a method of a declared function type whose
// signature names the type itself (type Transform func(string) string;
// func (t Transform) Then(next Transform) Transform) when a later input
// calls it: t.Then(u) fails to compile ("undefined selector Then"),
// though Transform.Then(t, u) compiles and runs. funcTypeMethods
// rewrites the calls of the methods of the session's function types
// that way:
//
//	x.M(a)  →  T.M(x, a)      (a value receiver; T.M(*x, a) for x a *T)
//	x.M(a)  →  (*T).M(&x, a)  (a pointer receiver; (*T).M(x, a) for x a *T)
func (r *typedRewriter) funcTypeMethods(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		call, ok := c.Node().(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		s := r.info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal || len(s.Index()) != 1 {
			return true
		}
		m := s.Obj().(*types.Func)
		recv := m.Signature().Recv().Type()
		_, ptrRecv := recv.(*types.Pointer)
		if ptrRecv {
			recv = recv.(*types.Pointer).Elem()
		}
		n, ok := types.Unalias(recv).(*types.Named)
		if !ok || n.TypeParams().Len() > 0 || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
			return true
		}
		if _, isFunc := n.Underlying().(*types.Signature); !isFunc {
			return true
		}
		pos := sel.Pos()
		tx := r.typeExpr(n, pos)
		if tx == nil {
			return true
		}
		xPtr := isPointer(r.typeOf(sel.X))
		var fun ast.Expr
		recvArg := sel.X
		switch {
		case ptrRecv:
			fun = &ast.ParenExpr{Lparen: pos, X: &ast.StarExpr{Star: pos, X: tx}, Rparen: pos}
			if !xPtr {
				recvArg = &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: sel.X}
			}
		default:
			fun = tx
			if xPtr {
				recvArg = &ast.StarExpr{Star: pos, X: sel.X}
			}
		}
		call.Fun = &ast.SelectorExpr{X: fun, Sel: ident(sel.Sel.Name, sel.Sel.Pos())}
		call.Args = append([]ast.Expr{recvArg}, call.Args...)
		return true
	})
}
