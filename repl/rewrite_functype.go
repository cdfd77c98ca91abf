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

// The interpreter evaluates the receiver of a method value when the
// value is called, not when it is taken: after v := c.Value; c.Inc(),
// v() sees the incremented c, where Go's v keeps the copy of c it took.
// methodValues rewrites each method value x.M (a selector of a method
// that is not called there, and not promoted from an embedded field) as
//
//	func(r X) F { return r.M }(x)  (r := &x for a pointer method of an addressable x)
//
// so that the receiver is evaluated, and a value receiver copied, at
// once; for a compiled method, r.M there is func(a A) R { return r.M(a) }.
func (r *typedRewriter) methodValues(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		sel, ok := c.Node().(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if call, ok := c.Parent().(*ast.CallExpr); ok && c.Name() == "Fun" && call.Fun == sel {
			return true
		}
		s := r.info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal || len(s.Index()) != 1 {
			return true
		}
		if _, isPkg := r.info.Uses[identOf(sel.X)].(*types.PkgName); isPkg {
			return true
		}
		ft := r.typeOf(sel)
		xt := r.typeOf(sel.X)
		if ft == nil || xt == nil {
			return true
		}
		m := s.Obj().(*types.Func)
		compiled := m.Pkg() == nil || m.Pkg().Path() != "main"
		sig, _ := ft.(*types.Signature)
		if compiled && sig == nil {
			return true
		}
		recvArg := sel.X
		_, ptrRecv := m.Signature().Recv().Type().(*types.Pointer)
		switch {
		case ptrRecv && !isPointer(xt) && !isInterface(xt):
			xt = types.NewPointer(xt)
			recvArg = &ast.UnaryExpr{OpPos: sel.Pos(), Op: token.AND, X: sel.X}
		case !ptrRecv && !compiled && isPointer(xt):
			// p.M of a value method: the value *p is copied now.
			xt = xt.Underlying().(*types.Pointer).Elem()
			recvArg = &ast.StarExpr{Star: sel.Pos(), X: sel.X}
		}
		pos := sel.Pos()
		fx, xx := r.typeExpr(ft, pos), r.typeExpr(xt, pos)
		if fx == nil || xx == nil {
			return true
		}
		recv := r.temp("recv", pos)
		var val ast.Expr = &ast.SelectorExpr{X: ident(recv.Name, pos), Sel: ident(sel.Sel.Name, sel.Sel.Pos())}
		if compiled {
			// A compiled method's value fails to be stored in a variable
			// (reflect.Set: func(string) (int, error) is not assignable to
			// func(*strings.Builder, string) (int, error)): a literal that
			// calls the method instead.
			if val = r.callingLit(val, sig, pos); val == nil {
				return true
			}
		}
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos,
				Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{recv}, Type: xx}}},
				Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: fx}}}},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{val}}}},
		}
		c.Replace(&ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{recvArg}, Rparen: sel.End()})
		return true
	})
}

// identOf returns x if it is an identifier, else nil.
func identOf(x ast.Expr) *ast.Ident {
	id, _ := x.(*ast.Ident)
	return id
}

// callingLit returns func(a0 P0, a1 P1) R { return fn(a0, a1) } for a
// function fn of signature sig, or nil when a type cannot be written.
func (r *typedRewriter) callingLit(fn ast.Expr, sig *types.Signature, pos token.Pos) ast.Expr {
	params := &ast.FieldList{Opening: pos, Closing: pos}
	var args []ast.Expr
	for i := range sig.Params().Len() {
		t := sig.Params().At(i).Type()
		var tx ast.Expr
		if sig.Variadic() && i == sig.Params().Len()-1 {
			if el := r.typeExpr(t.(*types.Slice).Elem(), pos); el != nil {
				tx = &ast.Ellipsis{Ellipsis: pos, Elt: el}
			}
		} else {
			tx = r.typeExpr(t, pos)
		}
		if tx == nil {
			return nil
		}
		a := r.temp("a", pos)
		params.List = append(params.List, &ast.Field{Names: []*ast.Ident{a}, Type: tx})
		args = append(args, ident(a.Name, pos))
	}
	var results *ast.FieldList
	if sig.Results().Len() > 0 {
		results = &ast.FieldList{Opening: pos, Closing: pos}
		for i := range sig.Results().Len() {
			tx := r.typeExpr(sig.Results().At(i).Type(), pos)
			if tx == nil {
				return nil
			}
			results.List = append(results.List, &ast.Field{Type: tx})
		}
	}
	call := &ast.CallExpr{Fun: fn, Lparen: pos, Args: args, Rparen: pos}
	if sig.Variadic() {
		call.Ellipsis = pos
	}
	var st ast.Stmt = &ast.ExprStmt{X: call}
	if results != nil {
		st = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
	}
	return &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: params, Results: results},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{st}, Rbrace: pos}}
}
