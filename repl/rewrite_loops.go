package repl

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/ast/astutil"
)

// ranges rewrites range over an integer into a counting loop and range
// over a function into a call of the function with a yield function,
// which the interpreter does not support, and a range over a slice or
// an array whose body changes the index (rangeKeyCopy).
func (r *typedRewriter) ranges(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		rs, ok := c.Node().(*ast.RangeStmt)
		if !ok {
			return true
		}
		t := r.typeOf(rs.X)
		if t == nil {
			return true
		}
		switch u := coreType(t).(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger != 0 {
				if st := r.rangeInt(rs, t); st != nil {
					c.Replace(st)
				}
			}
		case *types.Signature:
			if st := r.rangeFunc(rs, u); st != nil {
				c.Replace(st)
			}
		case *types.Slice, *types.Array, *types.Pointer:
			r.rangeKeyCopy(rs)
		}
		return true
	})
}

// rangeKeyCopy rewrites for i, v := range s (a slice or an array) whose
// body changes i into
//
//	for t, v := range s { i := t; ... }
//
// The interpreter counts the iterations in i itself, so that i += 10
// skipped ten elements, where the body changes its copy alone.
func (r *typedRewriter) rangeKeyCopy(rs *ast.RangeStmt) {
	key, ok := rs.Key.(*ast.Ident)
	if !ok || rs.Tok != token.DEFINE || key.Name == "_" {
		return
	}
	obj := r.info.Defs[key]
	if obj == nil || !assigns(rs.Body, obj, r.info) {
		return
	}
	t := r.temp("i", key.Pos())
	rs.Key = t
	rs.Body.List = append([]ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{key}, TokPos: key.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{ident(t.Name, key.Pos())}}}, rs.Body.List...)
}

// rangeInt rewrites for i := range n into
//
//	for i, lim := T(0), n; i < lim; i++ { ... }
//
// with T the type of i (n is evaluated once, before the loop).
func (r *typedRewriter) rangeInt(rs *ast.RangeStmt, xt types.Type) ast.Stmt {
	pos := rs.For
	kt := xt
	if b, ok := xt.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		kt = types.Typ[types.Int]
	}
	key, _ := rs.Key.(*ast.Ident)
	tok := rs.Tok
	if key != nil && tok == token.ASSIGN {
		if obj := r.info.Uses[key]; obj != nil {
			kt = obj.Type()
		}
	} else if key != nil {
		if obj := r.info.Defs[key]; obj != nil {
			kt = obj.Type()
		}
	}
	if key == nil || key.Name == "_" {
		key, tok = r.temp("i", pos), token.DEFINE
	} else if rs.Key != nil {
		if _, isIdent := rs.Key.(*ast.Ident); !isIdent {
			return nil // for a.b = range n: rare, left to the interpreter
		}
	}
	zero := ast.Expr(&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"})
	if b, ok := kt.(*types.Basic); !ok || b.Kind() != types.Int {
		t := r.typeExpr(kt, pos)
		if t == nil {
			return nil
		}
		zero = &ast.CallExpr{Fun: t, Lparen: pos, Args: []ast.Expr{zero}, Rparen: pos}
	}
	lim := r.temp("n", pos)
	// The new uses of the key are recorded, for the rewrites after this
	// one (loopVars).
	var keyObj types.Object
	if tok == token.DEFINE {
		keyObj = r.info.Defs[key]
	} else {
		keyObj = r.info.Uses[key]
	}
	use := func() *ast.Ident {
		id := ident(key.Name, pos)
		if keyObj != nil {
			r.info.Uses[id] = keyObj
		}
		return id
	}
	cond := &ast.BinaryExpr{X: use(), OpPos: pos, Op: token.LSS, Y: lim}
	post := &ast.IncDecStmt{X: use(), TokPos: pos, Tok: token.INC}
	if tok == token.ASSIGN {
		// for i = range n: i exists already; it is assigned each value.
		t := r.temp("i", pos)
		typ := r.typeExpr(kt, pos)
		if typ == nil {
			return nil
		}
		assign := &ast.AssignStmt{Lhs: []ast.Expr{use()}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(t.Name, pos)}}
		rs.Body.List = append([]ast.Stmt{assign}, rs.Body.List...)
		return &ast.BlockStmt{Lbrace: pos, Rbrace: rs.End(), List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{lim}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.CallExpr{Fun: typ, Lparen: pos, Args: []ast.Expr{rs.X}, Rparen: pos}}},
			&ast.ForStmt{For: pos, Init: &ast.AssignStmt{Lhs: []ast.Expr{t}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{zero}},
				Cond: &ast.BinaryExpr{X: ident(t.Name, pos), OpPos: pos, Op: token.LSS, Y: ident(lim.Name, pos)},
				Post: &ast.IncDecStmt{X: ident(t.Name, pos), TokPos: pos, Tok: token.INC}, Body: rs.Body},
		}}
	}
	if keyObj != nil && assigns(rs.Body, keyObj, r.info) {
		// The body changes its copy of the value (i += 10), which
		// changes nothing of the loop's: the loop counts in a variable
		// of its own, and each iteration declares i with its value.
		t := r.temp("i", pos)
		def := ident(key.Name, pos)
		r.info.Defs[def] = keyObj
		rs.Body.List = append([]ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{def}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{ident(t.Name, pos)}}}, rs.Body.List...)
		key, cond, post = t, &ast.BinaryExpr{X: ident(t.Name, pos), OpPos: pos, Op: token.LSS, Y: lim}, &ast.IncDecStmt{X: ident(t.Name, pos), TokPos: pos, Tok: token.INC}
	}
	limInit := rs.X
	if b, ok := xt.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 && !types.Identical(kt, types.Typ[types.Int]) {
		t := r.typeExpr(kt, pos)
		if t == nil {
			return nil
		}
		limInit = &ast.CallExpr{Fun: t, Lparen: pos, Args: []ast.Expr{rs.X}, Rparen: pos}
	}
	return &ast.ForStmt{
		For:  pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{key, lim}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{zero, limInit}},
		Cond: cond,
		Post: post,
		Body: rs.Body,
	}
}

// assigns reports whether body assigns to the variable obj, changes it
// with ++ or --, or takes its address.
func assigns(body ast.Node, obj types.Object, info *types.Info) bool {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.Uses[id] == obj
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					found = found || is(l)
				}
			}
		case *ast.IncDecStmt:
			found = found || is(n.X)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && is(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				found = found || n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value)
			}
		}
		return !found
	})
	return found
}

// rangeFunc rewrites a range over the function f, of type sig, whose
// parameter is a yield function:
//
//	for k, v := range f { body }
//
// becomes
//
//	{
//		var ret bool; var r0 R0; var jump int
//		f(func(k K, v V) bool { body'; return true })
//		if ret { return r0 }
//		if jump == 1 { break L }
//	}
//
// where body' continues with return true, breaks with return false, and
// returns from the enclosing function, or breaks or continues an outer
// loop, by setting ret or jump and returning false.
func (r *typedRewriter) rangeFunc(rs *ast.RangeStmt, sig *types.Signature) ast.Stmt {
	if sig.Params().Len() != 1 {
		return nil
	}
	yield, ok := coreType(sig.Params().At(0).Type()).(*types.Signature)
	if !ok {
		return nil
	}
	pos := rs.For
	// The yield function's parameters: the loop variables, or
	// temporaries assigned to them.
	params := &ast.FieldList{Opening: pos, Closing: pos}
	var pre []ast.Stmt
	vars := []ast.Expr{rs.Key, rs.Value}
	var assignLhs, assignRhs []ast.Expr
	for i := range yield.Params().Len() {
		t := r.typeExpr(yield.Params().At(i).Type(), pos)
		if t == nil {
			return nil
		}
		var name *ast.Ident
		v := vars[i]
		switch {
		case v == nil:
			name = ident("_", pos)
		case rs.Tok == token.DEFINE:
			name, _ = v.(*ast.Ident)
			if name == nil {
				return nil
			}
		default: // for k, v = range f: assigned in each iteration
			name = r.temp("y", pos)
			if id, ok := v.(*ast.Ident); !ok || id.Name != "_" {
				assignLhs = append(assignLhs, v)
				assignRhs = append(assignRhs, ident(name.Name, pos))
			}
		}
		params.List = append(params.List, &ast.Field{Names: []*ast.Ident{name}, Type: t})
	}
	if len(assignLhs) > 0 {
		pre = append(pre, &ast.AssignStmt{Lhs: assignLhs, TokPos: pos, Tok: token.ASSIGN, Rhs: assignRhs})
	}
	fn := r.enclosingFunc(rs)
	if fn == nil {
		return nil
	}
	rf := &rangeFuncRewrite{r: r, pos: pos, fn: fn}
	if l := r.labelOf(rs); l != nil {
		rf.label = l.Name
	}
	body := rf.body(rs.Body)
	if rf.err != nil {
		r.fail(rf.err)
		return nil
	}
	body.List = append(append(pre, body.List...), &ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("true", pos)}})
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: params, Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("bool", pos)}}}},
		Body: body,
	}
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: rs.End()}
	block.List = append(block.List, rf.decls...)
	block.List = append(block.List, &ast.ExprStmt{X: &ast.CallExpr{Fun: rs.X, Lparen: pos, Args: []ast.Expr{lit}, Rparen: pos}})
	block.List = append(block.List, rf.after...)
	return block
}

// enclosingFunc returns the function declaration or literal that n is
// in, or nil.
func (r *typedRewriter) enclosingFunc(n ast.Node) ast.Node {
	for p := r.parents[n]; p != nil; p = r.parents[p] {
		switch p.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return p
		}
	}
	return nil
}

// parentMap maps every node of root to its parent.
func parentMap(root ast.Node) map[ast.Node]ast.Node {
	parents := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if len(stack) > 0 {
			parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	return parents
}

// rangeFuncRewrite rewrites the body of a range over a function into
// the body of its yield function.
type rangeFuncRewrite struct {
	r     *typedRewriter
	pos   token.Pos
	fn    ast.Node // the enclosing function
	label string   // the loop's label, or ""
	err   error

	ret     *ast.Ident   // set when the body returns from fn
	results []*ast.Ident // where the results go, for a function without named results
	jump    *ast.Ident   // which outer loop to break or continue
	jumps   []ast.Stmt   // the break or continue statement of each jump
	decls   []ast.Stmt   // the declarations of ret, results and jump
	after   []ast.Stmt   // what runs after the call: returns and jumps
	own     map[ast.Stmt]bool
}

// resultTypes returns the result types of the enclosing function, and
// the names of its results if they are named.
func (rf *rangeFuncRewrite) resultTypes() (*types.Tuple, []*ast.Ident) {
	var sig *types.Signature
	var ft *ast.FuncType
	switch fn := rf.fn.(type) {
	case *ast.FuncDecl:
		ft = fn.Type
		if obj, ok := rf.r.info.Defs[fn.Name].(*types.Func); ok {
			sig = obj.Signature()
		}
	case *ast.FuncLit:
		ft = fn.Type
		sig, _ = rf.r.typeOf(fn).(*types.Signature)
	}
	if sig == nil {
		return types.NewTuple(), nil // the function a top-level statement runs in
	}
	var names []*ast.Ident
	if ft.Results != nil {
		for _, f := range ft.Results.List {
			names = append(names, f.Names...)
		}
	}
	return sig.Results(), names
}

func (rf *rangeFuncRewrite) gen(st ast.Stmt) ast.Stmt {
	rf.own[st] = true
	return st
}

func (rf *rangeFuncRewrite) returnBool(v bool) ast.Stmt {
	return rf.gen(&ast.ReturnStmt{Return: rf.pos, Results: []ast.Expr{ident(strconv.FormatBool(v), rf.pos)}})
}

// body rewrites the loop body (in place) and returns it.
func (rf *rangeFuncRewrite) body(b *ast.BlockStmt) *ast.BlockStmt {
	rf.own = map[ast.Stmt]bool{}
	pos := rf.pos
	inner := map[string]bool{} // labels declared in the body
	ast.Inspect(b, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			inner[n.Label.Name] = true
		}
		return true
	})
	var stack []ast.Node // the loops, switches and selects the walk is in
	astutil.Apply(b, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			stack = append(stack, n)
		case *ast.DeferStmt:
			rf.fail(n.Pos(), "defer in the body of a range over a function is not supported by the shell: the deferred call would run when the iteration ends")
		case *ast.ReturnStmt:
			if !rf.own[n] {
				c.Replace(rf.returnFrom(n))
			}
		case *ast.BranchStmt:
			if st := rf.branch(n, stack, inner); st != nil {
				c.Replace(st)
			}
		}
		return true
	}, func(c *astutil.Cursor) bool {
		switch c.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			stack = stack[:len(stack)-1]
		}
		return true
	})
	_ = pos
	return b
}

func (rf *rangeFuncRewrite) fail(pos token.Pos, msg string) {
	if rf.err == nil {
		rf.err = posErrorf(rf.r.s.in.FileSet(), pos, "%s", msg)
	}
}

// returnFrom rewrites a return from the enclosing function.
func (rf *rangeFuncRewrite) returnFrom(ret *ast.ReturnStmt) ast.Stmt {
	pos := ret.Pos()
	results, named := rf.resultTypes()
	if rf.ret == nil {
		rf.ret = rf.r.temp("ret", rf.pos)
		rf.decls = append(rf.decls, varDecl(rf.ret, ident("bool", rf.pos)))
		after := &ast.ReturnStmt{Return: rf.pos}
		if len(named) == 0 && results.Len() > 0 {
			for i := range results.Len() {
				t := rf.r.typeExpr(results.At(i).Type(), rf.pos)
				if t == nil {
					rf.fail(pos, "the shell cannot write the result types of this function")
					return ret
				}
				id := rf.r.temp("r", rf.pos)
				rf.results = append(rf.results, id)
				rf.decls = append(rf.decls, varDecl(id, t))
				after.Results = append(after.Results, ident(id.Name, rf.pos))
			}
		}
		rf.after = append(rf.after, &ast.IfStmt{If: rf.pos, Cond: ident(rf.ret.Name, rf.pos), Body: &ast.BlockStmt{Lbrace: rf.pos, List: []ast.Stmt{after}, Rbrace: rf.pos}})
	}
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: ret.End()}
	if len(ret.Results) > 0 {
		var lhs []ast.Expr
		if len(named) > 0 {
			for _, n := range named {
				lhs = append(lhs, ident(n.Name, pos))
			}
		} else {
			for _, id := range rf.results {
				lhs = append(lhs, ident(id.Name, pos))
			}
		}
		block.List = append(block.List, &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.ASSIGN, Rhs: ret.Results})
	}
	block.List = append(block.List,
		&ast.AssignStmt{Lhs: []ast.Expr{ident(rf.ret.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident("true", pos)}},
		rf.returnBool(false))
	return block
}

// branch rewrites a break, continue or goto that leaves the loop body,
// or returns nil.
func (rf *rangeFuncRewrite) branch(b *ast.BranchStmt, stack []ast.Node, inner map[string]bool) ast.Stmt {
	loops, breakables := 0, len(stack)
	for _, n := range stack {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loops++
		}
	}
	switch {
	case b.Tok == token.FALLTHROUGH:
		return nil
	case b.Label != nil && inner[b.Label.Name]:
		return nil
	case b.Tok == token.GOTO:
		rf.fail(b.Pos(), "goto out of the body of a range over a function is not supported by the shell")
		return nil
	case b.Label == nil && b.Tok == token.BREAK && breakables > 0,
		b.Label == nil && b.Tok == token.CONTINUE && loops > 0:
		return nil
	case b.Label == nil || b.Label.Name == rf.label:
		return rf.returnBool(b.Tok == token.CONTINUE)
	}
	// break L or continue L of an outer loop.
	pos := b.Pos()
	if rf.jump == nil {
		rf.jump = rf.r.temp("jump", rf.pos)
		rf.decls = append(rf.decls, varDecl(rf.jump, ident("int", rf.pos)))
	}
	rf.jumps = append(rf.jumps, b)
	k := strconv.Itoa(len(rf.jumps))
	rf.after = append(rf.after, &ast.IfStmt{If: rf.pos,
		Cond: &ast.BinaryExpr{X: ident(rf.jump.Name, rf.pos), OpPos: rf.pos, Op: token.EQL, Y: &ast.BasicLit{ValuePos: rf.pos, Kind: token.INT, Value: k}},
		Body: &ast.BlockStmt{Lbrace: rf.pos, List: []ast.Stmt{&ast.BranchStmt{TokPos: rf.pos, Tok: b.Tok, Label: ident(b.Label.Name, rf.pos)}}, Rbrace: rf.pos}})
	return &ast.BlockStmt{Lbrace: pos, Rbrace: b.End(), List: []ast.Stmt{
		&ast.AssignStmt{Lhs: []ast.Expr{ident(rf.jump.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: k}}},
		rf.returnBool(false),
	}}
}

// varDecl is var name T.
func varDecl(name *ast.Ident, t ast.Expr) ast.Stmt {
	return &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: name.Pos(), Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{name}, Type: t}}}}
}

// labelOf returns the label of a labeled loop, or nil.
func (r *typedRewriter) labelOf(loop ast.Stmt) *ast.Ident {
	if l, ok := r.parents[loop].(*ast.LabeledStmt); ok && l.Stmt == loop {
		return l.Label
	}
	return nil
}

// ptrArrayRanges rewrites a range with a value over a pointer to an
// array as a range over the array's slice,
//
//	for i, v := range p { … }  →  for i, v := range p[:] { … }
//
// which reads the same elements as they are at each iteration. The
// interpreter's range over the pointer panicked ("reflect: call of
// reflect.Value.Elem on array Value") when the body assigned to an
// element through the pointer, or the range assigned its value to a
// variable declared before it, and after a range without a value over
// the same pointer. A range without a value becomes the range over the
// array's length, which Go does not evaluate the pointer for either
// (ranges then rewrites it as a range over an integer):
//
//	for i := range p { … }  →  for i := range 3 { … }
func (r *typedRewriter) ptrArrayRanges(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok {
			return true
		}
		p, ok := typeUnder(r.typeOf(rs.X)).(*types.Pointer)
		if !ok {
			return true
		}
		a, ok := p.Elem().Underlying().(*types.Array)
		if !ok {
			return true
		}
		if !blankOrNil(rs.Value) {
			x := rs.X
			if _, isIdent := x.(*ast.Ident); !isIdent {
				x = &ast.ParenExpr{Lparen: x.Pos(), X: x, Rparen: x.End()}
			}
			se := &ast.SliceExpr{X: x, Lbrack: rs.X.End(), Rbrack: rs.X.End()}
			r.info.Types[se] = types.TypeAndValue{Type: types.NewSlice(a.Elem())} // for chanRanges
			rs.X = se
			return true
		}
		lit := &ast.BasicLit{ValuePos: rs.X.Pos(), Kind: token.INT, Value: strconv.FormatInt(a.Len(), 10)}
		r.info.Types[lit] = types.TypeAndValue{Type: types.Typ[types.UntypedInt], Value: constant.MakeInt64(a.Len())}
		rs.X = lit
		return true
	})
}
