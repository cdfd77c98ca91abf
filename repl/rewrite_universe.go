package repl

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A variable or constant may take the name of a predeclared one: nil
// := 5, iota := 4, any := false, len := 0. The interpreter got two of
// these wrong itself (nil printed <nil>, iota 0), and the rewrites write
// code that names predeclared identifiers (nil, any, len, true, error,
// ...): in the scope of such a variable that code meant the variable,
// which failed to compile or ran wrong. The shell gives the interpreter
// these variables and constants under names of their own (universeName:
// _snu_len), in every input: a session's variable named len is _snu_len
// to the interpreter in each input that uses it. Struct fields, types,
// functions and labels keep their names.

// universeName is the interpreter's name of a variable or constant
// named like a predeclared identifier.
func universeName(name string) string { return "_snu_" + name }

// shadowsUniverse reports whether obj is a variable or constant (not a
// field) of the program's whose name is a predeclared identifier's.
func shadowsUniverse(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Var:
		if o.IsField() {
			return false
		}
	case *types.Const:
	default:
		return false
	}
	return obj.Parent() != types.Universe && types.Universe.Lookup(obj.Name()) != nil
}

// universeVars renames the variables and constants of f that shadow a
// predeclared identifier (see universeName). It runs before the other
// rewrites, so that the code they write sees the predeclared ones.
func (r *typedRewriter) universeVars(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		obj := r.info.Defs[id]
		if obj == nil {
			obj = r.info.Uses[id]
		}
		if obj != nil && shadowsUniverse(obj) {
			id.Name = universeName(id.Name)
		}
		return true
	})
}

// universeIdents renames in x, an expression typed by the user outside
// any input (:vars, completion), the session's variables and constants
// that shadow a predeclared identifier, as universeVars renames them in
// inputs.
func (s *Session) universeIdents(x ast.Expr) {
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(m ast.Node) bool { return s.universeIdent(m) })
			return false
		default:
			return s.universeIdent(n)
		}
	})
}

func (s *Session) universeIdent(n ast.Node) bool {
	id, ok := n.(*ast.Ident)
	if !ok {
		return true
	}
	if types.Universe.Lookup(id.Name) != nil && (s.declared(id.Name, "var") || s.declared(id.Name, "const")) {
		id.Name = universeName(id.Name)
	}
	return true
}

// nilSpreads drops a nil passed as a variadic parameter's slice:
//
//	f(1, nil...)  →  f(1)
//
// which Go runs alike (the parameter is a nil slice either way), and
// which the interpreter compiles (f(nil...) failed with a CFG panic).
func (r *typedRewriter) nilSpreads(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !call.Ellipsis.IsValid() || len(call.Args) == 0 {
			return true
		}
		id, ok := ast.Unparen(call.Args[len(call.Args)-1]).(*ast.Ident)
		if !ok {
			return true
		}
		if _, isNil := r.info.Uses[id].(*types.Nil); isNil {
			call.Args = call.Args[:len(call.Args)-1]
			call.Ellipsis = token.NoPos
		}
		return true
	})
}

// genericAliases spells out the instances of generic type aliases (Go
// 1.24), which the interpreter does not know, and leaves their
// declarations to the checker:
//
//	type Set[T comparable] = map[T]struct{}
//	s := Set[string]{}  →  s := map[string]struct{}{}
//
// and Set[T] in a generic function's signature becomes map[T]struct{}.
func (r *typedRewriter) genericAliases(f *ast.File) {
	generic := func(x ast.Expr) bool {
		var id *ast.Ident
		switch x := ast.Unparen(x).(type) {
		case *ast.Ident:
			id = x
		case *ast.SelectorExpr:
			id = x.Sel
		default:
			return false
		}
		tn, ok := r.info.Uses[id].(*types.TypeName)
		if !ok {
			return false
		}
		a, ok := tn.Type().(*types.Alias)
		return ok && a.TypeParams().Len() > 0
	}
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.IndexExpr, *ast.IndexListExpr:
			var x ast.Expr
			if ix, ok := n.(*ast.IndexExpr); ok {
				x = ix.X
			} else {
				x = n.(*ast.IndexListExpr).X
			}
			tv, ok := r.info.Types[n.(ast.Expr)]
			if !ok || !tv.IsType() || !generic(x) {
				return true
			}
			if tx := r.typeExpr(tv.Type, n.Pos()); tx != nil {
				c.Replace(tx)
			}
		case *ast.GenDecl:
			if n.Tok != token.TYPE {
				return true
			}
			specs := n.Specs[:0]
			for _, sp := range n.Specs {
				ts := sp.(*ast.TypeSpec)
				if ts.Assign.IsValid() && ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
					continue
				}
				specs = append(specs, sp)
			}
			n.Specs = specs
		}
		return true
	})
	// Declarations left without specs.
	decls := f.Decls[:0]
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE && len(gd.Specs) == 0 {
			continue
		}
		decls = append(decls, d)
	}
	f.Decls = decls
}

// namedConsts writes each use of a constant that the program declared
// with a named type as its value converted to the type:
//
//	type Kind int
//	const (Deposit Kind = iota + 1; Withdrawal)
//	k == Withdrawal  →  k == Kind(2)
//
// The interpreter kept the value of such a constant whose declaration is
// an expression (iota + 1, 1 << iota, "r" + "ed") so that == and != with
// it were false (k == Withdrawal, Deposit == 1), and a map index or a
// case of a switch on an interface value with it panicked ("value of
// type constant.Value is not assignable to type int"), where a
// conversion of the literal runs as Go.
func (r *typedRewriter) namedConsts(f *ast.File) {
	// Where a constant expression must stand, the interpreter did not
	// take the conversion for one: array literals' indexes, array
	// lengths, constant declarations.
	kept := map[*ast.Ident]bool{}
	keep := func(x ast.Node) {
		ast.Inspect(x, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				kept[id] = true
			}
			return true
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if t := r.typeOf(n); t != nil {
				switch t.Underlying().(type) {
				case *types.Array, *types.Slice:
					for _, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							keep(kv.Key)
						}
					}
				}
			}
		case *ast.ArrayType:
			if n.Len != nil {
				keep(n.Len)
			}
		case *ast.GenDecl:
			if n.Tok == token.CONST {
				keep(n)
			}
		}
		return true
	})
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		id, ok := c.Node().(*ast.Ident)
		if !ok || kept[id] {
			return true
		}
		if sel, ok := c.Parent().(*ast.SelectorExpr); ok && sel.Sel == id {
			return true
		}
		k, ok := r.info.Uses[id].(*types.Const)
		if !ok || k.Pkg() == nil || k.Pkg().Path() != "main" {
			return true
		}
		if _, named := types.Unalias(k.Type()).(*types.Named); !named {
			return true
		}
		tv, ok := r.info.Types[id]
		if !ok || tv.Value == nil {
			return true
		}
		t := r.typeExpr(tv.Type, id.Pos())
		if t == nil {
			return true
		}
		w := &typeWriter{pos: id.Pos()}
		x := &ast.CallExpr{Fun: t, Lparen: id.Pos(), Args: []ast.Expr{w.constExpr(tv.Value, tv.Type)}, Rparen: id.End()}
		r.info.Types[x] = tv
		c.Replace(x)
		return true
	})
}

// goCalls rewrites the go statements that the runtime's Go, which calls
// a function value through reflection with arguments of type any, ran
// wrong: a method call, whose method value the interpreter bound to the
// receiver's variable (go j.run() in a loop ran the last j's run every
// time), and a call with arguments of an interface type of the
// program's, which reached the function as their dynamic values
// ("reflect: Call using struct { S float64 } as type
// interp.valueInterface"):
//
//	go j.run(st, Sq{3})
//
// becomes
//
//	go func(r job, p0 Store, p1 *Shape) { r.run(p0, *p1) }(j, st, &[]Shape{Sq{3}}[0])
//
// which the runtime's Go then runs: the receiver, function and arguments
// are evaluated where the statement runs, as Go evaluates them, the
// receiver passed as the method value would hold it (&j for a pointer
// receiver of an addressable j), an interface value of the program's
// behind a pointer.
func (r *typedRewriter) goCalls(f *ast.File) {
	ownIface := ownInterface
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		g, ok := c.Node().(*ast.GoStmt)
		if !ok {
			return true
		}
		sig, ok := r.typeOf(g.Call.Fun).(*types.Signature)
		if !ok || sig.TypeParams().Len() > 0 {
			return true
		}
		pos := g.Go
		var params []*ast.Field
		var args []ast.Expr // the literal's
		var fun ast.Expr    // what it calls
		var pass []ast.Expr // what the statement passes it
		param := func(name string, t ast.Expr) *ast.Ident {
			p := r.temp(name, pos)
			params = append(params, &ast.Field{Names: []*ast.Ident{p}, Type: t})
			return ident(p.Name, pos)
		}
		method := false
		if sel, ok := ast.Unparen(g.Call.Fun).(*ast.SelectorExpr); ok {
			if s, ok := r.info.Selections[sel]; ok && s.Kind() == types.MethodVal {
				method = true
				recv, x := s.Recv(), sel.X
				if m, ok := s.Obj().(*types.Func); ok && !isInterface(recv) {
					if _, ptrRecv := m.Signature().Recv().Type().(*types.Pointer); ptrRecv {
						if _, isPtr := recv.Underlying().(*types.Pointer); !isPtr {
							recv, x = types.NewPointer(recv), &ast.UnaryExpr{OpPos: x.Pos(), Op: token.AND, X: x}
						}
					}
				}
				if ownIface(recv) {
					return true
				}
				rt := r.typeExpr(recv, pos)
				if rt == nil {
					return true
				}
				fun = &ast.SelectorExpr{X: param("r", rt), Sel: ident(sel.Sel.Name, pos)}
				pass = append(pass, x)
			}
		}
		own := false
		for i := range sig.Params().Len() {
			t := sig.Params().At(i).Type()
			if s, ok := t.(*types.Slice); ok && sig.Variadic() && i == sig.Params().Len()-1 && !g.Call.Ellipsis.IsValid() {
				t = s.Elem()
			}
			own = own || ownIface(t)
		}
		if !method && !own {
			return true
		}
		if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
			// go func(x Shape) {...}(s): the literal takes a *Shape
			// (a function value passed to the runtime's Go as an
			// argument would be called as a compiled one).
			r.goLitPointers(g, lit, sig, ownIface)
			return true
		}
		if !method {
			ft := r.typeExpr(sig, pos)
			if ft == nil {
				return true
			}
			fun = param("f", ft)
			pass = append(pass, g.Call.Fun)
		}
		for i, a := range g.Call.Args {
			var t types.Type
			switch n := sig.Params().Len(); {
			case sig.Variadic() && i >= n-1 && !g.Call.Ellipsis.IsValid():
				t = sig.Params().At(n - 1).Type().(*types.Slice).Elem()
			case i < n:
				t = sig.Params().At(i).Type()
			default:
				return true
			}
			tx := r.typeExpr(t, pos)
			if tx == nil {
				return true
			}
			if ownIface(t) {
				// *p of &[]T{a}[0].
				a = boxed(a, copyExpr(tx), pos)
				args = append(args, &ast.StarExpr{Star: pos, X: param("p", &ast.StarExpr{Star: pos, X: tx})})
			} else {
				args = append(args, param("p", tx))
			}
			pass = append(pass, a)
		}
		call := &ast.CallExpr{Fun: fun, Lparen: pos, Args: args, Ellipsis: g.Call.Ellipsis, Rparen: pos}
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, List: params, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: call}}, Rbrace: pos},
		}
		g.Call = &ast.CallExpr{Fun: lit, Lparen: pos, Args: pass, Rparen: g.Call.Rparen}
		return true
	})
}

// goLitPointers rewrites go func(x Shape, n int) {...}(s, 1), whose
// parameters of an interface type of the program's ownIface tells, as
//
//	go func(p *Shape, n int) { x := *p; ... }(&[]Shape{s}[0], 1)
func (r *typedRewriter) goLitPointers(g *ast.GoStmt, lit *ast.FuncLit, sig *types.Signature, ownIface func(types.Type) bool) {
	if sig.Variadic() || len(g.Call.Args) != sig.Params().Len() {
		return
	}
	pos := g.Go
	var pre []ast.Stmt
	i := 0
	for _, field := range lit.Type.Params.List {
		names := field.Names
		if len(names) == 0 {
			names = []*ast.Ident{nil}
		}
		t := sig.Params().At(i).Type()
		tx := r.typeExpr(t, pos)
		if !ownIface(t) || tx == nil {
			i += len(names)
			continue
		}
		field.Type = &ast.StarExpr{Star: pos, X: tx}
		for j, n := range names {
			g.Call.Args[i+j] = boxed(g.Call.Args[i+j], copyExpr(tx), pos)
			p := r.temp("p", pos)
			if n != nil && n.Name != "_" {
				pre = append(pre, &ast.AssignStmt{Lhs: []ast.Expr{n}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.StarExpr{Star: pos, X: ident(p.Name, pos)}}})
			}
			if n != nil {
				names[j] = p
			}
		}
		if field.Names != nil {
			field.Names = names
		}
		i += len(names)
	}
	lit.Body.List = append(pre, lit.Body.List...)
}

// ownInterface reports whether t is an interface type of the program's,
// whose values the interpreter keeps in a form of its own (not a type
// parameter, nor an interface of a compiled package).
func ownInterface(t types.Type) bool {
	return isInterface(t) && !isTypeParam(t) && (refersToMain(t) || methodInterface(t) && !wrappedInterface(t))
}

// boxed is a pointer to a new variable of type t (an expression) that
// holds x: &[]t{x}[0].
func boxed(x, t ast.Expr, pos token.Pos) ast.Expr {
	lit := &ast.CompositeLit{Type: &ast.ArrayType{Lbrack: pos, Elt: t}, Lbrace: x.Pos(), Elts: []ast.Expr{x}, Rbrace: x.End()}
	return &ast.UnaryExpr{OpPos: x.Pos(), Op: token.AND, X: &ast.IndexExpr{X: lit, Lbrack: pos, Index: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}, Rbrack: pos}}
}

// hasMultiInstance reports whether x holds, outside function literals,
// a call of a generic function with two or more type arguments.
func hasMultiInstance(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.CompositeLit:
			return false // their own elements are seen to as elements
		case *ast.CallExpr:
			if _, multi := ast.Unparen(n.Fun).(*ast.IndexListExpr); multi {
				found = true
			}
		}
		return !found
	})
	return found
}

// positionalCalls puts an element of a composite literal without keys
// that calls a generic function with two or more type arguments into a
// function literal of its own:
//
//	Stat{slices.Max[[]int, int](xs), n}  →  Stat{func() int { return slices.Max[[]int, int](xs) }(), n}
//
// The interpreter took the instantiation there for a type ("not a
// generic type: func(S) E"); with keys, or one type argument, it did
// not.
func (r *typedRewriter) positionalCalls(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		for i, e := range lit.Elts {
			if _, keyed := e.(*ast.KeyValueExpr); keyed || !hasMultiInstance(e) {
				continue
			}
			call := e
			t := r.typeOf(call)
			if t == nil {
				continue
			}
			if _, isTuple := t.(*types.Tuple); isTuple {
				continue
			}
			tx := r.typeExpr(t, call.Pos())
			if tx == nil {
				continue
			}
			pos := call.Pos()
			fl := &ast.FuncLit{
				Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
					Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: tx}}}},
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}}},
			}
			lit.Elts[i] = &ast.CallExpr{Fun: fl, Lparen: pos, Rparen: call.End()}
		}
		return true
	})
}

// ifaceSwitchCases makes each case of a switch on an interface value
// that is not itself of an interface type an interface value:
//
//	var x any = Kind(2); switch x { case Kind(2): ... }  →  case func(v Kind) any { return v }(Kind(2)):
//
// The interpreter converted the switch's value to the case's type
// instead, which panicked for a declared type with a basic underlying
// type ("reflect.Value.Convert: value of type interface {} cannot be
// converted to type int"); Go compares the interface values.
func (r *typedRewriter) ifaceSwitchCases(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok || sw.Tag == nil {
			return true
		}
		tagType := r.typeOf(sw.Tag)
		if tagType == nil || !isInterface(tagType) || isTypeParam(tagType) {
			return true
		}
		for _, st := range sw.Body.List {
			cc, ok := st.(*ast.CaseClause)
			if !ok {
				continue
			}
			for i, e := range cc.List {
				t := r.typeOf(e)
				if t == nil || isInterface(t) || isTypeParam(t) {
					continue
				}
				n, ok := types.Unalias(t).(*types.Named)
				if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
					continue
				}
				if _, basic := n.Underlying().(*types.Basic); !basic {
					continue
				}
				// func(v Kind) any { return v }(e), as conversions
				// writes any(e).
				if lit := r.convertLit(e, t, tagType, e.Pos(), e.End()); lit != nil {
					cc.List[i] = lit
				}
			}
		}
		return true
	})
}
