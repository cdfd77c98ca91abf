package repl

import (
	"go/constant"
	"slices"
	"strconv"
	"strings"

	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// loopVars gives each iteration of a loop its own copy of a loop
// variable that something keeps beyond the iteration: a closure (a
// deferred one, a goroutine's), a pointer, a method with a pointer
// receiver. The interpreter has one variable for the whole loop, as Go
// had before 1.22; a variable declared in the body, though, is new in
// each iteration, so
//
//	for i := 0; i < n; i++ { body }
//
// becomes
//
//	for t := 0; t < n; t++ { i := t; body; t = i }
//
// (with t = i also before each continue of the loop), and
//
//	for k, v := range x { body }
//
// becomes for k, t := range x { v := t; body } for a captured v.
func (r *typedRewriter) loopVars(f *ast.File) {
	labels := map[ast.Stmt]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			labels[l.Stmt] = l.Label.Name
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		switch l := n.(type) {
		case *ast.RangeStmt:
			if l.Tok != token.DEFINE {
				return true
			}
			var decl []ast.Stmt
			for _, p := range []*ast.Expr{&l.Key, &l.Value} {
				id, ok := (*p).(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				v, ok := r.info.Defs[id].(*types.Var)
				if !ok || !r.captured(v, l.Body) {
					continue
				}
				t := r.temp("lv", id.Pos())
				*p = t
				decl = append(decl, &ast.AssignStmt{Lhs: []ast.Expr{id}, TokPos: id.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{ident(t.Name, id.Pos())}})
			}
			l.Body.List = append(decl, l.Body.List...)
		case *ast.ForStmt:
			init, ok := l.Init.(*ast.AssignStmt)
			if !ok || init.Tok != token.DEFINE {
				return true
			}
			for i, lhs := range init.Lhs {
				id, ok := lhs.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				v, ok := r.info.Defs[id].(*types.Var)
				if !ok || !(r.captured(v, l.Body) || r.captured(v, l.Cond) || r.captured(v, l.Post)) {
					continue
				}
				t := r.temp("lv", id.Pos())
				init.Lhs[i] = t
				for _, part := range []ast.Node{l.Cond, l.Post} {
					if part == nil {
						continue
					}
					ast.Inspect(part, func(n ast.Node) bool {
						if u, ok := n.(*ast.Ident); ok && r.info.Uses[u] == v {
							u.Name = t.Name
						}
						return true
					})
				}
				copyBack := func(pos token.Pos) ast.Stmt {
					return &ast.AssignStmt{Lhs: []ast.Expr{ident(t.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(id.Name, pos)}}
				}
				r.beforeContinue(l, labels[l], copyBack)
				pos := l.Body.Lbrace
				decl := &ast.AssignStmt{Lhs: []ast.Expr{id}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{ident(t.Name, pos)}}
				l.Body.List = append(append([]ast.Stmt{decl}, l.Body.List...), copyBack(l.Body.Rbrace))
			}
		}
		return true
	})
}

// beforeContinue puts stmt() before every continue of loop in its body.
func (r *typedRewriter) beforeContinue(loop *ast.ForStmt, label string, stmt func(token.Pos) ast.Stmt) {
	depth := 0 // of loops nested in the body
	astutil.Apply(loop.Body, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			depth++
		case *ast.BranchStmt:
			if n.Tok == token.CONTINUE && ((n.Label == nil && depth == 0) || (n.Label != nil && n.Label.Name == label)) {
				c.Replace(&ast.BlockStmt{Lbrace: n.Pos(), List: []ast.Stmt{stmt(n.Pos()), n}, Rbrace: n.End()})
				return false
			}
		}
		return true
	}, func(c *astutil.Cursor) bool {
		switch c.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			depth--
		}
		return true
	})
}

// captured reports whether in n something keeps v beyond the current
// iteration: a function literal that uses it, &v (or the address of a
// part of it), a method with a pointer receiver called or taken on it,
// or a slice of it (an array).
func (r *typedRewriter) captured(v *types.Var, n ast.Node) bool {
	if n == nil {
		return false
	}
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if u, ok := m.(*ast.Ident); ok && r.info.Uses[u] == v {
					found = true
				}
				return !found
			})
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && r.rootVar(n.X) == v {
				found = true
			}
		case *ast.SliceExpr:
			// (A slice expression a rewrite wrote has no type.)
			if t := r.typeOf(n.X); t != nil {
				if _, isArray := t.Underlying().(*types.Array); isArray && r.rootVar(n.X) == v {
					found = true
				}
			}
		case *ast.SelectorExpr:
			if sel := r.info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal && r.rootVar(n.X) == v {
				if _, ptr := sel.Obj().(*types.Func).Signature().Recv().Type().(*types.Pointer); ptr && !isPointer(r.typeOf(n.X)) {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// rootVar returns the variable that x is part of (v in v, v.f, v[i] of
// an array v), or nil.
func (r *typedRewriter) rootVar(x ast.Expr) *types.Var {
	for {
		switch e := x.(type) {
		case *ast.ParenExpr:
			x = e.X
		case *ast.SelectorExpr:
			if isPointer(r.typeOf(e.X)) {
				return nil
			}
			x = e.X
		case *ast.IndexExpr:
			if t := r.typeOf(e.X); t == nil {
				return nil
			} else if _, isArray := t.Underlying().(*types.Array); !isArray {
				return nil
			}
			x = e.X
		case *ast.Ident:
			v, _ := r.info.Uses[e].(*types.Var)
			return v
		default:
			return nil
		}
	}
}

func isPointer(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// defers evaluates the function and arguments of deferred calls at the
// defer statement, as Go does (the interpreter evaluates them when the
// call runs):
//
//	defer f(a, b)  →  { t1, t2 := a, b; defer f(t1, t2) }
//
// with the receiver of a method, or a function held in a variable,
// evaluated the same way. In a chunk of top-level statements, a defer
// that is itself one of the statements is left alone (defer is refused
// there), except in a script, where every defer of the top-level
// statements outside function literals defers its call to the script's
// end (scriptDefer); one in the block of a top-level loop, if or switch is
// rewritten like any other, and its call runs when that statement ends.
func (r *typedRewriter) defers(n ast.Node, topLevel bool) {
	var top *ast.BlockStmt
	if f, ok := n.(*ast.File); ok && topLevel {
		top = f.Decls[0].(*ast.FuncDecl).Body
	}
	lits := 0 // the function literals around the node
	// loops[i] counts the loops around the node in the i-th function
	// around it (the last: the innermost).
	loops := []int{0}
	astutil.Apply(n, func(c *astutil.Cursor) bool {
		switch c.Node().(type) {
		case *ast.FuncLit:
			lits++
			loops = append(loops, 0)
		case *ast.ForStmt, *ast.RangeStmt:
			loops[len(loops)-1]++
		}
		return true
	}, func(c *astutil.Cursor) bool {
		switch d := c.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loops[len(loops)-1]--
		case *ast.FuncLit:
			lits--
			loops = loops[:len(loops)-1]
		case *ast.DeferStmt:
			if top != nil && lits == 0 && r.s.scriptDefers != nil {
				// A script's: as in main, whatever block it is in.
				c.Replace(r.scriptDefer(d))
				return true
			}
			if top != nil && c.Parent() == top {
				return true
			}
			r.loopDefer = loops[len(loops)-1] > 0
			if st := r.deferEarly(d); st != nil {
				c.Replace(st)
			}
			r.loopDefer = false
		}
		return true
	})
}

// scriptDefer rewrites a defer among the top-level statements of a
// script, whose call runs when the script ends (as a deferred call of
// main runs when main returns), into a call of the runtime's Defer:
//
//	defer f(a)  →  func() { t := a; _sn.Defer(func() { f(t) }) }()
//
// A recover called by a deferred function literal becomes the runtime's
// ScriptRecover, which returns the panic that ended the script.
func (r *typedRewriter) scriptDefer(d *ast.DeferStmt) ast.Stmt {
	pos := d.Pos()
	if lit, ok := d.Call.Fun.(*ast.FuncLit); ok {
		// recover in the deferred function: the script's panic.
		astutil.Apply(lit.Body, func(c *astutil.Cursor) bool {
			switch n := c.Node().(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && len(n.Args) == 0 {
					if _, isBuiltin := r.info.Uses[id].(*types.Builtin); isBuiltin && id.Name == "recover" {
						n.Fun = &ast.SelectorExpr{X: ident(rtName, id.Pos()), Sel: ident("ScriptRecover", id.Pos())}
					}
				}
			}
			return true
		}, nil)
	}
	st := r.deferEarly(d)
	if lit, ok := d.Call.Fun.(*ast.FuncLit); ok {
		// The function too is evaluated at the defer (deferEarly
		// leaves a literal alone: a deferred call evaluates it at once
		// anyway), with the variables it captures there.
		fn := r.temp("fn", pos)
		d.Call.Fun = ident(fn.Name, pos)
		def := &ast.AssignStmt{Lhs: []ast.Expr{fn}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{lit}}
		if b, ok := st.(*ast.BlockStmt); ok {
			b.List = append([]ast.Stmt{def}, b.List...)
		} else {
			st = &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{def, d}, Rbrace: d.End()}
		}
	}
	call := &ast.ExprStmt{X: &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Defer", pos)},
		Lparen: pos,
		Args: []ast.Expr{&ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: d.Call}}, Rbrace: d.End()},
		}},
		Rparen: d.End(),
	}}
	b, ok := st.(*ast.BlockStmt)
	if !ok {
		return call
	}
	for i, x := range b.List {
		if x == d {
			b.List[i] = call
		}
	}
	// In a function literal called at once: the interpreter has one
	// variable t for all iterations of a loop around the block, which
	// the deferred calls would share; each call of a function has its
	// own.
	return &ast.ExprStmt{X: &ast.CallExpr{
		Fun:    &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}}, Body: b},
		Lparen: d.End(), Rparen: d.End(),
	}}
}

// loopMethodDefer rewrites call, the deferred call of a method (fun,
// sel) in a loop, as a function literal whose parameters take the
// receiver and the arguments:
//
//	defer f.Close()  →  defer func(r *F) { r.Close() }(f)
//
// In a loop the interpreter has one variable for the receiver that
// deferEarly binds, read when the call runs: every deferred f.Close()
// closed the last iteration's f. A deferred call's arguments are taken
// at the defer (bind takes the receiver that it makes, *p or &v). It
// returns nil where a type cannot be written.
func (r *typedRewriter) loopMethodDefer(call *ast.CallExpr, fun *ast.SelectorExpr, sel *types.Selection, ptrRecv bool, xt types.Type, bind func(ast.Expr) ast.Expr) *ast.CallExpr {
	sig, ok := sel.Type().(*types.Signature)
	if !ok || xt == nil {
		return nil
	}
	if len(call.Args) == 1 {
		if _, isTuple := r.typeOf(call.Args[0]).(*types.Tuple); isTuple {
			return nil
		}
	}
	pos := call.Pos()
	recvArg, recvT := fun.X, xt
	switch {
	case ptrRecv && !isPointer(xt):
		recvArg, recvT = &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: fun.X}, types.NewPointer(xt)
	case !ptrRecv && isPointer(xt) && len(sel.Index()) == 1:
		recvArg, recvT = &ast.StarExpr{Star: pos, X: fun.X}, xt.Underlying().(*types.Pointer).Elem()
	}
	paramType := func(i int) types.Type {
		n := sig.Params().Len()
		switch {
		case !sig.Variadic() || i < n-1:
			return sig.Params().At(i).Type()
		case call.Ellipsis.IsValid():
			return sig.Params().At(n - 1).Type()
		default:
			return sig.Params().At(n - 1).Type().(*types.Slice).Elem()
		}
	}
	rv := r.temp("rc", pos)
	rt := r.typeExpr(recvT, pos)
	if rt == nil {
		return nil
	}
	if recvArg != fun.X {
		// *p or &v, which the checker did not see: bound here (a *p
		// passed on as it is was read when the call ran).
		recvArg = bind(recvArg)
	}
	params := []*ast.Field{{Names: []*ast.Ident{rv}, Type: rt}}
	var inner []ast.Expr
	for i := range call.Args {
		pt := r.typeExpr(paramType(i), pos)
		if pt == nil {
			return nil
		}
		p := r.temp("pa", pos)
		params = append(params, &ast.Field{Names: []*ast.Ident{p}, Type: pt})
		inner = append(inner, ident(p.Name, pos))
	}
	body := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rv.Name, pos), Sel: ident(fun.Sel.Name, fun.Sel.Pos())},
		Lparen: pos, Args: inner, Ellipsis: call.Ellipsis, Rparen: pos}
	return &ast.CallExpr{Fun: &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos, List: params}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: body}}},
	}, Lparen: pos, Args: append([]ast.Expr{recvArg}, call.Args...), Rparen: call.Rparen}
}

func (r *typedRewriter) deferEarly(d *ast.DeferStmt) ast.Stmt {
	call := d.Call
	pos := d.Pos()
	var pre []ast.Stmt
	bind := func(x ast.Expr) ast.Expr {
		t := r.temp("d", call.Pos())
		pre = append(pre, &ast.AssignStmt{Lhs: []ast.Expr{t}, TokPos: call.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{x}})
		return ident(t.Name, call.Pos())
	}
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if _, isVar := r.info.Uses[fun].(*types.Var); isVar {
			call.Fun = bind(fun)
		}
	case *ast.SelectorExpr:
		sel := r.info.Selections[fun]
		switch {
		case sel == nil: // a package's function
		case sel.Kind() == types.MethodVal:
			m := sel.Obj().(*types.Func)
			_, ptrRecv := m.Signature().Recv().Type().(*types.Pointer)
			xt := r.typeOf(fun.X)
			if r.loopDefer {
				if lit := r.loopMethodDefer(call, fun, sel, ptrRecv, xt, bind); lit != nil {
					call = lit
					d.Call = lit
					break
				}
			}
			switch {
			case ptrRecv && !isPointer(xt):
				fun.X = bind(&ast.UnaryExpr{OpPos: pos, Op: token.AND, X: fun.X})
			case !ptrRecv && isPointer(xt) && len(sel.Index()) == 1:
				// defer p.M() of a value method: the value *p now.
				fun.X = bind(&ast.StarExpr{Star: pos, X: fun.X})
			default:
				fun.X = bind(fun.X)
			}
		case sel.Kind() == types.FieldVal:
			call.Fun = bind(fun)
		}
	case *ast.FuncLit, *ast.IndexExpr, *ast.IndexListExpr:
	default:
		call.Fun = bind(call.Fun)
	}
	if len(call.Args) == 1 {
		if tup, ok := r.typeOf(call.Args[0]).(*types.Tuple); ok && tup.Len() > 1 {
			var lhs, args []ast.Expr
			for range tup.Len() {
				t := r.temp("d", pos)
				lhs = append(lhs, t)
				args = append(args, ident(t.Name, pos))
			}
			pre = append(pre, &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{call.Args[0]}})
			call.Args = args
			return &ast.BlockStmt{Lbrace: call.Pos(), List: append(pre, d), Rbrace: d.End()}
		}
	}
	for i, a := range call.Args {
		tv, ok := r.info.Types[a]
		if !ok || tv.Value != nil || tv.IsNil() || tv.IsType() {
			continue
		}
		if _, isLit := a.(*ast.FuncLit); isLit {
			continue
		}
		call.Args[i] = bind(a)
	}
	if len(pre) == 0 {
		return nil
	}
	return &ast.BlockStmt{Lbrace: call.Pos(), List: append(pre, d), Rbrace: d.End()}
}

// commaOK rewrites v, ok := m[k] (and x.(T), <-ch, and var v, ok = ...)
// among top-level statements, where the interpreter fails on it, into
// declarations and an assignment:
//
//	var v V
//	var ok bool
//	v, ok = m[k]
//
// and the same for a, b := f[T](x) and x := f[T](y), the results of a
// generic function, and x := f[T](y).M(), a value computed from one
// (which the interpreter fails to declare at the top level).
func (r *typedRewriter) commaOK(body *ast.BlockStmt) {
	var out []ast.Stmt
	for _, st := range r.splitDefines(body.List) {
		r.runeConstant(st)
		var lhs []*ast.Ident
		var rhs ast.Expr
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE && len(st.Rhs) == 1 && allIdents(st.Lhs) && (len(st.Lhs) >= 2 || isGenericCall(st.Rhs[0]) || r.isGenericValue(st.Rhs[0])) {
				for _, l := range st.Lhs {
					lhs = append(lhs, l.(*ast.Ident))
				}
				rhs = st.Rhs[0]
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR && len(gd.Specs) == 1 {
				if vs := gd.Specs[0].(*ast.ValueSpec); vs.Type == nil && len(vs.Values) == 1 && (len(vs.Names) >= 2 || isGenericCall(vs.Values[0]) || r.isGenericValue(vs.Values[0])) {
					lhs, rhs = vs.Names, vs.Values[0]
				}
			}
		}
		if rhs == nil || !(len(lhs) == 2 && r.isCommaOK(rhs) || isGenericCall(rhs) || r.isGenericValue(rhs)) {
			out = append(out, st)
			continue
		}
		pos := st.Pos()
		var decls []ast.Stmt
		assign := &ast.AssignStmt{TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{rhs}}
		ok := true
		tuple, _ := r.typeOf(rhs).(*types.Tuple)
		for i, id := range lhs {
			obj := r.info.Defs[id]
			var ot types.Type
			name := id
			switch {
			case obj != nil && id.Name != "_":
				ot = obj.Type()
			case strings.HasPrefix(id.Name, rtName+"_ok"): // see mapLookups
				ot = types.Typ[types.Bool]
			case id.Name == "_" && tuple != nil && i < tuple.Len():
				// The interpreter assigns _ at the top level to a
				// variable of its own: a temporary takes the value.
				ot, name = tuple.At(i).Type(), r.temp("blank", pos)
			default:
				assign.Lhs = append(assign.Lhs, ident(id.Name, id.Pos()))
				continue // assigned, not declared
			}
			assign.Lhs = append(assign.Lhs, ident(name.Name, id.Pos()))
			t := r.typeExpr(ot, pos)
			if t == nil {
				ok = false
				break
			}
			decls = append(decls, varDecl(name, t))
		}
		if !ok {
			out = append(out, st)
			continue
		}
		out = append(append(out, decls...), assign)
	}
	body.List = out
}

// splitDefines writes a top-level a, b := f[T](x), g[U](y) (a value of
// which calls a generic function) as a := f[T](x) and b := g[U](y), for
// commaOK (the interpreter failed on it: a nil dereference, or "constant
// definition loop"); a name that the statement assigns, not declares, is
// assigned. A statement whose values read one of its names stays whole.
func (r *typedRewriter) splitDefines(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for _, st := range list {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) || !allIdents(as.Lhs) ||
			!slices.ContainsFunc(as.Rhs, isGenericCall) || readsNames(as.Rhs, as.Lhs) {
			out = append(out, st)
			continue
		}
		for i, l := range as.Lhs {
			tok := token.DEFINE
			if r.info.Defs[l.(*ast.Ident)] == nil {
				tok = token.ASSIGN
			}
			out = append(out, &ast.AssignStmt{Lhs: []ast.Expr{l}, TokPos: as.TokPos, Tok: tok, Rhs: []ast.Expr{as.Rhs[i]}})
		}
	}
	return out
}

// readsNames reports whether an identifier of xs has the name of one of
// names.
func readsNames(xs, names []ast.Expr) bool {
	found := false
	for _, x := range xs {
		ast.Inspect(x, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				for _, name := range names {
					if name.(*ast.Ident).Name == id.Name {
						found = true
					}
				}
			}
			return !found
		})
	}
	return found
}

// isGenericCall reports whether x holds a call of a generic function
// with its type arguments (as instantiate leaves every such call), outside
// function literals: NewSet[int]() and NewSet[int]().Union(s) alike.
func isGenericCall(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			switch n.Fun.(type) {
			case *ast.IndexExpr, *ast.IndexListExpr:
				found = true
			}
		}
		return !found
	})
	return found
}

// isGenericValue reports whether x is an instance of a generic function
// used as a value: f[int].
func (r *typedRewriter) isGenericValue(x ast.Expr) bool {
	var fun ast.Expr
	switch x := ast.Unparen(x).(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	default:
		return false
	}
	id, _ := r.genericFunc(fun)
	return id != nil
}

// isCommaOK reports whether x is a map index, a type assertion or a
// receive.
func (r *typedRewriter) isCommaOK(x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.TypeAssertExpr:
		return true
	case *ast.UnaryExpr:
		return x.Op == token.ARROW
	case *ast.IndexExpr:
		t := r.typeOf(x.X)
		if t == nil {
			return false
		}
		_, isMap := coreType(t).(*types.Map)
		return isMap
	}
	return false
}

// The interpreter makes a closure of a function literal when it
// evaluates the literal as a value: it then copies its frame, with the
// variables of the current loop iteration. A literal that is deferred,
// started as a goroutine or passed straight to a compiled function is
// made a closure only when it is called, with the variables as they are
// then: the last iteration's. So such literals are changed:
//
//   - a deferred or go'd literal gets the loop variables it uses as
//     parameters, passed when the statement runs:
//     defer func() { use(i) }() → defer func(i int) { use(i) }(i);
//   - a literal passed to a call is made a value before the statement:
//     t := func() { use(i) }; r.Map(t).
//
// Only literals that use variables declared inside a loop around them
// (in the same function) are changed.

// loopVarsUsed returns the variables that lit uses and that are
// declared inside a loop around at, in the function at is in.
func (r *typedRewriter) loopVarsUsed(lit *ast.FuncLit, at ast.Node) []*types.Var {
	type span struct{ from, to token.Pos }
	var loops []span
	for p := r.parents[at]; p != nil; p = r.parents[p] {
		switch p := p.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			p = nil
		case *ast.ForStmt, *ast.RangeStmt:
			loops = append(loops, span{p.Pos(), p.End()})
			continue
		default:
			continue
		}
		break
	}
	if len(loops) == 0 {
		return nil
	}
	var vars []*types.Var
	seen := map[*types.Var]bool{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := r.info.Uses[id].(*types.Var)
		if !ok || seen[v] || v.IsField() || (v.Pos() >= lit.Pos() && v.Pos() < lit.End()) {
			return true
		}
		for _, l := range loops {
			if v.Pos() >= l.from && v.Pos() < l.to {
				seen[v] = true
				vars = append(vars, v)
				break
			}
		}
		return true
	})
	return vars
}

// bindParams makes the loop variables that the literal called by call
// uses its parameters, passed by call.
func (r *typedRewriter) bindParams(call *ast.CallExpr, at ast.Node) bool {
	lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit)
	if !ok {
		return false
	}
	vars := r.loopVarsUsed(lit, at)
	if len(vars) == 0 || call.Ellipsis.IsValid() {
		return false
	}
	pos := call.Pos()
	_, goes := at.(*ast.GoStmt)
	for _, v := range vars {
		t := r.typeExpr(v.Type(), pos)
		if t == nil {
			return false
		}
		arg := ident(v.Name(), pos)
		r.info.Uses[arg] = v
		if goes && ownInterface(v.Type()) {
			// Behind a pointer, as goCalls passes such values:
			// func(p *Shape) { s := *p; ... }(&[]Shape{s}[0]).
			p := r.temp("p", pos)
			lit.Type.Params.List = append(lit.Type.Params.List, &ast.Field{Names: []*ast.Ident{p}, Type: &ast.StarExpr{Star: pos, X: t}})
			lit.Body.List = append([]ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{ident(v.Name(), pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.StarExpr{Star: pos, X: ident(p.Name, pos)}}}}, lit.Body.List...)
			call.Args = append(call.Args, boxed(arg, copyExpr(t), pos))
			continue
		}
		lit.Type.Params.List = append(lit.Type.Params.List, &ast.Field{Names: []*ast.Ident{ident(v.Name(), pos)}, Type: t})
		call.Args = append(call.Args, arg)
	}
	return true
}

// closures applies the changes above.
func (r *typedRewriter) closures(f *ast.File) {
	walkStmtLists(f, r.bindArgs, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.DeferStmt:
			r.bindParams(n.Call, n)
		case *ast.GoStmt:
			r.bindParams(n.Call, n)
		}
	})
}

// bindArgs makes values before each statement of list of the function
// literals that the statement passes to calls and that use loop
// variables.
func (r *typedRewriter) bindArgs(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for _, st := range list {
		switch st.(type) {
		case *ast.DeferStmt, *ast.GoStmt:
			out = append(out, st)
			continue
		}
		shallowInspect(st, func(n ast.Node) {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return
			}
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				if _, builtin := r.info.Uses[id].(*types.Builtin); builtin {
					return
				}
			}
			for i, a := range call.Args {
				lit, ok := ast.Unparen(a).(*ast.FuncLit)
				if !ok {
					continue
				}
				vars := r.loopVarsUsed(lit, call)
				local := false
				for _, v := range vars {
					if v.Pos() >= st.Pos() && v.Pos() < lit.Pos() {
						local = true // declared by the statement itself: not in scope before it
					}
				}
				if len(vars) == 0 || local {
					continue
				}
				t := r.temp("f", lit.Pos())
				out = append(out, &ast.AssignStmt{Lhs: []ast.Expr{t}, TokPos: lit.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{lit}})
				call.Args[i] = ident(t.Name, lit.Pos())
			}
		})
		out = append(out, st)
	}
	return out
}

// shallowInspect calls fn for the nodes of st that are not inside a
// block or a function literal's body of st.
func shallowInspect(st ast.Stmt, fn func(ast.Node)) {
	ast.Inspect(st, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause, *ast.FuncLit:
			if n != ast.Node(st) {
				fn(n)
			}
			return false
		}
		if n != nil {
			fn(n)
		}
		return true
	})
}

// receives rewrites return statements with a receive among their
// results, on which the interpreter fails:
//
//	return <-ch, err  →  { t1 := <-ch; t2 := err; return t1, t2 }
//
// (constants and nil stay in place, to keep their types).
func (r *typedRewriter) receives(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		ret, ok := c.Node().(*ast.ReturnStmt)
		if !ok {
			return true
		}
		recv := false
		for _, x := range ret.Results {
			if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				recv = true
			}
		}
		if !recv {
			return true
		}
		pos := ret.Pos()
		block := &ast.BlockStmt{Lbrace: pos, Rbrace: ret.End()}
		for i, x := range ret.Results {
			if tv, ok := r.info.Types[x]; ok && (tv.Value != nil || tv.IsNil()) {
				continue
			}
			t := r.temp("ret", pos)
			block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{t}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{x}})
			ret.Results[i] = ident(t.Name, pos)
		}
		block.List = append(block.List, ret)
		c.Replace(block)
		return true
	})
}

// mapLookups zeroes the value of a comma-ok map lookup that finds no
// key: the interpreter leaves the variable as it was (in a loop, the
// previous iteration's value), where Go sets the zero value.
//
//	v, ok := m[k]  →  v, ok := m[k]; if !ok { v = m[k] }
//
// (the lookup again, where it can be evaluated twice and does not read v
// or ok; else *new(V)).
//
// An if or switch whose init is such a lookup gets a block around it for
// the added statement.
func (r *typedRewriter) mapLookups(f *ast.File) {
	fix := func(st ast.Stmt) ast.Stmt {
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return nil
		}
		ix, ok := ast.Unparen(as.Rhs[0]).(*ast.IndexExpr)
		if !ok {
			return nil
		}
		t := r.typeOf(ix.X)
		if t == nil {
			return nil
		}
		m, ok := coreType(t).(*types.Map)
		if !ok {
			return nil
		}
		v, ok := as.Lhs[0].(*ast.Ident)
		okv, ok2 := as.Lhs[1].(*ast.Ident)
		if !ok || !ok2 || v.Name == "_" {
			return nil
		}
		pos := as.Pos()
		okName := okv.Name
		if okName == "_" {
			if as.Tok == token.ASSIGN {
				return nil // v, _ = m[k] is a plain lookup for the interpreter (below)
			}
			tmp := r.temp("ok", pos)
			as.Lhs[1] = tmp
			okName = tmp.Name
		}
		var zero ast.Expr
		if r.pure(ix.X) && r.pure(ix.Index) && !mentions(ix, map[string]bool{v.Name: true, okName: true}) {
			// The lookup again: a key that is not there gives the zero
			// value, without naming its type (*new(entry[V]) in a
			// method of a generic type failed to compile).
			zero = copyExpr(ix)
		} else {
			tx := r.typeExpr(m.Elem(), pos)
			if tx == nil {
				return nil
			}
			zero = &ast.StarExpr{Star: pos, X: &ast.CallExpr{Fun: ident("new", pos), Lparen: pos, Args: []ast.Expr{tx}, Rparen: pos}}
		}
		return &ast.IfStmt{If: pos, Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: ident(okName, pos)},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
				&ast.AssignStmt{Lhs: []ast.Expr{ident(v.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{zero}}}}}
	}
	list := func(stmts []ast.Stmt) []ast.Stmt {
		var out []ast.Stmt
		for _, st := range stmts {
			// v, _ = m[k] is v = m[k], which the interpreter gets right.
			if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.ASSIGN && len(as.Lhs) == 2 && len(as.Rhs) == 1 {
				if id, ok := as.Lhs[1].(*ast.Ident); ok && id.Name == "_" {
					if ix, ok := ast.Unparen(as.Rhs[0]).(*ast.IndexExpr); ok {
						if t := r.typeOf(ix.X); t != nil {
							if _, isMap := coreType(t).(*types.Map); isMap {
								as.Lhs = as.Lhs[:1]
							}
						}
					}
				}
			}
			switch s := st.(type) {
			case *ast.IfStmt:
				if z := fix(s.Init); z != nil {
					init := s.Init
					s.Init = nil
					out = append(out, &ast.BlockStmt{Lbrace: s.Pos(), List: []ast.Stmt{init, z, s}, Rbrace: s.End()})
					continue
				}
			case *ast.SwitchStmt:
				if z := fix(s.Init); z != nil {
					init := s.Init
					s.Init = nil
					out = append(out, &ast.BlockStmt{Lbrace: s.Pos(), List: []ast.Stmt{init, z, s}, Rbrace: s.End()})
					continue
				}
			}
			out = append(out, st)
			if z := fix(st); z != nil {
				out = append(out, z)
			}
		}
		return out
	}
	walkStmtLists(f, list, func(ast.Node) {})
}

// indexChecks checks, outside loops, the index of an index expression
// against the length first (and signed shift counts everywhere,
// checkShift): the interpreter's panic (reflection's) does
// not tell the index and the length that Go's message names.
//
//	s[i]  →  s[_sn.Index(i, len(s))]
//
// Inside loops the check would cost too much (an interpreted call for
// every element): there a panic reads "index out of range" without the
// numbers (see goPanicValue).
func (r *typedRewriter) indexChecks(f *ast.File) {
	applyInLoops(f, func(c *astutil.Cursor, loops int) {
		switch n := c.Node().(type) {
		case *ast.IndexExpr:
			if loops == 0 {
				r.checkIndex(n)
			}
		case *ast.SliceExpr:
			if loops == 0 {
				r.checkSlice(n)
			}
		case *ast.BinaryExpr:
			if n.Op == token.SHL || n.Op == token.SHR {
				r.typedShifted(n)
				if !r.shiftsChecked[n] {
					n.Y = r.checkShift(n.Y)
				}
			}
		case *ast.AssignStmt:
			if (n.Tok == token.SHL_ASSIGN || n.Tok == token.SHR_ASSIGN) && !r.shiftsChecked[n] {
				n.Rhs[0] = r.checkShift(n.Rhs[0])
			}
		}
	})
}

// signedCount reports whether n is a shift count that the interpreter
// gets wrong when negative (it shifts by the count taken as unsigned,
// where Go panics): a signed integer that is not a constant.
func (r *typedRewriter) signedCount(n ast.Expr) bool {
	tv, ok := r.info.Types[n]
	if !ok || tv.Value != nil {
		return false
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0 && b.Info()&types.IsUnsigned == 0
}

// typedShifted gives the untyped constant that a shift by a variable
// count shifts the type Go gives it, the shift's (uint16(1) << i in
// x&(1<<i), x an uint16): the interpreter gave it int, and then failed
// on the mix ("reflect: call of reflect.Value.Uint on int Value").
func (r *typedRewriter) typedShifted(sh *ast.BinaryExpr) {
	tx, ok := r.info.Types[sh.X]
	if !ok || tx.Value == nil {
		return // the checker records the type it gave an untyped constant
	}
	t, ok := r.info.Types[sh]
	if !ok || t.Value != nil || isUntyped(t.Type) || types.Identical(t.Type, types.Typ[types.Int]) {
		return
	}
	if te := r.typeExpr(t.Type, sh.X.Pos()); te != nil {
		sh.X = &ast.CallExpr{Fun: te, Lparen: sh.X.Pos(), Args: []ast.Expr{sh.X}, Rparen: sh.X.End()}
	}
}

// checkShift checks a signed shift count that is not a constant where
// shiftChecks could not check it before its statement, in and outside
// loops (a wrong result would pass silently):
//
//	x << n  →  x << _sn.Shift(int64(n))
func (r *typedRewriter) checkShift(n ast.Expr) ast.Expr {
	if !r.signedCount(n) {
		return n
	}
	return r.shiftCall(n, r.info.Types[n].Type)
}

// shiftCall is _sn.Shift(int64(n)), n of type t.
func (r *typedRewriter) shiftCall(n ast.Expr, t types.Type) ast.Expr {
	pos := n.Pos()
	arg := n
	if b, _ := t.Underlying().(*types.Basic); b == nil || b.Kind() != types.Int64 {
		arg = &ast.CallExpr{Fun: ident("int64", pos), Lparen: pos, Args: []ast.Expr{n}, Rparen: pos}
	}
	return rtCall("Shift", pos, arg).X
}

// shiftChecks checks signed shift counts before the simple statements
// (and the conditions of if statements without an init statement) that
// shift by them, where that cannot be told from checking them in place:
// the counts can be evaluated twice (pure) and the statement calls no
// function before them (nor receives), so nothing it does first changes
// them.
//
//	s += 1 << k  →  if k < 0 { _sn.Shift(int64(k)) }; s += 1 << k
//
// A comparison and a branch cost far less than the call of checkShift
// (a loop that shifts ran 5 times as long with the call).
func (r *typedRewriter) shiftChecks(f *ast.File) {
	r.shiftsChecked = map[ast.Node]bool{}
	walkStmtLists(f, func(list []ast.Stmt) []ast.Stmt {
		var out []ast.Stmt
		for i, st := range list {
			var at ast.Node = st
			switch st := st.(type) {
			case *ast.ExprStmt, *ast.AssignStmt, *ast.IncDecStmt, *ast.ReturnStmt, *ast.SendStmt:
			case *ast.IfStmt:
				at = st.Cond
				if st.Init != nil {
					at = nil
				}
			default:
				at = nil
			}
			var shifts []ast.Node
			var counts []ast.Expr
			ok := false
			if at != nil {
				shifts, counts, ok = r.stmtShifts(at)
			}
			if !ok || len(counts) == 0 {
				if out != nil {
					out = append(out, st)
				}
				continue
			}
			if out == nil {
				out = append(out, list[:i]...)
			}
			for _, n := range counts {
				pos := n.Pos()
				out = append(out, &ast.IfStmt{If: pos,
					Cond: &ast.BinaryExpr{X: copyExpr(n), OpPos: pos, Op: token.LSS, Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}},
					Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: r.shiftCall(copyExpr(n), r.info.Types[n].Type)}}, Rbrace: pos}})
			}
			for _, sh := range shifts {
				r.shiftsChecked[sh] = true
			}
			out = append(out, st)
		}
		if out == nil {
			return list
		}
		return out
	}, func(ast.Node) {})
}

// checkSlice checks the bounds of a slice expression a[lo:hi] first:
//
//	a[lo:hi]  →  a[_sn.Bounds(lo, hi, cap(a), "capacity"):hi]
//
// (length for a string or an array; a[lo:] passes len(a) for hi),
// when a and hi can be evaluated twice (lo is evaluated once, by the
// check, which returns it).
func (r *typedRewriter) checkSlice(se *ast.SliceExpr) {
	t := r.typeOf(se.X)
	if t == nil || se.Slice3 || !r.pure(se.X) || (se.High != nil && !r.pure(se.High)) {
		return
	}
	limit, what := "cap", "capacity"
	switch u := coreType(t).(type) {
	case *types.Slice:
	case *types.Array:
		limit, what = "len", "length"
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			return
		}
		limit, what = "len", "length"
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return
		}
		limit, what = "len", "length"
	default:
		return
	}
	pos := se.Lbrack
	asInt := func(x ast.Expr) ast.Expr {
		if tv, ok := r.info.Types[x]; ok {
			if b, ok := tv.Type.Underlying().(*types.Basic); ok && (b.Kind() == types.Int || b.Kind() == types.UntypedInt) {
				return copyExpr(x)
			}
		}
		return &ast.CallExpr{Fun: ident("int", pos), Lparen: pos, Args: []ast.Expr{copyExpr(x)}, Rparen: pos}
	}
	var lo, hi ast.Expr = &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"},
		&ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{copyExpr(se.X)}, Rparen: pos}
	if se.Low != nil {
		lo = asInt(se.Low)
	}
	if se.High != nil {
		hi = asInt(se.High)
	}
	bound := &ast.CallExpr{Fun: ident(limit, pos), Lparen: pos, Args: []ast.Expr{copyExpr(se.X)}, Rparen: pos}
	check := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Bounds", pos)}, Lparen: pos,
		Args: []ast.Expr{lo, hi, bound, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(what)}}, Rparen: pos}
	se.Low = check // a[:hi]: the check runs as the (zero) low bound
}

func (r *typedRewriter) checkIndex(ix *ast.IndexExpr) {
	t := r.typeOf(ix.X)
	if t == nil || !r.pure(ix.X) {
		return
	}
	if tv, ok := r.info.Types[ix]; !ok || !tv.IsValue() {
		return // a generic instantiation
	}
	isArray := false
	switch u := coreType(t).(type) {
	case *types.Slice:
	case *types.Array:
		isArray = true
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			return
		}
		isArray = true
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return
		}
	default:
		return
	}
	itv, ok := r.info.Types[ix.Index]
	if !ok || (isArray && itv.Value != nil) {
		return // checked by the compiler
	}
	pos := ix.Index.Pos()
	idx := ix.Index
	if b, ok := itv.Type.Underlying().(*types.Basic); !ok || b.Kind() != types.Int && b.Kind() != types.UntypedInt {
		idx = &ast.CallExpr{Fun: ident("int", pos), Lparen: pos, Args: []ast.Expr{idx}, Rparen: pos}
	}
	n := &ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{copyExpr(ix.X)}, Rparen: pos}
	ix.Index = &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Index", pos)}, Lparen: pos, Args: []ast.Expr{idx, n}, Rparen: pos}
}

// pure reports whether evaluating x twice is harmless: names, constants,
// selectors, indexes and operations of them (i+1, -i, *p, but not a
// receive), calls of the builtins len and cap, conversions, and the
// checks that indexChecks puts in (an index expression inside another,
// s[i][j+1], is checked inside out). copyExpr copies x for its second
// use.
func (r *typedRewriter) pure(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return r.pure(x.X)
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && id.Name == rtName {
			return false
		}
		return r.pure(x.X)
	case *ast.IndexExpr:
		return r.pure(x.X) && r.pure(x.Index)
	case *ast.StarExpr:
		return r.pure(x.X)
	case *ast.BinaryExpr:
		return r.pure(x.X) && r.pure(x.Y)
	case *ast.UnaryExpr:
		return x.Op != token.ARROW && r.pure(x.X)
	case *ast.CallExpr:
		if x.Ellipsis.IsValid() {
			return false
		}
		for _, a := range x.Args {
			if !r.pure(a) {
				return false
			}
		}
		switch f := ast.Unparen(x.Fun).(type) {
		case *ast.SelectorExpr:
			if id, ok := f.X.(*ast.Ident); ok && id.Name == rtName {
				return f.Sel.Name == "Index" || f.Sel.Name == "Bounds"
			}
		case *ast.Ident:
			if f.Name != "len" && f.Name != "cap" {
				break
			}
			obj, ok := r.info.Uses[f]
			if !ok {
				return true // put in by a rewrite
			}
			if _, ok := obj.(*types.Builtin); ok {
				return true
			}
		}
		tv, ok := r.info.Types[x.Fun]
		return ok && tv.IsType() && len(x.Args) == 1
	}
	return false
}

// runeConstant makes x := 'a' at the top level declare a rune: the
// interpreter gives a top-level variable of an untyped rune constant the
// type int.
func (r *typedRewriter) runeConstant(st ast.Stmt) {
	var lhs []ast.Expr
	var rhs []ast.Expr
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok != token.DEFINE {
			return
		}
		lhs, rhs = st.Lhs, st.Rhs
	case *ast.DeclStmt:
		gd, ok := st.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR || len(gd.Specs) != 1 {
			return
		}
		vs := gd.Specs[0].(*ast.ValueSpec)
		if vs.Type != nil {
			return
		}
		for _, n := range vs.Names {
			lhs = append(lhs, n)
		}
		rhs = vs.Values
	default:
		return
	}
	if len(lhs) != len(rhs) {
		return
	}
	for i, l := range lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			continue
		}
		obj := r.info.Defs[id]
		if obj == nil {
			continue
		}
		if b, ok := obj.Type().(*types.Basic); !ok || b.Kind() != types.Int32 {
			continue
		}
		if tv := r.info.Types[rhs[i]]; tv.Value == nil {
			continue
		}
		pos := rhs[i].Pos()
		rhs[i] = &ast.CallExpr{Fun: ident("rune", pos), Lparen: pos, Args: []ast.Expr{rhs[i]}, Rparen: pos}
	}
}

// zeroDivisors rewrites a float (or complex) division by the constant
// zero, which Go allows (the result is an infinity or a NaN) and the
// interpreter refuses: the zero comes from the runtime instead.
//
//	f / 0  →  f / float64(_sn.Zero())
func (r *typedRewriter) zeroDivisors(f *ast.File) {
	zero := func(y ast.Expr, t types.Type) ast.Expr {
		tv, ok := r.info.Types[y]
		if !ok || tv.Value == nil || constant.Sign(tv.Value) != 0 {
			return nil
		}
		b, ok := t.Underlying().(*types.Basic)
		if !ok || b.Info()&(types.IsFloat|types.IsComplex) == 0 {
			return nil
		}
		tx := r.typeExpr(t, y.Pos())
		if tx == nil {
			return nil
		}
		pos := y.Pos()
		var z ast.Expr = &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Zero", pos)}, Lparen: pos, Rparen: pos}
		if b.Info()&types.IsComplex != 0 {
			z = &ast.CallExpr{Fun: ident("complex", pos), Lparen: pos, Args: []ast.Expr{z, &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}}, Rparen: pos}
		}
		return &ast.CallExpr{Fun: tx, Lparen: pos, Args: []ast.Expr{z}, Rparen: pos}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.QUO {
				if t := r.typeOf(n); t != nil {
					if z := zero(n.Y, t); z != nil {
						n.Y = z
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.QUO_ASSIGN && len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if t := r.typeOf(n.Lhs[0]); t != nil {
					if z := zero(n.Rhs[0], t); z != nil {
						n.Rhs[0] = z
					}
				}
			}
		}
		return true
	})
}

// mainRef is the name mainRefs gives a file's uses of its function main,
// which runDecls renames with the function.
const mainRef = rtName + "_mainref"

// mainRefs marks the uses of a whole file's function main (a call of it,
// or main as a value), which Go allows: runDecls runs the function under
// another name, so that a later input does not run it again.
func (r *typedRewriter) mainRefs(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || id.Name != "main" {
			return true
		}
		if fn, ok := r.info.Uses[id].(*types.Func); ok && fn.Parent() != nil && fn.Parent() == fn.Pkg().Scope() {
			id.Name = mainRef
		}
		return true
	})
}

// stmtShifts returns the shifts by signed counts in n (a statement, or
// an if statement's condition) outside function literals, and their
// counts; ok is false when one of those counts is not pure, or n calls a
// function (other than len, cap, a conversion or the shell's checks) or
// receives: then a count checked before n might differ from the count
// shifted by.
func (r *typedRewriter) stmtShifts(n ast.Node) (shifts []ast.Node, counts []ast.Expr, ok bool) {
	ok = true
	add := func(sh ast.Node, count ast.Expr) {
		if !r.signedCount(count) {
			return
		}
		if !r.pure(count) {
			ok = false
			return
		}
		shifts, counts = append(shifts, sh), append(counts, count)
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if !r.pure(&ast.CallExpr{Fun: x.Fun}) {
				ok = false
			}
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				ok = false
			}
		case *ast.BinaryExpr:
			if x.Op == token.SHL || x.Op == token.SHR {
				add(x, x.Y)
			}
		case *ast.AssignStmt:
			if x.Tok == token.SHL_ASSIGN || x.Tok == token.SHR_ASSIGN {
				add(x, x.Rhs[0])
			}
		}
		return ok
	})
	return shifts, counts, ok
}

// isUntyped reports whether t is an untyped constant's type.
func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// applyInLoops runs post on every node under root after its children, as
// astutil.Apply's post function, with the number of for and range
// statements around it, counted afresh inside each function literal: the
// rewrites that cost too much in loops leave them out.
func applyInLoops(root ast.Node, post func(c *astutil.Cursor, loops int)) {
	n := 0
	var saved []int // the counts outside the enclosing function literals
	astutil.Apply(root, func(c *astutil.Cursor) bool {
		switch c.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.FuncLit:
			saved = append(saved, n)
			n = 0
		}
		return true
	}, func(c *astutil.Cursor) bool {
		switch c.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			n--
		case *ast.FuncLit:
			n = saved[len(saved)-1]
			saved = saved[:len(saved)-1]
		}
		post(c, n)
		return true
	})
}

// switchInits moves the init statement of a switch with a tag that is
// not a name into a block around it:
//
//	switch x := f(); x * 2 { ... }
//
// becomes { x := f(); switch x * 2 { ... } }, with a label kept on the
// switch: the interpreter evaluated no such tag after an init, and went
// to the default case (a tag that is a name it evaluates).
func (r *typedRewriter) switchInits(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		st, _ := c.Node().(ast.Stmt)
		inner := st
		if l, ok := st.(*ast.LabeledStmt); ok {
			inner = l.Stmt
		}
		sw, ok := inner.(*ast.SwitchStmt)
		if !ok || sw.Init == nil || sw.Tag == nil {
			return true
		}
		if _, ok := ast.Unparen(sw.Tag).(*ast.Ident); ok {
			return true
		}
		if _, ok := c.Parent().(*ast.LabeledStmt); ok {
			return true // replaced with its label
		}
		init := sw.Init
		sw.Init = nil
		c.Replace(&ast.BlockStmt{Lbrace: sw.Pos(), List: []ast.Stmt{init, st}, Rbrace: sw.End()})
		return true
	})
}

// builtinResults puts in parentheses a call of a builtin (len, cap,
// append, make, new, complex, real, imag, copy) that is a result of a
// return statement after the first:
//
//	return 0, len(b)
//
// becomes return 0, (len(b)): the interpreter stored such a call's value
// in the first result ("0 0", or a panic where the types differ).
func (r *typedRewriter) builtinResults(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) < 2 {
			return true
		}
		for i, x := range ret.Results[1:] {
			call, ok := x.(*ast.CallExpr)
			if !ok {
				continue
			}
			id, ok := ast.Unparen(call.Fun).(*ast.Ident)
			if !ok {
				continue
			}
			if obj, known := r.info.Uses[id]; known {
				if _, ok := obj.(*types.Builtin); !ok {
					continue
				}
			} else if types.Universe.Lookup(id.Name) == nil {
				continue
			}
			if _, ok := types.Universe.Lookup(id.Name).(*types.Builtin); ok {
				ret.Results[i+1] = &ast.ParenExpr{Lparen: call.Pos(), X: call, Rparen: call.End()}
			}
		}
		return true
	})
}

// packageVars reads and assigns a variable of a basic type of a
// compiled package through its address:
//
//	ndarray.PrintPrecision = 2
//	old := runtime.MemProfileRate
//
// become *&ndarray.PrintPrecision = 2 and old := *&runtime.MemProfileRate:
// the interpreter took such a variable for a constant, refusing the
// assignment ("cannot assign to 4 (int constant)") and reading the value
// the variable had when the input was compiled.
func (r *typedRewriter) packageVars(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		sel, ok := c.Node().(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if u, ok := c.Parent().(*ast.UnaryExpr); ok && u.Op == token.AND {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if _, ok := r.info.Uses[x].(*types.PkgName); !ok {
			return true
		}
		v, ok := r.info.Uses[sel.Sel].(*types.Var)
		if !ok || v.Pkg() == nil || v.Pkg().Path() == "main" {
			return true
		}
		if _, basic := v.Type().Underlying().(*types.Basic); !basic {
			return true
		}
		pos := sel.Pos()
		addr := &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: sel}
		star := &ast.StarExpr{Star: pos, X: addr}
		tv := r.info.Types[sel]
		r.info.Types[addr] = types.TypeAndValue{Type: types.NewPointer(v.Type())}
		r.info.Types[star] = tv
		c.Replace(&ast.ParenExpr{Lparen: pos, X: star, Rparen: sel.End()})
		r.info.Types[c.Node().(ast.Expr)] = tv
		return true
	})
}

// blankVars drops a declaration of blank variables without values in a
// function (var _ int), which declares nothing: the interpreter refused
// it ("cannot use _ as value").
func (r *typedRewriter) blankVars(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		ds, ok := c.Node().(*ast.DeclStmt)
		if !ok {
			return true
		}
		gd, ok := ds.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return true
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) > 0 || slices.ContainsFunc(vs.Names, func(n *ast.Ident) bool { return n.Name != "_" }) {
				return true
			}
		}
		if _, inList := c.Parent().(*ast.BlockStmt); inList {
			c.Delete()
		} else if _, inCase := c.Parent().(*ast.CaseClause); inCase {
			c.Delete()
		} else if _, inComm := c.Parent().(*ast.CommClause); inComm {
			c.Delete()
		}
		return true
	})
}

// topRecovers makes a call of recover among top-level statements,
// outside any function, nil, which Go's is there (no deferred call runs
// it): the interpreter's ended the input with a nil dereference.
func (r *typedRewriter) topRecovers(body *ast.BlockStmt) {
	astutil.Apply(body, func(c *astutil.Cursor) bool {
		_, lit := c.Node().(*ast.FuncLit)
		return !lit
	}, func(c *astutil.Cursor) bool {
		call, ok := c.Node().(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return true
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		if b, ok := r.info.Uses[id].(*types.Builtin); ok && b.Name() == "recover" {
			pos := call.Pos()
			c.Replace(&ast.CallExpr{Fun: ident("any", pos), Lparen: pos, Args: []ast.Expr{ident("nil", pos)}, Rparen: call.End()})
		}
		return true
	})
}

// taglessCases joins the expressions of a case of a switch without a tag
// into one:
//
//	switch { case a, b: ... }
//
// becomes switch { case a || b: ... }, which Go's rule gives the same
// meaning (the expressions tried left to right, up to the first true
// one; each is of type bool): the interpreter tried the first
// expression alone.
func (r *typedRewriter) taglessCases(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok || sw.Tag != nil {
			return true
		}
		for _, st := range sw.Body.List {
			cc, ok := st.(*ast.CaseClause)
			if !ok || len(cc.List) < 2 {
				continue
			}
			var joined ast.Expr
			for _, e := range cc.List {
				pos := e.Pos()
				x := &ast.ParenExpr{Lparen: pos, X: e, Rparen: pos}
				if joined == nil {
					joined = x
				} else {
					joined = &ast.BinaryExpr{X: joined, OpPos: pos, Op: token.LOR, Y: x}
				}
			}
			cc.List = []ast.Expr{joined}
		}
		return true
	})
}

// nilAssigns gives each nil of an assignment of several values the type
// of its variable:
//
//	cur, n = nil, 0
//
// becomes cur, n = ([]string)(nil), 0: the interpreter failed on an
// untyped nil among several values ("reflect: New(nil)").
func (r *typedRewriter) nilAssigns(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, x := range as.Rhs {
			if tv, ok := r.info.Types[x]; !ok || !tv.IsNil() {
				continue
			}
			t := r.typeOf(as.Lhs[i])
			if t == nil {
				continue
			}
			if tx := r.typeExpr(t, x.Pos()); tx != nil {
				as.Rhs[i] = &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: x.Pos(), X: tx, Rparen: x.Pos()}, Lparen: x.Pos(), Args: []ast.Expr{x}, Rparen: x.End()}
			}
		}
		return true
	})
}

// deferPanics runs the calls that a function deferred before a deferred
// call that panics, and lets a recover deferred before it see that
// panic, as Go does: the interpreter runs a function's deferred calls in
// a loop that such a panic leaves, so the earlier ones never ran (a
// deferred Unlock or Close after a recover that panics again). In a
// function that defers two calls or more, each deferred call keeps a
// panic of its own in variables of the function (a literal that calls
// recover, by a call it defers itself),
//
//	defer f(x)  →  defer func() { defer func() { if r := recover(); r != nil { pp, pset = r, true } }(); f(x) }()
//
// which the literals' recover returns first (taking it), and a call
// deferred ahead of all the others panics again with it when none took
// it:
//
//	var pp any; var pset bool
//	defer func() { if pset { panic(pp) } }()
//
// The top-level statements (top: f is a statement chunk, whose function
// holds them) are left to defers.
func (r *typedRewriter) deferPanics(f *ast.File, top bool) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if fn.Body != nil && !top {
				r.deferPanicsIn(fn.Body)
			}
		case *ast.FuncLit:
			r.deferPanicsIn(fn.Body)
		}
		return true
	})
}

func (r *typedRewriter) deferPanicsIn(body *ast.BlockStmt) {
	var defers []*ast.DeferStmt
	var recovering []*ast.FuncLit
	inLoop := false
	var walk func(n ast.Node, loop bool)
	walk = func(n ast.Node, loop bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt:
				if !loop {
					walk(n.(ast.Stmt), true)
					return false
				}
			case *ast.DeferStmt:
				defers = append(defers, n)
				inLoop = inLoop || loop
				if lit, ok := n.Call.Fun.(*ast.FuncLit); ok && callsRecover(lit.Body) {
					recovering = append(recovering, lit)
				}
			}
			return true
		})
	}
	walk(body, false)
	// In a loop the wrapped call would be evaluated when it runs, with
	// the values of the loop's last iteration (the interpreter has one
	// variable for all of them): such functions are left as they are.
	if len(defers) < 2 || inLoop {
		return
	}
	pos := body.Lbrace
	pp, pset := r.temp("pp", pos), r.temp("pset", pos)
	for _, d := range defers {
		p := d.Pos()
		rv := r.temp("r", p)
		keep := &ast.DeferStmt{Defer: p, Call: &ast.CallExpr{Fun: &ast.FuncLit{
			Type: &ast.FuncType{Func: p, Params: &ast.FieldList{Opening: p, Closing: p}},
			Body: &ast.BlockStmt{Lbrace: p, Rbrace: p, List: []ast.Stmt{&ast.IfStmt{If: p,
				Init: &ast.AssignStmt{Lhs: []ast.Expr{rv}, TokPos: p, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.CallExpr{Fun: ident("recover", p), Lparen: p, Rparen: p}}},
				Cond: &ast.BinaryExpr{X: ident(rv.Name, p), OpPos: p, Op: token.NEQ, Y: ident("nil", p)},
				Body: &ast.BlockStmt{Lbrace: p, Rbrace: p, List: []ast.Stmt{&ast.AssignStmt{
					Lhs: []ast.Expr{ident(pp.Name, p), ident(pset.Name, p)}, TokPos: p, Tok: token.ASSIGN,
					Rhs: []ast.Expr{ident(rv.Name, p), ident("true", p)}}}}}}},
		}, Lparen: p, Rparen: p}}
		if lit, ok := d.Call.Fun.(*ast.FuncLit); ok && slices.Contains(recovering, lit) {
			// Its recover takes the kept panic first; a panic of its
			// own, after it (a recover, then panic again), is kept by a
			// call it defers: a literal around it would hide the
			// panic it recovers from its recover.
			r.pendingRecover(lit.Body, pp.Name, pset.Name)
			lit.Body.List = append([]ast.Stmt{keep}, lit.Body.List...)
			continue
		}
		d.Call = &ast.CallExpr{Fun: &ast.FuncLit{
			Type: &ast.FuncType{Func: p, Params: &ast.FieldList{Opening: p, Closing: p}},
			Body: &ast.BlockStmt{Lbrace: p, Rbrace: d.End(), List: []ast.Stmt{keep, &ast.ExprStmt{X: d.Call}}},
		}, Lparen: p, Rparen: p}
	}
	repanic := &ast.DeferStmt{Defer: pos, Call: &ast.CallExpr{Fun: &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.IfStmt{If: pos, Cond: ident(pset.Name, pos),
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{
				Fun: ident("panic", pos), Lparen: pos, Args: []ast.Expr{ident(pp.Name, pos)}, Rparen: pos}}}}}}},
	}, Lparen: pos, Rparen: pos}}
	body.List = append([]ast.Stmt{varDecl(pp, ident("any", pos)), varDecl(pset, ident("bool", pos)), repanic}, body.List...)
}

// pendingRecover makes each recover() of body, outside function
// literals, return the panic that deferPanics kept (pp, when pset), and
// take it:
//
//	func(r any) any { if pset { pset = false; return pp }; return r }(recover())
func (r *typedRewriter) pendingRecover(body *ast.BlockStmt, pp, pset string) {
	astutil.Apply(body, func(c *astutil.Cursor) bool {
		_, isLit := c.Node().(*ast.FuncLit)
		return !isLit
	}, func(c *astutil.Cursor) bool {
		call, ok := c.Node().(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return true
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok || id.Name != "recover" {
			return true
		}
		if _, isBuiltin := r.info.Uses[id].(*types.Builtin); !isBuiltin {
			return true
		}
		p := call.Pos()
		rv := r.temp("r", p)
		c.Replace(&ast.CallExpr{Fun: &ast.FuncLit{
			Type: &ast.FuncType{Func: p,
				Params:  &ast.FieldList{Opening: p, Closing: p, List: []*ast.Field{{Names: []*ast.Ident{rv}, Type: ident("any", p)}}},
				Results: &ast.FieldList{Opening: p, Closing: p, List: []*ast.Field{{Type: ident("any", p)}}}},
			Body: &ast.BlockStmt{Lbrace: p, Rbrace: p, List: []ast.Stmt{
				&ast.IfStmt{If: p, Cond: ident(pset, p), Body: &ast.BlockStmt{Lbrace: p, Rbrace: p, List: []ast.Stmt{
					&ast.AssignStmt{Lhs: []ast.Expr{ident(pset, p)}, TokPos: p, Tok: token.ASSIGN, Rhs: []ast.Expr{ident("false", p)}},
					&ast.ReturnStmt{Return: p, Results: []ast.Expr{ident(pp, p)}}}}},
				&ast.ReturnStmt{Return: p, Results: []ast.Expr{ident(rv.Name, p)}}}},
		}, Lparen: p, Args: []ast.Expr{call}, Rparen: p})
		return true
	})
}

// parenReceives puts in parentheses a receive that is the value of an
// assignment, a definition or a var declaration of as many variables
// as values (n := <-ch, x = <-ch, var n = <-ch), outside select cases:
// the interpreter stored the received value in a way that a later
// assignment to the variable (n = 2, n++) panicked with "reflect.Value.Set
// using unaddressable value"; (<-ch) it stores as any other value.
func (r *typedRewriter) parenReceives(f *ast.File) {
	comms := map[ast.Stmt]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CommClause); ok && cc.Comm != nil {
			comms[cc.Comm] = true
		}
		return true
	})
	paren := func(xs []ast.Expr) {
		for i, x := range xs {
			if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				xs[i] = &ast.ParenExpr{Lparen: u.Pos(), X: u, Rparen: u.End()}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if !comms[n] && len(n.Lhs) == len(n.Rhs) {
				paren(n.Rhs)
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				paren(n.Values)
			}
		}
		return true
	})
}
