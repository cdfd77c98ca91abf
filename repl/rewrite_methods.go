package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// The interpreter keeps the first declaration of a method, so at the
// prompt (and in a notebook, whose cells run again) a method could not be
// declared again. forwardMethods declares the methods of an interactive
// input's declarations through function variables:
//
//	func (t T) M(a A) R { body }
//
// becomes
//
//	var _sn_m<id>_M func(t T, a A) R
//	func init() { _sn_m<id>_M = func(t T, a A) R { body } }
//	func (t T) M(a A) R { return _sn_m<id>_M(t, a) }
//
// (id the type's), and a later declaration of M assigns the variable
// instead, in an init function of its input: every value of T, made
// before or after, then has the new method, as in a session of the Go
// playground run again. Left as they are: the methods of generic types,
// those of scripts (no later input replaces them), and those whose
// bodies call recover themselves (in the literal it would not be called
// by a deferred call).
func (r *typedRewriter) forwardMethods(f *ast.File) {
	interactive := r.s.scriptDefers == nil
	var decls []ast.Decl
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Body == nil {
			decls = append(decls, d)
			continue
		}
		m, _ := r.info.Defs[fd.Name].(*types.Func)
		if m == nil {
			decls = append(decls, d)
			continue
		}
		if v, ok := r.c.replaced[m]; ok {
			decls = append(decls, r.replaceMethod(fd, v))
			continue
		}
		id, ok := r.methodTypeID(m)
		if !ok || !interactive || callsRecover(fd.Body) {
			decls = append(decls, d)
			continue
		}
		v := methodVar(id, fd.Name.Name)
		lit := r.methodLit(fd)
		if lit == nil {
			decls = append(decls, d)
			continue
		}
		pos := fd.Pos()
		decls = append(decls, &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
			&ast.ValueSpec{Names: []*ast.Ident{ident(v, pos)}, Type: unnamed(lit.Type)}}})
		decls = append(decls, setMethod(v, lit, pos))
		fd.Body = forwardBody(fd, v)
		decls = append(decls, fd)
		r.c.forwarded[m] = true
	}
	f.Decls = decls
}

// methodVar is the name of the function variable of method name of the
// type whose entry is id.
func methodVar(id int, name string) string { return fmt.Sprintf("%s_m%d_%s", rtName, id, name) }

// methodTypeID returns the id of the entry of m's receiver type, a type
// of the session's not generic.
func (r *typedRewriter) methodTypeID(m *types.Func) (int, bool) {
	recv := m.Signature().Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	n, ok := types.Unalias(recv).(*types.Named)
	if !ok || n.TypeParams().Len() > 0 || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return 0, false
	}
	if id, ok := r.c.ids[n.Obj()]; ok {
		return id, true
	}
	for id, o := range r.c.prelude.objs {
		if o == n.Obj() {
			return id, true
		}
	}
	return 0, false
}

// replaceMethod returns the declaration that assigns the function
// variable v of a method declared again (setMethod).
func (r *typedRewriter) replaceMethod(fd *ast.FuncDecl, v string) ast.Decl {
	lit := r.methodLit(fd)
	if lit == nil {
		r.fail(fmt.Errorf("%s: the shell cannot declare the method %s again", r.s.in.FileSet().Position(fd.Pos()), fd.Name.Name))
		return fd
	}
	return setMethod(v, lit, fd.Pos())
}

// setMethod returns func init() { v = lit }: the interpreter refuses the
// assignment in a variable's initializer in a later input ("variable
// definition loop"), but runs the init functions of every input.
func setMethod(v string, lit *ast.FuncLit, pos token.Pos) ast.Decl {
	return &ast.FuncDecl{Name: ident("init", pos), Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{ident(v, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{lit}},
		}}}
}

// methodLit returns method fd as a function literal whose first
// parameter is the receiver, with fd's body, or nil.
func (r *typedRewriter) methodLit(fd *ast.FuncDecl) *ast.FuncLit {
	pos := fd.Pos()
	params := &ast.FieldList{Opening: pos, Closing: pos}
	recv := fd.Recv.List[0]
	rt := copyExpr(recv.Type)
	if rt == nil {
		return nil
	}
	recvName := ident("_", pos)
	if len(recv.Names) == 1 {
		recvName = ident(recv.Names[0].Name, recv.Names[0].Pos())
	}
	params.List = append(params.List, &ast.Field{Names: []*ast.Ident{recvName}, Type: rt})
	for _, p := range fd.Type.Params.List {
		t := copyExpr(p.Type)
		if t == nil {
			return nil
		}
		names := []*ast.Ident{ident("_", pos)}
		if len(p.Names) > 0 {
			names = nil
			for _, n := range p.Names {
				names = append(names, ident(n.Name, n.Pos()))
			}
		}
		params.List = append(params.List, &ast.Field{Names: names, Type: t})
	}
	var results *ast.FieldList
	if fd.Type.Results != nil {
		results = &ast.FieldList{Opening: pos, Closing: pos}
		for _, p := range fd.Type.Results.List {
			t := copyExpr(p.Type)
			if t == nil {
				return nil
			}
			var names []*ast.Ident
			for _, n := range p.Names {
				names = append(names, ident(n.Name, n.Pos()))
			}
			results.List = append(results.List, &ast.Field{Names: names, Type: t})
		}
	}
	return &ast.FuncLit{Type: &ast.FuncType{Func: fd.Type.Func, Params: params, Results: results}, Body: fd.Body}
}

// forwardBody names fd's receiver and parameters where they have no
// name (or _), and returns the body that calls the function variable v
// with them.
func forwardBody(fd *ast.FuncDecl, v string) *ast.BlockStmt {
	pos := fd.Body.Lbrace
	named := func(names []*ast.Ident, n int, prefix string) []*ast.Ident {
		if len(names) == 0 {
			names = make([]*ast.Ident, n)
		}
		for i, id := range names {
			if id == nil || id.Name == "_" {
				names[i] = ident(prefix+strconv.Itoa(i), pos)
			}
		}
		return names
	}
	recv := fd.Recv.List[0]
	recv.Names = named(recv.Names, 1, rtName+"_r")
	args := []ast.Expr{ident(recv.Names[0].Name, pos)}
	variadic := false
	for k, p := range fd.Type.Params.List {
		p.Names = named(p.Names, 1, fmt.Sprintf("%s_p%d_", rtName, k))
		for _, n := range p.Names {
			args = append(args, ident(n.Name, pos))
		}
		_, variadic = p.Type.(*ast.Ellipsis)
	}
	call := &ast.CallExpr{Fun: ident(v, pos), Lparen: pos, Args: args, Rparen: pos}
	if variadic {
		call.Ellipsis = pos
	}
	var st ast.Stmt = &ast.ExprStmt{X: call}
	if fd.Type.Results != nil && len(fd.Type.Results.List) > 0 {
		st = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
	}
	return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{st}, Rbrace: fd.Body.Rbrace}
}

// callsRecover reports whether body calls recover itself, not in a
// function literal.
func callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}

// markForwarded notes in the scope the methods that c's rewrite declared
// through function variables (its entries are made when c is checked,
// before the rewrite).
func (sc *scope) markForwarded(c *checked) {
	for m := range c.forwarded {
		recv := m.Signature().Recv().Type()
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		if n, ok := types.Unalias(recv).(*types.Named); ok {
			if e := sc.byID(sc.typeOf[n.Origin().Obj()]); e != nil {
				e.forwarded[m.Name()] = methodKey(m)
			}
		}
	}
}

// unnamed returns a copy of the function type t without the names of
// its parameters and results: the interpreter takes a name there that a
// variable of the session's has too ("t") for a use of that variable,
// and refuses the declaration ("variable definition loop").
func unnamed(t *ast.FuncType) *ast.FuncType {
	c := copyExpr(t).(*ast.FuncType)
	for _, fl := range []*ast.FieldList{c.Params, c.Results} {
		if fl == nil {
			continue
		}
		var list []*ast.Field
		for _, f := range fl.List {
			for range max(1, len(f.Names)) {
				list = append(list, &ast.Field{Type: copyExpr(f.Type)})
			}
		}
		fl.List = list
	}
	return c
}

// methodKey writes method m's receiver and signature, as in
// "func (*T) M(int) string", the session's types by their names.
func methodKey(m *types.Func) string {
	q := func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		return p.Path()
	}
	sig := m.Signature()
	unnamedVars := func(t *types.Tuple) *types.Tuple {
		vs := make([]*types.Var, t.Len())
		for i := range vs {
			vs[i] = types.NewParam(token.NoPos, nil, "", t.At(i).Type())
		}
		return types.NewTuple(vs...)
	}
	plain := types.NewSignatureType(nil, nil, nil, unnamedVars(sig.Params()), unnamedVars(sig.Results()), sig.Variadic())
	return "func (" + types.TypeString(sig.Recv().Type(), q) + ") " + m.Name() + strings.TrimPrefix(types.TypeString(plain, q), "func")
}
