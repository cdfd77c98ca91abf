package repl

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The interpreter panics on a comma-ok assertion to an interface type
// of an interface value that is nil (v, ok := err.(fmt.Stringer)), where
// Go gives the zero value and false; a type switch with an interface
// case (which typeSwitch makes such assertions) fails the same way.

// nilAssertions rewrites the comma-ok assertions x.(I) of the input, in
// assignments, definitions and var declarations, I an interface type,
// as calls that check for nil first (see safeAssert).
func (r *typedRewriter) nilAssertions(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				if call := r.commaOKAssert(n.Rhs[0]); call != nil {
					n.Rhs[0] = call
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				if call := r.commaOKAssert(n.Values[0]); call != nil {
					n.Values[0] = call
				}
			}
		}
		return true
	})
}

// commaOKAssert returns the nil-checking form of x when x is an
// assertion to an interface type, or nil.
func (r *typedRewriter) commaOKAssert(x ast.Expr) ast.Expr {
	ta, ok := ast.Unparen(x).(*ast.TypeAssertExpr)
	if !ok || ta.Type == nil {
		return nil
	}
	tv, ok := r.info.Types[ta.Type]
	if !ok || !tv.IsType() {
		return nil
	}
	return r.safeAssert(ta.X, r.typeOf(ta.X), tv.Type, ta.Pos())
}

// safeAssert returns, for x of interface type xt and an interface type
// it,
//
//	func(t X) (I, bool) {
//		if t == nil { var z I; return z, false }
//		v, ok := t.(I)
//		return v, ok
//	}(x)
//
// or nil when it is not an interface type or a type cannot be written.
func (r *typedRewriter) safeAssert(x ast.Expr, xt, it types.Type, pos token.Pos) ast.Expr {
	if xt == nil || it == nil {
		return nil
	}
	if _, isParam := types.Unalias(it).(*types.TypeParam); isParam {
		return nil
	}
	if _, isIface := it.Underlying().(*types.Interface); !isIface {
		return nil
	}
	xe, ie := r.typeExpr(xt, pos), r.typeExpr(it, pos)
	if xe == nil || ie == nil {
		return nil
	}
	t, z, v, ok := r.temp("t", pos), r.temp("z", pos), r.temp("v", pos), r.temp("ok", pos)
	ret := func(a, b ast.Expr) ast.Stmt {
		return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{a, b}}
	}
	body := &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
		&ast.IfStmt{If: pos,
			Cond: &ast.BinaryExpr{X: ident(t.Name, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
				varDecl(z, r.typeExpr(it, pos)),
				ret(ident(z.Name, pos), ident("false", pos)),
			}},
		},
		&ast.AssignStmt{Lhs: []ast.Expr{v, ok}, TokPos: pos, Tok: token.DEFINE,
			Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(t.Name, pos), Lparen: pos, Type: ie, Rparen: pos}}},
		ret(ident(v.Name, pos), ident(ok.Name, pos)),
	}}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{t}, Type: xe}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{
				{Type: r.typeExpr(it, pos)}, {Type: ident("bool", pos)},
			}}},
		Body: body,
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}
