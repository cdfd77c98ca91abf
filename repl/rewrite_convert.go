package repl

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
)

// The interpreter gets a conversion of a value to an interface type
// wrong: fmt.Stringer(time.Second).String() and error(e) for the
// session's types panic ("Method index out of range", "reflect.Set:
// value of type time.Duration is not assignable to type string"), and
// an interface made so may even call another type's method. It gets the
// same value right when a function returns it as the interface.

// conversions rewrites each conversion I(x) of the input, I an interface
// type and x of another type X (a constant: its default type), as
//
//	func(v X) I { return v }(x)
//
// and as (x) where X is I, leaving those whose types cannot be written
// for the interpreter.
func (r *typedRewriter) conversions(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		call, ok := c.Node().(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || call.Ellipsis.IsValid() {
			return true
		}
		if lit := r.conversion(call); lit != nil {
			if tv, ok := r.info.Types[call]; ok {
				// For the rewrites after this one (interfaceResults,
				// which an argument made so needs as a call's).
				r.info.Types[lit] = tv
			}
			c.Replace(lit)
		}
		return true
	})
}

// conversion returns the rewritten form of call when it converts a
// value to an interface type, else nil.
func (r *typedRewriter) conversion(call *ast.CallExpr) ast.Expr {
	tv, ok := r.info.Types[call.Fun]
	if !ok || !tv.IsType() {
		return nil
	}
	it := tv.Type
	if _, isParam := types.Unalias(it).(*types.TypeParam); isParam {
		return nil
	}
	if _, isIface := it.Underlying().(*types.Interface); !isIface {
		return nil
	}
	arg, ok := r.info.Types[call.Args[0]]
	if !ok || arg.Type == nil || arg.IsNil() {
		return nil
	}
	xt := types.Default(arg.Type)
	if _, isParam := types.Unalias(xt).(*types.TypeParam); isParam {
		return nil
	}
	if b, isBasic := xt.Underlying().(*types.Basic); isBasic && b.Info()&types.IsUntyped != 0 {
		return nil
	}
	if types.Identical(xt, it) {
		return &ast.ParenExpr{Lparen: call.Lparen, X: call.Args[0], Rparen: call.Rparen}
	}
	return r.convertLit(call.Args[0], xt, it, call.Lparen, call.Rparen)
}

// convertLit returns func(v X) I { return v }(x), xt being X and it I,
// or nil when a type cannot be written.
func (r *typedRewriter) convertLit(x ast.Expr, xt, it types.Type, lparen, rparen token.Pos) ast.Expr {
	pos := x.Pos()
	xe, ie := r.typeExpr(xt, pos), r.typeExpr(it, pos)
	if xe == nil || ie == nil {
		return nil
	}
	v := r.temp("v", pos)
	body := []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(v.Name, pos)}}}
	if nilWrap := r.nilWrapper(v, xt, it, pos); nilWrap != nil {
		body = append([]ast.Stmt{nilWrap}, body...)
	}
	if rewrapped(xt, it) {
		// var i I = v; return _sn.Rewrap(i, v).(I)
		i := r.temp("i", pos)
		body = []ast.Stmt{
			&ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{
				Names: []*ast.Ident{i}, Type: r.typeExpr(it, pos), Values: []ast.Expr{ident(v.Name, pos)}}}}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.TypeAssertExpr{
				X: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Rewrap", pos)}, Lparen: pos,
					Args: []ast.Expr{ident(i.Name, pos), ident(v.Name, pos)}, Rparen: pos},
				Lparen: pos, Type: r.typeExpr(it, pos), Rparen: pos}}},
		}
	}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{v}, Type: xe}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ie}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: body},
	}
	return &ast.CallExpr{Fun: lit, Lparen: lparen, Args: []ast.Expr{x}, Rparen: rparen}
}

// nilWrapper returns, for the parameter v of type xt of convertLit's
// function, a pointer to a type of the program's, and it a compiled
// interface with methods, the statement
//
//	if v == nil {
//		var probe I = new(T)
//		return _sn.NilWrap(probe, v, map[string]any{"Error": v.Error}).(I)
//	}
//
// or nil for other types. The interpreter made a nil *T into a nil I
// (var err error = p; err == nil was true, as the classic mistake is
// not in Go); NilWrap makes a wrapper of the kind it makes of a *T that
// holds the nil pointer and calls its methods.
func (r *typedRewriter) nilWrapper(v *ast.Ident, xt, it types.Type, pos token.Pos) ast.Stmt {
	pt, ok := xt.(*types.Pointer)
	if !ok || !wrappedInterface(it) {
		return nil
	}
	n, ok := types.Unalias(pt.Elem()).(*types.Named)
	if !ok || !isSession(n.Obj()) || n.TypeArgs().Len() > 0 || isInterface(n) {
		return nil
	}
	te, ie := r.typeExpr(n, pos), r.typeExpr(it, pos)
	if te == nil || ie == nil {
		return nil
	}
	iface := it.Underlying().(*types.Interface)
	var methods []ast.Expr
	for i := range iface.NumMethods() {
		name := iface.Method(i).Name()
		methods = append(methods, &ast.KeyValueExpr{Key: stringLit(name, pos), Colon: pos,
			Value: &ast.SelectorExpr{X: ident(v.Name, pos), Sel: ident(name, pos)}})
	}
	probe := r.temp("probe", pos)
	return &ast.IfStmt{If: pos,
		Cond: &ast.BinaryExpr{X: ident(v.Name, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{
				Names: []*ast.Ident{probe}, Type: ie,
				Values: []ast.Expr{&ast.CallExpr{Fun: ident("new", pos), Lparen: pos, Args: []ast.Expr{te}, Rparen: pos}}}}}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.TypeAssertExpr{
				X: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("NilWrap", pos)}, Lparen: pos,
					Args: []ast.Expr{ident(probe.Name, pos), ident(v.Name, pos),
						&ast.CompositeLit{Type: &ast.MapType{Map: pos, Key: ident("string", pos), Value: ident("any", pos)}, Lbrace: pos, Elts: methods, Rbrace: pos}},
					Rparen: pos},
				Lparen: pos, Type: copyExpr(ie), Rparen: pos}}},
		}},
	}
}

// The interpreter makes a value of a struct type that the program
// declared into a value of a compiled interface type with methods (error,
// fmt.Stringer) by wrapping it in a struct of the value (its first field,
// IValue) and the methods, but it fills IValue with the struct's last
// field instead of the struct (it takes a struct without methods of its
// own for one of its emulated interfaces): asserting the value back to
// its type (err.(NotFound)), a type switch and errors.As fail. A pointer
// is wrapped right. rewrapped reports whether a conversion of a value of
// type x to interface type i is such a case; for those convertLit's
// function gives the wrapper the value again (rt's Rewrap).
func rewrapped(x, i types.Type) bool {
	if _, isStruct := x.Underlying().(*types.Struct); !isStruct {
		return false
	}
	n, ok := types.Unalias(x).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return false
	}
	in, ok := types.Unalias(i).(*types.Named)
	if !ok {
		return false
	}
	if p := in.Obj().Pkg(); p != nil && p.Path() == "main" {
		return false // the interpreter's own interfaces hold the value right
	}
	return true
}

// The interpreter also loses the methods of a value of a type the
// program declared where it becomes an interface value without a
// conversion: var e error = NotFound{"key"}; e.Error() panics ("Method
// index out of range"). implicitConversions rewrites such values, where
// Go converts them implicitly to an interface type with methods (the
// value of a var declaration with that type or of an assignment to a
// variable of it, a result, an argument, an element of a composite
// literal, a value sent on a channel), as conversion does. Values of
// other packages' types, which the interpreter converts right, are left
// alone.
func (r *typedRewriter) implicitConversions(f *ast.File) {
	r.assignedValues(f, r.implicit, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if n.Type != nil && len(n.Values) == len(n.Names) {
				if tv, ok := r.info.Types[n.Type]; ok && tv.IsType() {
					for i := range n.Values {
						n.Values[i] = r.implicit(n.Values[i], tv.Type)
					}
				}
			}
		case *ast.CallExpr:
			r.implicitArgs(n)
		case *ast.CompositeLit:
			r.implicitElements(n)
		}
	})
}

// assignedValues replaces each value of f that an assignment (=), a
// return or a send makes a value of a type the checker knows by what set
// returns for it and that type, and calls other, if not nil, with every
// other node.
func (r *typedRewriter) assignedValues(f *ast.File, set func(x ast.Expr, target types.Type) ast.Expr, other func(ast.Node)) {
	var sigs []*types.Signature // the enclosing functions', nil if unknown
	astutil.Apply(f, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.FuncDecl:
			var sig *types.Signature
			if fn, ok := r.info.Defs[n.Name].(*types.Func); ok {
				sig, _ = fn.Type().(*types.Signature)
			}
			sigs = append(sigs, sig)
		case *ast.FuncLit:
			sig, _ := r.typeOf(n).(*types.Signature)
			sigs = append(sigs, sig)
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) {
				for i := range n.Rhs {
					n.Rhs[i] = set(n.Rhs[i], r.typeOf(n.Lhs[i]))
				}
			}
		case *ast.ReturnStmt:
			if len(sigs) > 0 && sigs[len(sigs)-1] != nil {
				res := sigs[len(sigs)-1].Results()
				if res.Len() == len(n.Results) {
					for i := range n.Results {
						n.Results[i] = set(n.Results[i], res.At(i).Type())
					}
				}
			}
		case *ast.SendStmt:
			if ch, ok := typeUnder(r.typeOf(n.Chan)).(*types.Chan); ok {
				n.Value = set(n.Value, ch.Elem())
			}
		default:
			if other != nil {
				other(n)
			}
		}
		return true
	}, func(c *astutil.Cursor) bool {
		switch c.Node().(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			sigs = sigs[:len(sigs)-1]
		}
		return true
	})
}

// typeUnder returns t's underlying type, nil for nil.
func typeUnder(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// implicitArgs rewrites the arguments of a call of a function that
// become values of its interface-typed parameters.
func (r *typedRewriter) implicitArgs(call *ast.CallExpr) {
	tv, ok := r.info.Types[call.Fun]
	if !ok || tv.IsType() {
		return
	}
	if tv.IsBuiltin() {
		// append's values become elements of its slice.
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "append" && !call.Ellipsis.IsValid() && len(call.Args) > 1 {
			if s, ok := typeUnder(r.typeOf(call)).(*types.Slice); ok {
				for i := 1; i < len(call.Args); i++ {
					call.Args[i] = r.implicit(call.Args[i], s.Elem())
				}
			}
		}
		return
	}
	sig, ok := typeUnder(r.typeOf(call.Fun)).(*types.Signature)
	if !ok {
		return
	}
	// Compiled functions get the values of the program's types as they
	// should (see structWithMethods).
	compiled := r.compiledFunc(call.Fun)
	params := sig.Params()
	for i := range call.Args {
		var pt types.Type
		switch {
		case sig.Variadic() && i >= params.Len()-1:
			if call.Ellipsis.IsValid() {
				continue
			}
			if s, ok := params.At(params.Len() - 1).Type().(*types.Slice); ok {
				pt = s.Elem()
			}
		case i < params.Len():
			pt = params.At(i).Type()
		}
		if it, ok := typeUnder(pt).(*types.Interface); ok && it.NumMethods() == 0 && compiled {
			continue
		}
		call.Args[i] = r.implicit(call.Args[i], pt)
	}
}

// compiledFunc reports whether fun names a function or method of a
// compiled package.
func (r *typedRewriter) compiledFunc(fun ast.Expr) bool {
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.IndexExpr: // an instantiation
		return r.compiledFunc(f.X)
	case *ast.IndexListExpr:
		return r.compiledFunc(f.X)
	default:
		return false
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() != "main"
}

// implicitElements rewrites the elements of a composite literal that
// become values of an interface-typed element, key or field.
func (r *typedRewriter) implicitElements(lit *ast.CompositeLit) {
	switch t := typeUnder(r.typeOf(lit)).(type) {
	case *types.Slice:
		r.implicitValues(lit, t.Elem())
	case *types.Array:
		r.implicitValues(lit, t.Elem())
	case *types.Map:
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				kv.Key = r.implicit(kv.Key, t.Key())
				kv.Value = r.implicit(kv.Value, t.Elem())
			}
		}
	case *types.Struct:
		for i, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if v, ok := r.info.Uses[id].(*types.Var); ok {
						kv.Value = r.implicit(kv.Value, v.Type())
					}
				}
			} else if i < t.NumFields() {
				lit.Elts[i] = r.implicit(e, t.Field(i).Type())
			}
		}
	}
}

// implicitValues rewrites the elements of a slice or array literal.
func (r *typedRewriter) implicitValues(lit *ast.CompositeLit, elem types.Type) {
	for i, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			kv.Value = r.implicit(kv.Value, elem)
		} else {
			lit.Elts[i] = r.implicit(e, elem)
		}
	}
}

// implicit returns x as a value of target: x converted as conversion
// does when target is an interface type with methods and x's type is
// one the program declared (or a pointer to one), x through _sn.Raw when
// target is an empty interface and x a struct of the program's with
// methods (see structWithMethods), else x.
func (r *typedRewriter) implicit(x ast.Expr, target types.Type) ast.Expr {
	if target == nil {
		return x
	}
	it, ok := target.Underlying().(*types.Interface)
	if !ok {
		return x
	}
	if _, isParam := types.Unalias(target).(*types.TypeParam); isParam {
		return x
	}
	if it.NumMethods() == 0 {
		if xt := r.typeOf(x); xt != nil && structWithMethods(xt) {
			// _sn.Raw(x): through compiled code, which gets the value.
			pos := x.Pos()
			return &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Raw", pos)}, Lparen: pos, Args: []ast.Expr{x}, Rparen: x.End()}
		}
		return x
	}
	xt := r.typeOf(x)
	if xt == nil || types.Identical(xt, target) {
		return x
	}
	base := xt
	if p, ok := base.(*types.Pointer); ok {
		base = p.Elem()
	}
	n, ok := types.Unalias(base).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return x
	}
	if _, isIface := n.Underlying().(*types.Interface); isIface {
		return x
	}
	if e := r.embeddedCompiled(x, xt, it); e != nil {
		return e
	}
	if lit := r.convertLit(x, xt, target, x.Pos(), x.End()); lit != nil {
		return lit
	}
	return x
}

// embeddedCompiled returns, for x of type *T, a session's struct type
// that has every method of it only through one embedded field of a
// compiled type (type Doc struct{ bytes.Buffer }, type SafeMap struct{
// sync.Mutex; ... }), that field, through which the methods run as
// through x: &x.Buffer. The interpreter refuses *T itself as such an
// interface ("cannot use type *main.Doc as type io.Writer"). It returns
// nil for any other x.
func (r *typedRewriter) embeddedCompiled(x ast.Expr, xt types.Type, it *types.Interface) ast.Expr {
	if _, isPtr := xt.(*types.Pointer); !isPtr || it.NumMethods() == 0 {
		return nil
	}
	var path []int
	for i := range it.NumMethods() {
		m := it.Method(i)
		obj, index, _ := types.LookupFieldOrMethod(xt, true, m.Pkg(), m.Name())
		fn, ok := obj.(*types.Func)
		if !ok || len(index) < 2 || fn.Pkg() == nil || fn.Pkg().Path() == "main" {
			return nil
		}
		if prefix := index[:len(index)-1]; path == nil {
			path = prefix
		} else if !slices.Equal(path, prefix) {
			return nil
		}
	}
	pos := x.Pos()
	expr, t := x, xt
	for _, i := range path {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() || !st.Field(i).Embedded() {
			return nil
		}
		f := st.Field(i)
		expr, t = &ast.SelectorExpr{X: expr, Sel: ident(f.Name(), pos)}, f.Type()
	}
	base := t
	if p, ok := t.Underlying().(*types.Pointer); ok {
		base = p.Elem()
	}
	if n, ok := types.Unalias(base).(*types.Named); !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() == "main" {
		return nil
	}
	if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
		return expr
	}
	return &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: expr}
}

// structWithMethods reports whether t is a struct type that the program
// declared and gave methods. The interpreter makes such a value one of
// its interface values (see heldValue) where it becomes the value of an
// empty interface implicitly in interpreted code (an argument, an
// element of a composite literal, an assigned or sent value), and
// compiled code then compares it with no other value:
// slices.Contains([]any{c}, any(c)) was false. Passed through compiled
// code (_sn.Raw, the identity), it is the value itself, whose methods
// the interpreter finds again from its type; a conversion by a function
// literal (convertLit's) did the same at three times the cost of the
// call.
func structWithMethods(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" || n.TypeArgs().Len() > 0 {
		return false
	}
	if _, ok := n.Underlying().(*types.Struct); !ok {
		return false
	}
	return types.NewMethodSet(types.NewPointer(n)).Len() > 0
}

// Two values of a compiled interface type with methods (error,
// fmt.Stringer) that hold values of the program's types are wrappers
// of the interpreter (see rewrapped), which hold the wrapped value's
// methods as functions: comparing them panics ("comparing uncomparable
// type interp._error"), and a wrapper is never equal to the value it
// wraps (err == ErrNotFound is false where ErrNotFound is a *NotFound
// that err holds). Values of an interface type with methods that the
// program declared compare wrongly too: two Shape variables that hold
// equal structs, or one pointer, compared false, and so did an any that
// holds the interpreter's pair of a struct and its type (see heldValue)
// with the struct. comparisons rewrites each comparison x == y and
// x != y in which an operand is of an interface type (see needs below),
// and neither is nil, as
//
//	_sn.Key(x) == _sn.Key(y)
//
// and each switch on a tag of such a type as a switch on _sn.Key(tag)
// with cases _sn.Key(c): Key gives what a wrapper or pair holds, and
// compares as Go compares the interface values.
func (r *typedRewriter) comparisons(f *ast.File) {
	key := r.keyCall
	// needs reports whether a comparison of x and y needs the values
	// they hold: an operand of an interface type with methods, or of an
	// empty interface when the session has types with methods (whose
	// values the interpreter may hold as its pairs, see heldValue) and
	// the other operand is not of a plain predeclared type (an int's
	// value is never such a pair). Key is a call of compiled code, which
	// made a loop of any == any comparisons ten times as slow.
	needs := func(x, y ast.Expr) bool {
		tx, ty := r.typeOf(x), r.typeOf(y)
		switch {
		case methodInterface(tx) || methodInterface(ty):
			return true
		case !ifaceType(tx) && !ifaceType(ty):
			return false
		case plainBasic(tx) || plainBasic(ty):
			return false
		}
		return r.sessionHasMethods()
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && !r.isNil(n.X) && !r.isNil(n.Y) && needs(n.X, n.Y) {
				n.X, n.Y = key(n.X), key(n.Y)
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && (methodInterface(r.typeOf(n.Tag)) || ifaceType(r.typeOf(n.Tag)) && r.sessionHasMethods()) {
				n.Tag = key(n.Tag)
				for _, s := range n.Body.List {
					cc := s.(*ast.CaseClause)
					for i, e := range cc.List {
						if !r.isNil(e) {
							cc.List[i] = key(e)
						}
					}
				}
			}
		}
		return true
	})
}

// plainBasic reports whether t is a predeclared type other than an
// interface (int, string, an untyped constant's).
func plainBasic(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.Basic)
	return ok
}

// sessionHasMethods reports whether a type the session declared has
// methods, once per rewriter.
func (r *typedRewriter) sessionHasMethods() bool {
	if r.hasMethods == 0 {
		r.hasMethods = -1
		scope := r.c.pkg.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
				if n, ok := tn.Type().(*types.Named); ok {
					if _, isIface := n.Underlying().(*types.Interface); !isIface && types.NewMethodSet(types.NewPointer(n)).Len() > 0 {
						r.hasMethods = 1
						break
					}
				}
			}
		}
	}
	return r.hasMethods > 0
}

// ifaceType reports whether t is an interface type, with methods or
// not, and not a type parameter.
func ifaceType(t types.Type) bool {
	if t == nil {
		return false
	}
	if _, isParam := types.Unalias(t).(*types.TypeParam); isParam {
		return false
	}
	_, ok := t.Underlying().(*types.Interface)
	return ok
}

// mapKeys rewrites each key of a map whose key type is an interface
// (see ifaceKeyMaps for those with methods) that may reach the map as
// one of the interpreter's interface values (see heldValue) or wrappers
// as _sn.Key(k): a key of an interface type in an index expression or a
// call of delete, and one of an interface type or of a type the program
// declared in a composite literal (where the interpreter makes the
// latter such a value too).
// The map's keys are then the values themselves, as Go's are: without
// it, map[any]int{Celsius(1): 1}[Celsius(1)] was 0, and so was m[a]
// after m[s] = 1 for var s Shape = Circle{1} and a := any(Circle{1}).
func (r *typedRewriter) mapKeys(f *ast.File) {
	anyKeyed := func(x ast.Expr) bool {
		m, ok := typeUnder(r.typeOf(x)).(*types.Map)
		return ok && ifaceType(m.Key())
	}
	// wraps reports whether keys of map m can be the interpreter's
	// pairs or wrappers: always for keys with methods, and for empty
	// interfaces when the session has types with methods.
	wraps := func(m ast.Expr) bool {
		mt := typeUnder(r.typeOf(m)).(*types.Map)
		return methodInterface(mt.Key()) || r.sessionHasMethods()
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			if anyKeyed(n.X) && ifaceType(r.typeOf(n.Index)) && wraps(n.X) {
				n.Index = r.keyCall(n.Index)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && len(n.Args) == 2 && anyKeyed(n.Args[0]) && ifaceType(r.typeOf(n.Args[1])) && wraps(n.Args[0]) {
				if b, ok := r.info.Uses[id].(*types.Builtin); ok && b.Name() == "delete" {
					n.Args[1] = r.keyCall(n.Args[1])
				}
			}
		case *ast.CompositeLit:
			if !anyKeyed(n) || !wraps(n) {
				break
			}
			for _, e := range n.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if t := r.typeOf(kv.Key); ifaceType(t) || declaredType(t) {
					kv.Key = r.keyCall(kv.Key)
				}
			}
		}
		return true
	})
}

// The interpreter keys a map whose keys are of an interface type with
// methods by its own values of the interface: by the pairs of value and
// type of the session's interfaces (see heldValue), which equal only
// themselves, so that m[b] did not find what m[a] stored for var a, b
// Shape = Sq{1}, Sq{1}, and m[Sq{1}] panicked; and by wrappers for the
// compiled ones, which cannot be hashed (a map[error]int counting errors
// panicked). Such maps become maps with keys of type any in the code the
// interpreter runs: ifaceKeyMaps writes their types so, typeExpr writes
// them so wherever a rewrite spells one out, mapKeys gives them the
// values the keys hold, and ifaceKeyRanges makes a range's key a value of
// the interface again. Generic code that gets such a map sees its keys
// as any.

// ifaceKeyMaps writes each map type of the input whose keys are of an
// interface type with methods as a map type with keys of type any.
func (r *typedRewriter) ifaceKeyMaps(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		if mt, ok := n.(*ast.MapType); ok {
			if tv, ok := r.info.Types[mt]; ok && tv.IsType() {
				if m, ok := tv.Type.Underlying().(*types.Map); ok && methodInterface(m.Key()) {
					mt.Key = ident("any", mt.Key.Pos())
				}
			}
		}
		return true
	})
}

// ifaceKeyRanges rewrites a range over a map whose keys are of an
// interface type I with methods (see ifaceKeyMaps) so that its key is a
// value of I:
//
//	for k, v := range m { … }  →  for k_, v := range m { var k I; k, _ = k_.(I); … }
//	for k, v = range m { … }   →  for k_, e := range m { k, _ = k_.(I); v = e; … }
//
// (a nil key stays a nil I), each assertion written as nilAssertions
// writes one (safeAssert).
func (r *typedRewriter) ifaceKeyRanges(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok || blankOrNil(rs.Key) {
			return true
		}
		m, ok := typeUnder(r.typeOf(rs.X)).(*types.Map)
		if !ok || !methodInterface(m.Key()) {
			return true
		}
		pos := rs.Key.Pos()
		it := r.typeExpr(m.Key(), pos)
		if it == nil {
			return true
		}
		k := r.temp("k", pos)
		assert := func(to ast.Expr) ast.Stmt {
			// As nilAssertions writes the assertion, which the
			// interpreter gets wrong alone.
			var x ast.Expr = r.safeAssert(ident(k.Name, pos), types.Universe.Lookup("any").Type(), m.Key(), pos)
			if x == nil {
				x = &ast.TypeAssertExpr{X: ident(k.Name, pos), Lparen: pos, Type: it, Rparen: pos}
			}
			return &ast.AssignStmt{Lhs: []ast.Expr{to, ident("_", pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{x}}
		}
		var pre []ast.Stmt
		switch rs.Tok {
		case token.DEFINE:
			id, ok := rs.Key.(*ast.Ident)
			if !ok {
				return true
			}
			pre = []ast.Stmt{varDecl(ident(id.Name, id.Pos()), it), assert(ident(id.Name, id.Pos()))}
		case token.ASSIGN:
			pre = []ast.Stmt{assert(rs.Key)}
			if !blankOrNil(rs.Value) {
				e := r.temp("e", pos)
				pre = append(pre, &ast.AssignStmt{Lhs: []ast.Expr{rs.Value}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(e.Name, pos)}})
				rs.Value = e
			}
			rs.Tok = token.DEFINE
		default:
			return true
		}
		rs.Key = k
		rs.Body.List = append(pre, rs.Body.List...)
		return true
	})
}

// keyCall returns _sn.Key(x).
func (r *typedRewriter) keyCall(x ast.Expr) ast.Expr {
	pos := x.Pos()
	return &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Key", pos)}, Lparen: pos, Args: []ast.Expr{x}, Rparen: x.End()}
}

// declaredType reports whether t is a type the program declared, or a
// pointer to one.
func declaredType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main"
}

// isNil reports whether x is the predeclared nil.
func (r *typedRewriter) isNil(x ast.Expr) bool {
	tv, ok := r.info.Types[x]
	return ok && tv.IsNil()
}

// wrappedInterface reports whether t is an interface type with methods
// that the interpreter's values take as wrappers: a compiled one, not
// one the program declared.
func wrappedInterface(t types.Type) bool {
	if t == nil {
		return false
	}
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return false
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	p := n.Obj().Pkg()
	return p == nil || p.Path() != "main"
}

// panicValues converts the argument of panic to error where it is a
// value of one of the session's types that implements error (else to
// fmt.Stringer where it implements that): the
// interpreter's panic value is then its wrapper, whose Error method the
// report calls, as Go's does ("panic: E3", not "panic: {3}"). recover
// returns it as Go's does (an any that holds the value: assertions to
// the type and to error hold).
func (r *typedRewriter) panicValues(f *ast.File) {
	errType := types.Universe.Lookup("error").Type()
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok || id.Name != "panic" {
			return true
		}
		if _, isBuiltin := r.info.Uses[id].(*types.Builtin); !isBuiltin {
			return true
		}
		t := r.typeOf(call.Args[0])
		if r.nilPanics(t) {
			pos := call.Args[0].Pos()
			call.Args[0] = rtCall("PanicArg", pos, call.Args[0]).X
			return true
		}
		if t == nil || isInterface(t) {
			return true
		}
		switch {
		case types.AssignableTo(t, errType):
			call.Args[0] = r.implicit(call.Args[0], errType)
		case hasFmtMethod(t, "String"):
			// A Stringer's report has its String, as Go's has.
			if st := fmtStringer(); st != nil {
				call.Args[0] = r.implicit(call.Args[0], st)
			}
		default:
			// A declared type with a basic underlying type: the report
			// names it, main.Code(7), as Go's does (panicNamed).
			if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main" {
				if _, basic := n.Underlying().(*types.Basic); basic {
					pos := call.Args[0].Pos()
					call.Args[0] = &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("NamedPanic", pos)}, Lparen: pos,
						Args: []ast.Expr{call.Args[0], stringLit(displayName(n), pos)}, Rparen: call.Args[0].End()}
				}
			}
		}
		return true
	})
}

// fmtStringer returns the type fmt.Stringer as the checker knows it.
func fmtStringer() types.Type {
	pkg, err := sharedImporter().Import("fmt")
	if err != nil {
		return nil
	}
	if tn, ok := pkg.Scope().Lookup("Stringer").(*types.TypeName); ok {
		return tn.Type()
	}
	return nil
}

// nilPanics reports whether a panic's argument of type t may be nil and
// goes through _sn.PanicArg, which makes Go's *runtime.PanicNilError of
// nil (the interpreter's recover returned nil): the untyped nil, and
// values of the interfaces of compiled packages (error, any); the
// session's own interfaces keep their values as the interpreter holds
// them.
func (r *typedRewriter) nilPanics(t types.Type) bool {
	if t == nil {
		return false
	}
	if b, ok := t.(*types.Basic); ok {
		return b.Kind() == types.UntypedNil
	}
	if _, ok := t.Underlying().(*types.Interface); !ok {
		return false
	}
	if _, isParam := types.Unalias(t).(*types.TypeParam); isParam {
		return false
	}
	n, ok := types.Unalias(t).(*types.Named)
	return !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main"
}

// interfaceResults converts each argument of a call that is itself a
// call whose result is of an interface type with methods that the
// session declared to that type: h(g()) becomes h(Animal(g())). The
// interpreter passed a nil result of such a call on as a value that is
// not nil (in h, v == nil was false, and fmt's functions ended the input
// with a nil dereference); the conversion, which changes nothing in Go,
// passes it on right.
func (r *typedRewriter) interfaceResults(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if _, lit := call.Fun.(*ast.FuncLit); !lit {
			// (A function literal called with the value: fmt's
			// arguments, see names.)
			if tv, ok := r.info.Types[call.Fun]; !ok || tv.IsType() || tv.IsBuiltin() {
				return true // a conversion (one made here too), a builtin
			}
		}
		for i, a := range call.Args {
			inner, ok := ast.Unparen(a).(*ast.CallExpr)
			if !ok {
				continue
			}
			if tv, ok := r.info.Types[inner.Fun]; ok && tv.IsType() {
				continue // a conversion already
			}
			t := r.typeOf(a)
			if !sessionInterface(t) {
				continue
			}
			if tx := r.typeExpr(t, a.Pos()); tx != nil {
				call.Args[i] = &ast.CallExpr{Fun: tx, Lparen: a.Pos(), Args: []ast.Expr{a}, Rparen: a.End()}
			}
		}
		return true
	})
}

// multiResults rewrites a call whose one argument is a call with several
// results, one of them of an interface type the session declared,
//
//	fmt.Println(find(x))
//
// as a function literal that names the results first:
//
//	func() (int, error) { _sn_m1, _sn_m2 := find(x); return fmt.Println(_sn_m1, _sn_m2) }()
//
// The interpreter passed a nil such result on as a value that was not
// nil (see interfaceResults), and fmt's functions ended the input with
// a nil dereference. The names carry their types (the checker's
// information gets them), so that the rewrites that follow treat them as
// the values they are (fmt's arguments, see names).
func (r *typedRewriter) multiResults(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		outer, ok := c.Node().(*ast.CallExpr)
		if !ok || len(outer.Args) != 1 || outer.Ellipsis.IsValid() {
			return true
		}
		if tv, ok := r.info.Types[outer.Fun]; !ok || tv.IsType() || tv.IsBuiltin() {
			return true
		}
		inner, ok := ast.Unparen(outer.Args[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		tup, ok := r.typeOf(inner).(*types.Tuple)
		if !ok || tup.Len() < 2 {
			return true
		}
		session := false
		for i := range tup.Len() {
			t := tup.At(i).Type()
			if sessionInterface(t) {
				session = true
			}
		}
		if !session {
			return true
		}
		pos := outer.Pos()
		tv := r.info.Types[outer]
		var results *ast.FieldList
		switch t := tv.Type.(type) {
		case nil:
		case *types.Tuple:
			if t.Len() > 0 {
				results = &ast.FieldList{Opening: pos, Closing: pos}
				for i := range t.Len() {
					tx := r.typeExpr(t.At(i).Type(), pos)
					if tx == nil {
						return true
					}
					results.List = append(results.List, &ast.Field{Type: tx})
				}
			}
		default:
			tx := r.typeExpr(t, pos)
			if tx == nil {
				return true
			}
			results = &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: tx}}}
		}
		define := &ast.AssignStmt{TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{inner}}
		call := &ast.CallExpr{Fun: outer.Fun, Lparen: outer.Lparen, Rparen: outer.Rparen}
		for i := range tup.Len() {
			name := r.temp("m", pos)
			v := types.NewVar(pos, nil, name.Name, tup.At(i).Type())
			use := ident(name.Name, pos)
			r.info.Defs[name], r.info.Uses[use] = v, v
			define.Lhs = append(define.Lhs, name)
			call.Args = append(call.Args, use)
		}
		var last ast.Stmt = &ast.ExprStmt{X: call}
		if results != nil {
			last = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
		}
		lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}, Results: results},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{define, last}, Rbrace: pos}}
		c.Replace(&ast.CallExpr{Fun: lit, Lparen: pos, Rparen: outer.End()})
		return true
	})
}

// sessionInterface reports whether t is a named interface type with
// methods that the program declared (not a compiled one).
func sessionInterface(t types.Type) bool {
	if t == nil || !methodInterface(t) || wrappedInterface(t) {
		return false
	}
	_, named := types.Unalias(t).(*types.Named)
	return named
}

// floatConsts writes the constants of a const declaration that declares
// one of a float or complex type by their values, as the checker
// computed them:
//
//	const ( _ = iota; KB Size = 1 << (10 * iota); MB )
//
// becomes
//
//	const ( KB Size = 1024; MB Size = 1048576 )
//
// The interpreter failed on a shift of such a type ("constant
// definition loop"), and on a list of constants that repeats the one
// before it (const ( a, b = iota, iota * 2; c, d )); it computed boolean
// constants and float ones made of other packages' wrong (see below), so
// a declaration of such a constant is written out too. Every constant of the declaration gets its value
// written out, since one that repeats the expression before it would
// repeat the value; blank names go.
func (r *typedRewriter) floatConsts(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		gd, ok := n.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			return true
		}
		var consts []*types.Const
		var names []*ast.Ident
		float := false
		for _, sp := range gd.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if len(vs.Names) > 1 && len(vs.Values) == 0 {
				float = true // a list repeated (a, b = iota, iota*2; c, d): the interpreter failed on it
			}
			for _, id := range vs.Names {
				if id.Name == "_" {
					continue
				}
				c, ok := r.info.Defs[id].(*types.Const)
				if !ok {
					return true
				}
				if b, ok := c.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsUntyped == 0 && b.Info()&(types.IsFloat|types.IsComplex) != 0 {
					float = true
				}
				if b, ok := c.Type().(*types.Basic); ok && (b.Kind() == types.UntypedFloat || b.Kind() == types.UntypedComplex) && c.Val().Kind() == constant.Int {
					// An untyped float of an integer value, which
					// the interpreter made an int (const k = min(1,
					// 2.5) printed 1 int where Go prints 1 float64).
					float = true
				}
				if k := c.Val().Kind(); k == constant.Bool || k == constant.Float {
					// The interpreter computed comparisons and && of
					// constants as false (const big = 3 > 2), and
					// converting a float constant made of another
					// package's (const TwoPi = math.Pi * 2) as 0.
					float = true
				}
				consts, names = append(consts, c), append(names, id)
			}
		}
		if !float {
			return true
		}
		var specs []ast.Spec
		for i, c := range consts {
			pos := names[i].Pos()
			w := &typeWriter{pos: pos}
			val := w.constExpr(c.Val(), c.Type())
			if w.err != nil {
				return true
			}
			vs := &ast.ValueSpec{Names: []*ast.Ident{names[i]}, Values: []ast.Expr{val}}
			if b, ok := c.Type().(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 {
				if vs.Type = r.typeExpr(c.Type(), pos); vs.Type == nil {
					return true
				}
			}
			specs = append(specs, vs)
		}
		gd.Specs = specs
		if len(specs) > 1 && !gd.Lparen.IsValid() {
			gd.Lparen, gd.Rparen = gd.TokPos, gd.End()
		}
		return true
	})
}

// parenValues puts in parentheses each operator expression (a % b,
// x << n, -x, ^x, !ok, <-ch) that becomes the value of an interface
// type by an assignment, a return or a send:
//
//	m["a"] = i % 7  →  m["a"] = (i % 7)
//
// The interpreter's code for such an assignment to a variable, element,
// field or pointee of an interface type lost its way: the function
// stopped there without a word (nothing after it ran, and a script
// ended with status 0), a return of one panicked, and a receive gave
// nil. A parenthesized operand is compiled apart and assigned right.
func (r *typedRewriter) parenValues(f *ast.File) {
	paren := func(x ast.Expr, target types.Type) ast.Expr {
		if !ifaceType(target) {
			return x
		}
		switch x.(type) {
		case *ast.BinaryExpr, *ast.UnaryExpr:
			p := &ast.ParenExpr{Lparen: x.Pos(), X: x, Rparen: x.End()}
			if tv, ok := r.info.Types[x]; ok {
				r.info.Types[p] = tv
			}
			return p
		}
		return x
	}
	r.assignedValues(f, paren, nil)
}
