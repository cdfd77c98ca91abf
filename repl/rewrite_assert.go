package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"iter"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// The interpreter panics on a comma-ok assertion to an interface type
// of an interface value that is nil (v, ok := err.(fmt.Stringer)), where
// Go gives the zero value and false; a type switch with an interface
// case (which typeSwitch makes such assertions) fails the same way.

// nilAssertions rewrites the comma-ok assertions x.(I) of the input, in
// assignments, definitions and var declarations, I an interface type,
// as calls that check for nil first (see safeAssert), and the
// assertions of one value to compiled interfaces (see sessionAssert).
func (r *typedRewriter) nilAssertions(f *ast.File) {
	commaOK := map[ast.Expr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				commaOK[ast.Unparen(n.Rhs[0])] = true
				if call := r.commaOKAssert(n.Rhs[0]); call != nil {
					n.Rhs[0] = call
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				commaOK[ast.Unparen(n.Values[0])] = true
				if call := r.commaOKAssert(n.Values[0]); call != nil {
					n.Values[0] = call
				}
			}
		}
		return true
	})
	// The assertions of one value: to interfaces (ifaceAssertOne); to the
	// session's types, outside loops, where the function literal that
	// names the types when one fails costs little (inside a loop it made
	// a successful x.(T) 14 times as slow; concreteAssertOne); to
	// compiled interfaces (sessionAssert).
	applyInLoops(f, func(c *astutil.Cursor, loops int) {
		if ta, ok := c.Node().(*ast.TypeAssertExpr); ok && !commaOK[ta] {
			if call := r.ifaceAssertOne(ta); call != nil {
				c.Replace(call)
			} else if call := r.concreteAssertOneAt(ta, loops); call != nil {
				c.Replace(call)
			} else if call := r.sessionAssert(ta); call != nil {
				c.Replace(call)
			} else if call := r.anyAssertOne(ta); call != nil {
				c.Replace(call)
			}
		}
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
	if call := r.anyAssert(ta.X, r.typeOf(ta.X), tv.Type, ta.Pos()); call != nil {
		return call
	}
	return r.safeAssert(ta.X, r.typeOf(ta.X), tv.Type, ta.Pos())
}

// An any that holds an error value of one of the session's types holds
// the interpreter's wrapper of it (see rewrapped), which the
// interpreter's assertion of an any to a type does not look into:
// any(err).(NotFound) is false, and %T names the wrapper. anyAssert
// returns, for x of an interface type without methods (xt) and a type
// of the session's that implements error (ct),
//
//	func(v X) (T, bool) {
//		var z T
//		if v == nil { return z, false }
//		if w, ok := v.(T); ok { return w, true }
//		if e, ok := v.(error); ok { w, ok := e.(T); return w, ok }
//		return z, false
//	}(x)
//
// and nil for other types.
func (r *typedRewriter) anyAssert(x ast.Expr, xt, ct types.Type, pos token.Pos) ast.Expr {
	if !r.wrappedError(xt, ct) {
		return nil
	}
	xe, ce := r.typeExpr(xt, pos), r.typeExpr(ct, pos)
	if xe == nil || ce == nil {
		return nil
	}
	v, w, e, z := r.temp("v", pos), r.temp("w", pos), r.temp("e", pos), r.temp("z", pos)
	okID := func() *ast.Ident { return ident("ok", pos) }
	assert := func(x string, t ast.Expr) ast.Expr {
		return &ast.TypeAssertExpr{X: ident(x, pos), Lparen: pos, Type: t, Rparen: pos}
	}
	ret := func(a, b ast.Expr) ast.Stmt { return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{a, b}} }
	body := []ast.Stmt{
		varDecl(z, r.typeExpr(ct, pos)),
		// (The interpreter panics on v.(error) of a nil v.)
		&ast.IfStmt{If: pos,
			Cond: &ast.BinaryExpr{X: ident(v.Name, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{ret(ident(z.Name, pos), ident("false", pos))}}},
		&ast.IfStmt{If: pos,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{w, okID()}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{assert(v.Name, ce)}},
			Cond: okID(),
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{ret(ident(w.Name, pos), ident("true", pos))}}},
		&ast.IfStmt{If: pos,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{e, okID()}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{assert(v.Name, ident("error", pos))}},
			Cond: okID(),
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
				&ast.AssignStmt{Lhs: []ast.Expr{ident(w.Name, pos), okID()}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{assert(e.Name, r.typeExpr(ct, pos))}},
				ret(ident(w.Name, pos), okID())}}},
		ret(ident(z.Name, pos), ident("false", pos)),
	}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{v}, Type: xe}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: r.typeExpr(ct, pos)}, {Type: ident("bool", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: body, Rbrace: pos},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}

// wrappedError reports whether an assertion of a value of type xt to
// ct is one that anyAssert rewrites: xt an interface without methods,
// ct one of the session's types (or a pointer to one) that implements
// error.
func (r *typedRewriter) wrappedError(xt, ct types.Type) bool {
	if xt == nil || ct == nil || isInterface(ct) {
		return false
	}
	it, ok := xt.Underlying().(*types.Interface)
	if !ok || it.NumMethods() > 0 {
		return false
	}
	if _, isParam := types.Unalias(xt).(*types.TypeParam); isParam {
		return false
	}
	base := ct
	if p, ok := base.(*types.Pointer); ok {
		base = p.Elem()
	}
	n, ok := types.Unalias(base).(*types.Named)
	if !ok || n.TypeParams().Len() > 0 || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return false
	}
	return types.AssignableTo(ct, types.Universe.Lookup("error").Type())
}

// safeAssert returns, for x of interface type xt and an interface type
// it,
//
//	func(t X) (I, bool) {
//		if t == nil { var z I; return z, false }
//		<sessionAssertions>
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
	}}
	body.List = append(body.List, r.sessionAssertions(t.Name, xt, it, pos, func(x ast.Expr) ast.Stmt {
		return ret(x, ident("true", pos))
	})...)
	body.List = append(body.List, r.sessionMisses(t.Name, xt, it, pos, func() ast.Stmt {
		return &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			varDecl(z, r.typeExpr(it, pos)),
			ret(ident(z.Name, pos), ident("false", pos)),
		}}
	})...)
	body.List = append(body.List,
		&ast.AssignStmt{Lhs: []ast.Expr{v, ok}, TokPos: pos, Tok: token.DEFINE,
			Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(t.Name, pos), Lparen: pos, Type: ie, Rparen: pos}}},
		ret(ident(v.Name, pos), ident(ok.Name, pos)))
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

// The interpreter does not see the methods of the session's types in a
// value of a compiled interface type that holds one (the wrapper it
// makes, see rewrapped, has only that interface's methods), nor in an
// any that holds one, when it asserts the value to an interface with
// methods: fmt.Stringer(v).(error) and any(v).(fmt.Stringer) fail, and so
// does any(v).(Animal) for an interface Animal that the session declared
// (a type switch's case Animal matched nothing). For an interface type I
// with methods and x of interface type X, sessionAssertions returns the
// statements that try the session's types that X can hold and that
// implement I, one by one:
//
//	if w, ok := t.(T); ok { <done with w converted to I> }
//
// (t the name of x's value), none for other types.
func (r *typedRewriter) sessionAssertions(t string, xt, it types.Type, pos token.Pos, done func(ast.Expr) ast.Stmt) (out []ast.Stmt) {
	if !methodInterface(it) || !isInterface(xt) {
		return nil
	}
	if _, isParam := types.Unalias(xt).(*types.TypeParam); isParam {
		return nil
	}
	cands := r.telling(r.sessionTypes(pos), xt)
	if !wrappedInterface(it) {
		cands = distinctStructs(cands)
	}
	for ct, cx := range r.typesAndPointers(cands, pos) {
		if !types.AssignableTo(ct, xt) || !types.AssignableTo(ct, it) {
			continue
		}
		if m := r.methodBelow(ct, it, pos); m != nil {
			// The interpreter would compile the conversion before the
			// method: it refuses it, and its own assertion fails.
			r.fail(posErrorf(r.s.in.FileSet(), pos, "%s is asserted to %s here, before the method %s of %s further down is compiled; "+
				"declare the methods of %s above the functions that use it as %s",
				r.typeString(xt), r.typeString(it), m.Name(), r.typeString(ct), r.typeString(ct), r.typeString(it)))
			continue
		}
		var asserted ast.Expr = ident(t, pos)
		if promotedFromInterface(ct, xt) {
			asserted = &ast.CallExpr{Fun: ident("any", pos), Lparen: pos, Args: []ast.Expr{asserted}, Rparen: pos}
		}
		w := r.temp("w", pos)
		conv := r.convertLit(ident(w.Name, pos), ct, it, pos, pos)
		if conv == nil {
			continue
		}
		out = append(out, &ast.IfStmt{If: pos,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
				Rhs: []ast.Expr{&ast.TypeAssertExpr{X: asserted, Lparen: pos, Type: cx, Rparen: pos}}},
			Cond: ident("ok", pos),
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{done(conv)}},
		})
	}
	// The instances of the session's generic types that the input
	// names or earlier ones used (Box[int]), whose methods the
	// interpreter's assertion to an interface does not see either
	// (any(Box[int]{3}).(fmt.Stringer) was false): by their type
	// expressions, as dynamicTypedOr tells them.
	if !r.inGeneric(&ast.Ident{NamePos: pos}) {
		for _, in := range r.instanceTypes(pos) {
			if !types.AssignableTo(in.t, xt) || !types.AssignableTo(in.t, it) {
				continue
			}
			w := r.temp("w", pos)
			conv := r.convertLit(ident(w.Name, pos), in.t, it, pos, pos)
			if conv == nil {
				continue
			}
			out = append(out, &ast.IfStmt{If: pos,
				Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
					Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(t, pos), Lparen: pos, Type: in.x, Rparen: pos}}},
				Cond: ident("ok", pos),
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{done(conv)}},
			})
		}
	}
	// In a function, which may run after later inputs declare types
	// or methods that implement a compiled interface (error,
	// fmt.Stringer), the runtime's LaterAs asks their converters:
	//
	//	if w, ok := _sn.LaterAs(any(t), "fmt.Stringer", seq); ok { <done with w.(fmt.Stringer)> }
	//
	// (for the types given methods after this segment, seq: the
	// interpreter's own assertion of the others gives the values that
	// the rest of the session expects).
	if key := r.laterKeyOf(it); key != "" && r.inFunctionPos(pos) {
		if ie := r.typeExpr(it, pos); ie != nil {
			w := r.temp("w", pos)
			call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("LaterAs", pos)}, Lparen: pos, Rparen: pos,
				Args: []ast.Expr{&ast.CallExpr{Fun: ident("any", pos), Lparen: pos, Args: []ast.Expr{ident(t, pos)}, Rparen: pos}, stringLit(key, pos),
					&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(r.seq)}}}
			defer func() {
				out = append(out, &ast.IfStmt{If: pos,
					Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{call}},
					Cond: ident("ok", pos),
					Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
						done(&ast.TypeAssertExpr{X: ident(w.Name, pos), Lparen: pos, Type: ie, Rparen: pos})}},
				})
			}()
		}
	}
	// The declared types that are not structs and that assertions cannot
	// tell (type Cube float64), whose values an interface holds as the
	// interpreter's pair of the value and its type's node: the node
	// names the type (PairType). The interpreter's own assertion of
	// such a pair to I panicked ("reflect.Set: value of type interface
	// {} is not assignable to type interp.valueInterface").
	//
	//	if _sn.PairType(t) == "main.Cube" { if w, ok := t.(Cube); ok { <done> } }
	for _, tn := range r.sessionTypes(pos) {
		ct := tn.Type()
		if _, isStruct := ct.Underlying().(*types.Struct); isStruct || slices.Contains(cands, tn) ||
			!types.AssignableTo(ct, xt) || !types.AssignableTo(ct, it) || r.methodBelow(ct, it, pos) != nil {
			continue
		}
		w := r.temp("w", pos)
		conv := r.convertLit(ident(w.Name, pos), ct, it, pos, pos)
		if conv == nil {
			continue
		}
		pair := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("PairType", pos)}, Lparen: pos,
			Args: []ast.Expr{ident(t, pos)}, Rparen: pos}
		out = append(out, &ast.IfStmt{If: pos,
			Cond: &ast.BinaryExpr{X: pair, OpPos: pos, Op: token.EQL, Y: stringLit("main."+tn.Name(), pos)},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.IfStmt{If: pos,
				Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
					Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(t, pos), Lparen: pos, Type: ident(r.c.typeNameIn(tn), pos), Rparen: pos}}},
				Cond: ident("ok", pos),
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{done(conv)}},
			}}},
		})
	}
	return out
}

// laterKeyOf is laterKey, or for an interface type of the session's
// (not generic) "main." and its name in the interpreter: laterAs makes
// converters to those too.
func (r *typedRewriter) laterKeyOf(it types.Type) string {
	if key := laterKey(it); key != "" {
		return key
	}
	if n, ok := types.Unalias(it).(*types.Named); ok && isSession(n.Obj()) && n.TypeParams().Len() == 0 && isInterface(n) {
		if name := r.c.typeNameIn(n.Obj()); name != "" {
			return "main." + name
		}
	}
	return ""
}

// laterKey returns the name by which the runtime's LaterAs knows the
// compiled interface it (one of laterInterfaces), or "".
func laterKey(it types.Type) string {
	if types.Identical(it, types.Universe.Lookup("error").Type()) {
		return "error"
	}
	if !wrappedInterface(it) {
		return ""
	}
	n, _ := types.Unalias(it).(*types.Named)
	for _, li := range laterInterfaces {
		if n != nil && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == li.path && n.Obj().Name() == li.name {
			return li.key
		}
	}
	return ""
}

// methodBelow returns the first method of ct that the interface it asks
// for and that is declared further down the input than pos, in a chunk
// compiled after pos's (see compiledWith), or nil. In an input without a
// package clause the types come first, and a function between a type and
// its methods cannot convert the type's values to it.
func (r *typedRewriter) methodBelow(ct, it types.Type, pos token.Pos) *types.Func {
	iface, ok := it.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	for i := range iface.NumMethods() {
		m := iface.Method(i)
		obj, _, _ := types.LookupFieldOrMethod(ct, true, m.Pkg(), m.Name())
		f, ok := obj.(*types.Func)
		if !ok || !f.Pos().IsValid() || f.Pos() < pos || r.compiledWith(f.Pos(), pos) {
			continue
		}
		if r.fileIndex(f.Pos()) >= 0 {
			return f
		}
	}
	return nil
}

// sessionMisses returns, for an interface I that the session declared
// (see sessionAssertions) and x of interface type X, the statements that
// try the session's types that X can hold and that do not implement I,
// one by one:
//
//	if _, ok := t.(T); ok { <miss> }
//
// The interpreter's own assertion of such a value (a struct whose
// pointer has I's methods) to I panicked inside a function ("reflect.Set:
// value of type interface {} is not assignable to type
// interp.valueInterface").
func (r *typedRewriter) sessionMisses(t string, xt, it types.Type, pos token.Pos, miss func() ast.Stmt) []ast.Stmt {
	if !methodInterface(it) || wrappedInterface(it) || !isInterface(xt) {
		return nil
	}
	if _, isParam := types.Unalias(xt).(*types.TypeParam); isParam {
		return nil
	}
	var out []ast.Stmt
	for ct, cx := range r.typesAndPointers(distinctStructs(r.telling(r.sessionTypes(pos), xt)), pos) {
		if !types.AssignableTo(ct, xt) || types.AssignableTo(ct, it) {
			continue
		}
		out = append(out, &ast.IfStmt{If: pos,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{ident("_", pos), ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
				Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(t, pos), Lparen: pos, Type: cx, Rparen: pos}}},
			Cond: ident("ok", pos),
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{miss()}},
		})
	}
	return out
}

// sessionAssert returns, for an assertion x.(I) of one value (not
// comma-ok), x of interface type X and I an interface type with methods
// that some of the session's types implement,
//
//	func(t X) I {
//		<sessionAssertions>
//		return t.(I)
//	}(x)
//
// or nil.
func (r *typedRewriter) sessionAssert(ta *ast.TypeAssertExpr) ast.Expr {
	xt, it, ok := r.assertTypes(ta)
	if !ok {
		return nil
	}
	pos := ta.Pos()
	t := r.temp("t", pos)
	tries := r.sessionAssertions(t.Name, xt, it, pos, func(x ast.Expr) ast.Stmt {
		return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{x}}
	})
	xe, ie := r.typeExpr(xt, pos), r.typeExpr(it, pos)
	if len(tries) == 0 || xe == nil || ie == nil {
		return nil
	}
	body := append(tries, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{
		&ast.TypeAssertExpr{X: ident(t.Name, pos), Lparen: ta.Lparen, Type: ta.Type, Rparen: ta.Rparen}}})
	return r.callOne(ta, t, xe, ie, body)
}

// anyAssertOne returns, for an assertion x.(T) of one value that
// anyAssert applies to,
//
//	func(v X) T { if w, ok := <anyAssert>(v); ok { return w }; return v.(T) }(x)
//
// (the last assertion panics as Go's), or nil.
func (r *typedRewriter) anyAssertOne(ta *ast.TypeAssertExpr) ast.Expr {
	xt, ct, ok := r.assertTypes(ta)
	if !ok {
		return nil
	}
	pos := ta.Pos()
	v, w := r.temp("v", pos), r.temp("w", pos)
	inner := r.anyAssert(ident(v.Name, pos), xt, ct, pos)
	xe, ce := r.typeExpr(xt, pos), r.typeExpr(ct, pos)
	if inner == nil || xe == nil || ce == nil {
		return nil
	}
	return r.callOne(ta, v, xe, ce, []ast.Stmt{
		returnIfOK(w, inner, pos),
		&ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.TypeAssertExpr{X: ident(v.Name, pos), Lparen: ta.Lparen, Type: ta.Type, Rparen: ta.Rparen}}},
	})
}

// typesAndPointers yields the types of tns that are not interfaces, each
// followed by its pointer type, with the expressions that name them at
// pos.
func (r *typedRewriter) typesAndPointers(tns []*types.TypeName, pos token.Pos) iter.Seq2[types.Type, ast.Expr] {
	return func(yield func(types.Type, ast.Expr) bool) {
		for _, tn := range tns {
			if isInterface(tn.Type()) {
				continue
			}
			name := r.c.typeNameIn(tn)
			if !yield(tn.Type(), ident(name, pos)) || !yield(types.NewPointer(tn.Type()), &ast.StarExpr{Star: pos, X: ident(name, pos)}) {
				return
			}
		}
	}
}

// methodInterface reports whether t is an interface type with methods
// (not a type parameter).
func methodInterface(t types.Type) bool {
	return ifaceType(t) && t.Underlying().(*types.Interface).NumMethods() > 0
}

// distinctStructs leaves out of cands the struct types whose fields
// another candidate has too: the interpreter gives such types one
// reflect type, so an assertion to one is true of the other's values
// (any(Dog{}).(Cat), for type Dog struct{ name string } and type Cat
// struct{ name string }), and a try of it would take one's value for the
// other's, with the other's methods. An assertion of those to an
// interface the session declared stays the interpreter's.
func distinctStructs(cands []*types.TypeName) []*types.TypeName {
	var out []*types.TypeName
	for i, tn := range cands {
		u, isStruct := tn.Type().Underlying().(*types.Struct)
		alone := true
		for j, other := range cands {
			if isStruct && j != i && types.Identical(other.Type().Underlying(), u) {
				alone = false
				break
			}
		}
		if alone {
			out = append(out, tn)
		}
	}
	return out
}

// ifaceAssertOne returns, for an assertion x.(I) of one value, I an
// interface type and x of interface type X,
//
//	func(t X) I {
//		<the session's types that implement I: sessionAssertions>
//		if t == nil { panic(_sn.AssertFail(nil, "I", …)) }
//		<the session's types that do not: sessionMisses, which panic>
//		if v, ok := t.(I); ok { return v }
//		panic(_sn.AssertFail(<t with its type's name>, "I", <the session's types
//			with the method of I each lacks>, <I's methods>))
//	}(x)
//
// or nil. The interpreter's own assertion of one value to an interface
// let a value that lacks a method through (s.(Perimeter) gave nil), or
// panicked naming no type ("nil is not main.Perimeter"); Go's panic
// names the value's type and the first method it lacks.
func (r *typedRewriter) ifaceAssertOne(ta *ast.TypeAssertExpr) ast.Expr {
	xt, it, ok := r.assertTypes(ta)
	if !ok || !isInterface(it) || !isInterface(xt) {
		return nil
	}
	for _, t := range []types.Type{xt, it} {
		if _, isParam := types.Unalias(t).(*types.TypeParam); isParam {
			return nil
		}
	}
	iface := it.Underlying().(*types.Interface)
	target := staticName(it)
	pos := ta.Pos()
	xe, ie := r.typeExpr(xt, pos), r.typeExpr(it, pos)
	if xe == nil || ie == nil || target == "" {
		return nil
	}
	t, v := r.temp("t", pos), r.temp("v", pos)
	check := &ast.TypeAssertExpr{X: ident(t.Name, pos), Lparen: ta.Lparen, Type: r.typeExpr(it, pos), Rparen: ta.Rparen}
	strs := func(ss []string) ast.Expr {
		lit := &ast.CompositeLit{Type: &ast.ArrayType{Lbrack: pos, Elt: ident("string", pos)}, Lbrace: pos, Rbrace: pos}
		for _, s := range ss {
			lit.Elts = append(lit.Elts, stringLit(s, pos))
		}
		return lit
	}
	var methods, missing []string
	for i := range iface.NumMethods() {
		methods = append(methods, iface.Method(i).Name())
	}
	for _, tn := range r.telling(r.sessionTypes(pos), xt) {
		for _, ct := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if isInterface(ct) || !types.AssignableTo(ct, xt) {
				continue
			}
			if m, _ := types.MissingMethod(ct, iface, true); m != nil {
				missing = append(missing, displayName(ct), m.Name())
			}
		}
	}
	fail := func(val ast.Expr) ast.Stmt {
		return panicStmt(rtCall("AssertFail", pos, val, stringLit(target, pos), strs(missing), strs(methods)).X, pos)
	}
	failNamed := func() ast.Stmt {
		named := r.dynamicTyped(ident(t.Name, pos), xt, ta)
		if named == nil {
			named = ident(t.Name, pos)
		}
		return fail(named)
	}
	// safeAssert's steps, in the one function literal: the session's
	// types that have I's methods (the common case first), a nil value,
	// the session's types that do not have them, then the interpreter's
	// own assertion.
	body := r.sessionAssertions(t.Name, xt, it, pos, func(x ast.Expr) ast.Stmt {
		return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{x}}
	})
	body = append(body, &ast.IfStmt{If: pos,
		Cond: &ast.BinaryExpr{X: ident(t.Name, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{fail(ident("nil", pos))}}})
	body = append(body, r.sessionMisses(t.Name, xt, it, pos, failNamed)...)
	body = append(body, returnIfOK(v, check, pos), failNamed())
	return r.callOne(ta, t, xe, ie, body)
}

// concreteAssertOne returns, for an assertion x.(T) of one value, T one
// of the session's types (or a pointer to one) and x of interface type
// X,
//
//	func(t X) T {
//		if v, ok := <the comma-ok assertion>; ok { return v }
//		panic(_sn.AssertTypeFail(<t with its type's name>, "X", "T"))
//	}(x)
//
// or nil: the interpreter's panic named the types by their structure
// (interface {} is struct { S float64 }, not *struct { S float64 }).
func (r *typedRewriter) concreteAssertOne(ta *ast.TypeAssertExpr) ast.Expr {
	xt, ct, ok := r.assertTypes(ta)
	if !ok || isInterface(ct) || !isInterface(xt) || !sessionNamed(ct) {
		return nil
	}
	if _, isParam := types.Unalias(xt).(*types.TypeParam); isParam {
		return nil
	}
	xname, cname := staticName(xt), displayName(ct)
	pos := ta.Pos()
	xe, ce := r.typeExpr(xt, pos), r.typeExpr(ct, pos)
	if xe == nil || ce == nil || xname == "" || cname == "" {
		return nil
	}
	t, v := r.temp("t", pos), r.temp("v", pos)
	check := r.anyAssert(ident(t.Name, pos), xt, ct, pos)
	if check == nil {
		check = &ast.TypeAssertExpr{X: ident(t.Name, pos), Lparen: ta.Lparen, Type: r.typeExpr(ct, pos), Rparen: ta.Rparen}
	}
	named := r.dynamicTyped(ident(t.Name, pos), xt, ta)
	if named == nil {
		named = ident(t.Name, pos)
	}
	return r.callOne(ta, t, xe, ce, []ast.Stmt{
		returnIfOK(v, check, pos),
		panicStmt(rtCall("AssertTypeFail", pos, named, stringLit(xname, pos), stringLit(cname, pos)).X, pos),
	})
}

// concreteAssertOneAt is concreteAssertOne outside loops (depth 0).
func (r *typedRewriter) concreteAssertOneAt(ta *ast.TypeAssertExpr, depth int) ast.Expr {
	if depth > 0 {
		return nil
	}
	return r.concreteAssertOne(ta)
}

// sessionNamed reports whether t is a type the session declared, or a
// pointer to one.
func sessionNamed(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main"
}

// assertTypes returns, for an assertion x.(T), the types of x and T, ok
// false when either is unknown or T is not a type.
func (r *typedRewriter) assertTypes(ta *ast.TypeAssertExpr) (xt, t types.Type, ok bool) {
	if ta.Type == nil {
		return nil, nil, false
	}
	tv, ok := r.info.Types[ta.Type]
	if !ok || !tv.IsType() {
		return nil, nil, false
	}
	xt = r.typeOf(ta.X)
	return xt, tv.Type, xt != nil
}

// callOne returns the call of a function literal with the parameter
// param of type pt and one result of type rt, whose body is body, with
// the argument of the assertion ta: the form of the rewritten assertions
// of one value.
func (r *typedRewriter) callOne(ta *ast.TypeAssertExpr, param *ast.Ident, pt, rt ast.Expr, body []ast.Stmt) ast.Expr {
	pos := ta.Pos()
	// A panic's report leaves the literal out: it stands for the
	// assertion.
	r.s.writtenLits[r.s.in.FileSet().Position(pos).String()] = true
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{param}, Type: pt}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: rt}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: body, Rbrace: pos},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{ta.X}, Rparen: ta.End()}
}

// returnIfOK is if v, ok := check; ok { return v }.
func returnIfOK(v *ast.Ident, check ast.Expr, pos token.Pos) ast.Stmt {
	return &ast.IfStmt{If: pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{v, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{check}},
		Cond: ident("ok", pos),
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(v.Name, pos)}}}}}
}

// staticName names t as Go's run-time messages name a static type, an
// interface too (main.Shape, interface {}, error), or returns "".
func staticName(t types.Type) string {
	var b strings.Builder
	if !writeDisplay(&b, t, false) {
		return ""
	}
	return b.String()
}

// stringLit is the string literal of s at pos.
func stringLit(s string, pos token.Pos) ast.Expr {
	return &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(s)}
}

// panicStmt is panic(v).
func panicStmt(v ast.Expr, pos token.Pos) ast.Stmt {
	return &ast.ExprStmt{X: &ast.CallExpr{Fun: ident("panic", pos), Lparen: pos, Args: []ast.Expr{v}, Rparen: pos}}
}

// The interpreter refuses to compile an assertion x.(T) of a value of
// an interface type to a type T of the session's that has some of the
// interface's methods only through an embedded pointer field (type Dog
// struct{ *base }, base's Name with a pointer receiver): "impossible
// type assertion: main.Dog does not implement main.Animal as "Name"
// method has a pointer receiver", though Go accepts it; a type switch
// with such a case, and the shell's own assertions that name the types
// of values for fmt, failed the same way. An assertion of the value
// itself, as compiled code gets it, compiles and holds as Go's does.
// embeddedPtrAsserts rewrites each assertion to such a type (or a
// pointer to it), the input's and the rewrites', as _sn.Key(x).(T).
func (r *typedRewriter) embeddedPtrAsserts(f *ast.File) {
	flagged := map[string]bool{}
	scope := r.c.pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || !isSession(tn) {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || !methodsThroughEmbeddedPointer(n) {
			continue
		}
		name := r.c.typeNameIn(tn) // as typeExpr writes it
		if name == "" {
			name = tn.Name()
		}
		flagged[name] = true
	}
	if len(flagged) == 0 {
		return
	}
	ast.Inspect(f, func(n ast.Node) bool {
		ta, ok := n.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			return true
		}
		t := ta.Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		id, ok := t.(*ast.Ident)
		if !ok || !flagged[id.Name] {
			return true
		}
		if call, ok := ta.X.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Key" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == rtName {
					return true
				}
			}
		}
		ta.X = r.keyCall(ta.X)
		return true
	})
}

// methodsThroughEmbeddedPointer reports whether a method of *n reaches
// it through an embedded field of pointer type.
func methodsThroughEmbeddedPointer(n *types.Named) bool {
	ms := types.NewMethodSet(types.NewPointer(n))
	for i := range ms.Len() {
		idx := ms.At(i).Index()
		var t types.Type = n
		for _, k := range idx[:len(idx)-1] {
			if p, ok := t.Underlying().(*types.Pointer); ok {
				t = p.Elem()
			}
			st, ok := t.Underlying().(*types.Struct)
			if !ok || k >= st.NumFields() {
				break
			}
			fd := st.Field(k)
			if _, isPtr := fd.Type().Underlying().(*types.Pointer); isPtr && fd.Embedded() {
				return true
			}
			t = fd.Type()
		}
	}
	return false
}

// typeString writes t as the input would: the session's types by their
// names alone.
func (r *typedRewriter) typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == r.c.pkg {
			return ""
		}
		return p.Name()
	})
}
