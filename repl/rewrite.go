package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// The interpreter mishandles a few constructs badly enough to take the
// process down, so inputs are rewritten before they are compiled:
//
//   - go statements become calls of the runtime's Go, which runs the
//     call on a goroutine that recovers a panic and reports it (a panic in
//     an interpreted goroutine otherwise kills the process). The function
//     and its arguments are evaluated at the go statement, as Go does.
//   - top-level statements are numbered (the runtime's At), so that a
//     panic is reported at its statement.
//   - range over an integer becomes a three-clause for loop (the
//     interpreter crashes on range over an int).
//   - defer at the top level of an input is refused: the interpreter would
//     run it again after every later input.
//   - a parallel assignment a, b = x, f() becomes temporaries assigned
//     one by one (the interpreter drops some of the assignments when the
//     right side mixes calls with other expressions).
//   - function bodies count their calls and probe the stack, sizes of
//     make are checked against the memory budget (see guard.go), and
//     recover() reports what it recovered (see recover.go).

// rtName is the name under which inputs import the shell's runtime
// package (Go, Echo, ...).
const rtName = "_sn"

// rewriter rewrites one input.
type rewriter struct {
	// ints holds the names known to hold integers: declared with an
	// integer type or initialised from an integer expression.
	ints map[string]bool
	// globalInt reports whether a session variable holds an integer.
	globalInt func(name string) bool
	n         int // counter for temporary names
	// unsure holds range statements over expressions of unknown type,
	// for the message when the interpreter fails on one.
	unsure []*ast.RangeStmt
	// typed is set for checked inputs, whose ranges over integers and
	// functions are rewritten already (see rewriteChecked).
	typed bool
}

func newRewriter(globalInt func(string) bool) *rewriter {
	return &rewriter{ints: map[string]bool{}, globalInt: globalInt}
}

// topLevelDefer returns the first defer statement among stmts, or nil.
func topLevelDefer(stmts []ast.Stmt) *ast.DeferStmt {
	for _, s := range stmts {
		if d, ok := s.(*ast.DeferStmt); ok {
			return d
		}
	}
	return nil
}

// rewrite rewrites node in place (a *ast.BlockStmt or *ast.File).
func (r *rewriter) rewrite(node ast.Node) {
	astutil.Apply(node, func(c *astutil.Cursor) bool {
		r.learn(c.Node())
		return true
	}, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.GoStmt:
			c.Replace(r.goStmt(n))
		case *ast.RangeStmt:
			if r.typed {
				break
			}
			if f := r.rangeInt(n); f != nil {
				c.Replace(f)
			}
		case *ast.AssignStmt:
			// Only statements of a list can become blocks, or have
			// statements put before them.
			if c.Index() >= 0 {
				if b := r.parallelAssign(n); b != nil {
					c.Replace(b)
				}
				for _, h := range r.hoistComposites(n) {
					c.InsertBefore(h)
				}
			}
		case *ast.GenDecl:
			// var a, b = 5, T{1} among a file's declarations, as a
			// define (hoistComposites): the temporaries go before it,
			// declarations of their own.
			if _, inFile := c.Parent().(*ast.File); !inFile || n.Tok != token.VAR {
				break
			}
			for _, sp := range n.Specs {
				vs := sp.(*ast.ValueSpec)
				for _, h := range r.hoistValues(vs.Values, len(vs.Names)) {
					c.InsertBefore(&ast.GenDecl{TokPos: h.Pos(), Tok: token.VAR, Specs: []ast.Spec{
						&ast.ValueSpec{Names: []*ast.Ident{h.Lhs[0].(*ast.Ident)}, Values: h.Rhs}}})
				}
			}
		case *ast.DeclStmt:
			// The same in a function: the temporaries' defines go
			// before the statement.
			gd, ok := n.Decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR || c.Index() < 0 {
				break
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for _, h := range r.hoistValues(vs.Values, len(vs.Names)) {
					c.InsertBefore(h)
				}
			}
		case *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.ForStmt, *ast.LabeledStmt:
			// A define in the statement's init: the hoisted values go
			// into a block around the statement (its scope holds the
			// temporaries only), around its label if it has one.
			if _, labeled := c.Parent().(*ast.LabeledStmt); labeled {
				break
			}
			init := stmtInit(n)
			if l, ok := n.(*ast.LabeledStmt); ok {
				init = stmtInit(l.Stmt)
			}
			if init != nil {
				if hs := r.hoistComposites(init); hs != nil {
					c.Replace(&ast.BlockStmt{Lbrace: n.Pos(), List: append(hs, n.(ast.Stmt)), Rbrace: n.End()})
				}
			}
		}
		return true
	})
	r.guard(node)
}

// hoistComposites rewrites a define whose right side mixes composite
// literals with other expressions,
//
//	n, v := f(), T{g()}
//
// as the definitions of temporaries for the values up to the last
// composite literal, which it returns to go before the define, and the
// define of the temporaries:
//
//	_sn_v1 := f()
//	_sn_v2 := T{g()}
//	n, v := _sn_v1, _sn_v2
//
// since the interpreter gives the other variables of such a define their
// zero values (n, v := 5, T{1} left n 0; v, p := T{1}, &T{2} left p
// nil). The values are evaluated in order, as in Go; constants and
// names stay (a constant then takes the type of a variable that the
// define assigns rather than declares), and so does what follows the
// last composite literal. A define of composite literals only is left
// alone (the interpreter gets it right).
func (r *rewriter) hoistComposites(n *ast.AssignStmt) []ast.Stmt {
	if n.Tok != token.DEFINE {
		return nil
	}
	var hoisted []ast.Stmt
	for _, h := range r.hoistValues(n.Rhs, len(n.Lhs)) {
		hoisted = append(hoisted, h)
	}
	return hoisted
}

// hoistValues is hoistComposites for the values of a define or a var
// declaration of names names: it replaces the values it hoists with
// their temporaries, and returns the temporaries' defines.
func (r *rewriter) hoistValues(values []ast.Expr, names int) []*ast.AssignStmt {
	if names < 2 || names != len(values) {
		return nil
	}
	last, others := -1, false
	for i, e := range values {
		if _, ok := ast.Unparen(e).(*ast.CompositeLit); ok {
			last = i
		} else {
			others = true
		}
	}
	if last < 0 || !others {
		return nil
	}
	var hoisted []*ast.AssignStmt
	for i, e := range values[:last+1] {
		if _, name := e.(*ast.Ident); name || isConstExpr(e) {
			continue
		}
		t := r.temp("v", e.Pos())
		hoisted = append(hoisted, &ast.AssignStmt{Lhs: []ast.Expr{t}, TokPos: e.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{e}})
		values[i] = ident(t.Name, e.Pos())
	}
	return hoisted
}

// stmtInit returns the define in the init of an if, switch, type switch
// or for statement, or nil.
func stmtInit(n ast.Node) *ast.AssignStmt {
	var init ast.Stmt
	switch n := n.(type) {
	case *ast.IfStmt:
		init = n.Init
	case *ast.SwitchStmt:
		init = n.Init
	case *ast.TypeSwitchStmt:
		init = n.Init
	case *ast.ForStmt:
		init = n.Init
	}
	a, _ := init.(*ast.AssignStmt)
	return a
}

// parallelAssign rewrites a, b = x, f() as
//
//	{ t1 := x; t2 := f(); a = t1; b = t2 }
//
// since the interpreter drops some of the assignments of a parallel
// assignment whose right side mixes calls with other expressions. The
// right side is evaluated first, left to right, as in Go; constants are
// assigned directly, so that they take the type of their destination. A
// parallel assignment of constants only is left alone (the interpreter
// gets it right).
func (r *rewriter) parallelAssign(n *ast.AssignStmt) ast.Stmt {
	if n.Tok != token.ASSIGN || len(n.Lhs) < 2 || len(n.Lhs) != len(n.Rhs) {
		return nil
	}
	consts := 0
	for _, e := range n.Rhs {
		if isConstExpr(e) {
			consts++
		}
	}
	if consts == len(n.Rhs) {
		return nil
	}
	block := &ast.BlockStmt{Lbrace: n.Pos(), Rbrace: n.End()}
	values := make([]ast.Expr, len(n.Rhs))
	for i, e := range n.Rhs {
		if isConstExpr(e) {
			values[i] = e
			continue
		}
		r.n++
		t := ast.NewIdent(fmt.Sprintf("_snv%d", r.n))
		block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{t}, TokPos: n.TokPos, Tok: token.DEFINE, Rhs: []ast.Expr{e}})
		values[i] = t
	}
	for i, lhs := range n.Lhs {
		if id, ok := lhs.(*ast.Ident); ok && id.Name == "_" {
			if id, ok := values[i].(*ast.Ident); ok && strings.HasPrefix(id.Name, "_snv") {
				// keep the temporary used
				block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{lhs}, TokPos: n.TokPos, Tok: token.ASSIGN, Rhs: []ast.Expr{values[i]}})
			}
			continue
		}
		block.List = append(block.List, &ast.AssignStmt{Lhs: []ast.Expr{lhs}, TokPos: n.TokPos, Tok: token.ASSIGN, Rhs: []ast.Expr{values[i]}})
	}
	return block
}

// isConstExpr reports whether e is a constant the rewriter can recognise
// without type information: literals, true, false, nil, and operators on
// them.
func isConstExpr(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return x.Name == "true" || x.Name == "false" || x.Name == "nil"
	case *ast.ParenExpr:
		return isConstExpr(x.X)
	case *ast.UnaryExpr:
		return x.Op != token.ARROW && x.Op != token.AND && isConstExpr(x.X)
	case *ast.BinaryExpr:
		return isConstExpr(x.X) && isConstExpr(x.Y)
	}
	return false
}

// learn records integer-valued names declared by n.
func (r *rewriter) learn(n ast.Node) {
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
			for i, lhs := range n.Lhs {
				if id, ok := lhs.(*ast.Ident); ok {
					r.ints[id.Name] = r.intLike(n.Rhs[i])
				}
			}
		}
	case *ast.ValueSpec:
		for i, id := range n.Names {
			switch {
			case n.Type != nil:
				r.ints[id.Name] = isIntType(n.Type)
			case i < len(n.Values):
				r.ints[id.Name] = r.intLike(n.Values[i])
			}
		}
	case *ast.Field:
		for _, id := range n.Names {
			r.ints[id.Name] = isIntType(n.Type)
		}
	}
}

var intTypes = map[string]bool{
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "byte": true, "rune": true,
}

func isIntType(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && intTypes[id.Name]
}

// intLike reports whether e is known to be an integer.
func (r *rewriter) intLike(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return x.Kind == token.INT
	case *ast.ParenExpr:
		return r.intLike(x.X)
	case *ast.Ident:
		if v, ok := r.ints[x.Name]; ok {
			return v
		}
		return r.globalInt != nil && r.globalInt(x.Name)
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok {
			return id.Name == "len" || id.Name == "cap" || intTypes[id.Name]
		}
	case *ast.UnaryExpr:
		return (x.Op == token.SUB || x.Op == token.ADD || x.Op == token.XOR) && r.intLike(x.X)
	case *ast.BinaryExpr:
		switch x.Op {
		case token.SHL, token.SHR:
			return r.intLike(x.X)
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.AND, token.OR, token.XOR, token.AND_NOT:
			return r.intLike(x.X) || r.intLike(x.Y)
		}
	}
	return false
}

// pure reports whether evaluating e twice is harmless: no calls other
// than len, cap and conversions to integer types, no receives.
func pure(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if id, isID := x.Fun.(*ast.Ident); !isID || !(id.Name == "len" || id.Name == "cap" || intTypes[id.Name]) {
				ok = false
			}
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				ok = false
			}
		case *ast.FuncLit:
			ok = false
		}
		return ok
	})
	return ok
}

func (r *rewriter) temp(what string, pos token.Pos) *ast.Ident {
	r.n++
	return &ast.Ident{NamePos: pos, Name: fmt.Sprintf("%s_%s%d", rtName, what, r.n)}
}

// rangeInt rewrites a range over an integer into a for loop, or returns
// nil when the range is over something else (or over an expression of
// unknown type, which it records).
func (r *rewriter) rangeInt(rs *ast.RangeStmt) ast.Stmt {
	if rs.Value != nil {
		return nil // ranging over an int yields one value
	}
	if !r.intLike(rs.X) {
		if _, lit := rs.X.(*ast.CompositeLit); !lit {
			r.unsure = append(r.unsure, rs)
		}
		return nil
	}
	pos := rs.For
	key, _ := rs.Key.(*ast.Ident)
	if key == nil || key.Name == "_" {
		key = r.temp("i", pos)
		rs.Tok = token.DEFINE
	}
	if rs.Tok == token.ASSIGN {
		// for i = range n: the loop variable exists already.
		return &ast.ForStmt{
			For:  pos,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{ident(key.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}}},
			Cond: &ast.BinaryExpr{X: ident(key.Name, pos), OpPos: pos, Op: token.LSS, Y: rs.X},
			Post: &ast.IncDecStmt{X: ident(key.Name, pos), TokPos: pos, Tok: token.INC},
			Body: rs.Body,
		}
	}
	limit := r.temp("n", pos)
	zero, bound := ast.Expr(&ast.BinaryExpr{X: rs.X, OpPos: pos, Op: token.SUB, Y: rs.X}), rs.X
	if !pure(rs.X) {
		zero = &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}
		bound = &ast.CallExpr{Fun: ident("int", pos), Lparen: pos, Args: []ast.Expr{rs.X}, Rparen: pos}
	}
	r.ints[key.Name] = true
	return &ast.ForStmt{
		For:  pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{ident(key.Name, pos), limit}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{zero, bound}},
		Cond: &ast.BinaryExpr{X: ident(key.Name, pos), OpPos: pos, Op: token.LSS, Y: ident(limit.Name, pos)},
		Post: &ast.IncDecStmt{X: ident(key.Name, pos), TokPos: pos, Tok: token.INC},
		Body: rs.Body,
	}
}

var builtinFuncs = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// goStmt rewrites "go f(a, b)" into "_sn.Go(f, a, b)", which evaluates
// the function and its arguments here and calls it on a new goroutine
// (with "xs..." the call is "_sn.GoSlice(f, a, xs)"). Passing values,
// not a closure, keeps each goroutine's arguments its own: the
// interpreter's closures share a loop's variables between iterations. A
// builtin, which is no value, is called from a function literal.
func (r *rewriter) goStmt(g *ast.GoStmt) ast.Stmt {
	pos := g.Go
	call := g.Call
	if id, ok := call.Fun.(*ast.Ident); ok && builtinFuncs[id.Name] {
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: call}}, Rbrace: pos},
		}
		return rtCall("Go", pos, lit)
	}
	name := "Go"
	if call.Ellipsis.IsValid() {
		name = "GoSlice"
	}
	return rtCall(name, pos, append([]ast.Expr{call.Fun}, call.Args...)...)
}

// rtCall is the statement _sn.name(args...).
func rtCall(name string, pos token.Pos, args ...ast.Expr) *ast.ExprStmt {
	return &ast.ExprStmt{X: &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(name, pos)},
		Lparen: pos, Args: args, Rparen: pos,
	}}
}

// instrument puts _sn.At(i) before the i-th statement, so that a panic
// can be placed at its top-level statement.
func instrument(stmts []ast.Stmt) []ast.Stmt {
	out := make([]ast.Stmt, 0, 2*len(stmts))
	for i, st := range stmts {
		pos := st.Pos()
		out = append(out, rtCall("At", pos, &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: fmt.Sprint(i)}), st)
	}
	return out
}

func ident(name string, pos token.Pos) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }

// wrapCompound runs each top-level compound statement (for, if, switch,
// select, a block) inside a function literal called at once:
// "func() { STMT }()". The interpreter mishandles declarations of several
// variables at once ("v, err := f()", "v, ok := m[k]") in blocks nested in
// top-level statements, and type switches that bind a variable there, but
// not inside functions; variables declared in such blocks are local to
// them anyway. A statement that contains return or goto stays as it is,
// and so does one that holds a label that another statement's goto
// names (retry: at the top level, with a goto retry further on: in a
// literal the goto found no label, and the input stopped there without a
// word). It reports which statements it wrapped.
func wrapCompound(stmts []ast.Stmt) (out []ast.Stmt, wrapped []bool) {
	out = make([]ast.Stmt, len(stmts))
	wrapped = make([]bool, len(stmts))
	labels, gotos := make([]map[string]bool, len(stmts)), make([][]string, len(stmts))
	for i, st := range stmts {
		labels[i], gotos[i] = branchLabels(st)
	}
	targeted := func(i int) bool {
		for j := range stmts {
			for _, g := range gotos[j] {
				if j != i && labels[i][g] {
					return true
				}
			}
		}
		return false
	}
	for i, st := range stmts {
		out[i] = st
		switch st.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
			*ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
		default:
			continue
		}
		if leavesBlock(st) || targeted(i) {
			continue
		}
		pos := st.Pos()
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{st}, Rbrace: st.End()},
		}
		out[i] = &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: pos}}
		wrapped[i] = true
	}
	return out, wrapped
}

// branchLabels returns the labels that st declares and the labels of
// its gotos, outside function literals.
func branchLabels(st ast.Stmt) (labels map[string]bool, gotos []string) {
	labels = map[string]bool{}
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			labels[n.Label.Name] = true
		case *ast.BranchStmt:
			if n.Tok == token.GOTO && n.Label != nil {
				gotos = append(gotos, n.Label.Name)
			}
		}
		return true
	})
	return labels, gotos
}

// leavesBlock reports whether st contains a return, or a goto to a label
// outside st, outside function literals.
func leavesBlock(st ast.Stmt) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		}
		return !found
	})
	labels, gotos := branchLabels(st)
	for _, g := range gotos {
		if !labels[g] {
			found = true
		}
	}
	return found
}

// walkStmtLists walks the nodes under root in depth-first order, replacing
// each statement list (of a block, a case clause, a select case) by the
// result of lists on it before going into it, and calling other with the
// other nodes.
func walkStmtLists(root ast.Node, lists func([]ast.Stmt) []ast.Stmt, other func(ast.Node)) {
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			n.List = lists(n.List)
		case *ast.CaseClause:
			n.Body = lists(n.Body)
		case *ast.CommClause:
			n.Body = lists(n.Body)
		case nil:
		default:
			other(n)
		}
		return true
	})
}

// stmtAt returns the statement of type S at the cursor of an
// astutil.Apply and its label, if any: a labelled statement at its
// label, not at the statement itself, so that a rewrite can put
// statements before the label. It returns a zero S elsewhere.
func stmtAt[S ast.Stmt](c *astutil.Cursor) (S, *ast.LabeledStmt) {
	var zero S
	if label, ok := c.Node().(*ast.LabeledStmt); ok {
		st, _ := label.Stmt.(S)
		return st, label
	}
	if _, inLabel := c.Parent().(*ast.LabeledStmt); inLabel {
		return zero, nil
	}
	st, _ := c.Node().(S)
	return st, nil
}
