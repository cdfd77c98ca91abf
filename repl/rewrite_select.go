package repl

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/ast/astutil"
)

// selectBranches rewrites the branch statements of select cases that the
// interpreter sends to the wrong place:
//
//   - It makes every case end by leaving the select, whatever its last
//     statement is: a continue, or a labelled break, as a case's last
//     statement left the select alone (for { select { case <-done: break
//     loop } } looped on, and waited for ever), and a goto back to a label
//     before the select ended the process (a fatal stack overflow). Such a
//     statement goes into a block of its own, after which the case ends.
//   - It takes an unlabelled break inside a case (in an if) to the
//     innermost loop around the select instead of to the end of the select.
//     Such a break becomes a goto to a label put right after the select.
//
// The last statement of a case that is an unlabelled break is left alone:
// it leaves the select, as Go's does.
//
// A goto back to a label before a select (a loop made of a goto around a
// select) ended the process too, wherever the goto is; it is refused.
func (r *typedRewriter) selectBranches(f *ast.File) {
	walkStmtLists(f, r.selectList, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				r.gotosAroundSelects(n.Body)
			}
		case *ast.FuncLit:
			r.gotosAroundSelects(n.Body)
		}
	})
}

// selectList rewrites the selects of a statement list (selectBranches),
// returning the list with the labels it adds after them.
func (r *typedRewriter) selectList(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for i, st := range list {
		out = append(out, st)
		sel, ok := st.(*ast.SelectStmt)
		if ls, isLabel := st.(*ast.LabeledStmt); isLabel {
			sel, ok = ls.Stmt.(*ast.SelectStmt)
		}
		if !ok || sel.Body == nil {
			continue
		}
		var label *ast.Ident
		for _, s := range sel.Body.List {
			cc, ok := s.(*ast.CommClause)
			if !ok || len(cc.Body) == 0 {
				continue
			}
			last := len(cc.Body) - 1
			if b, ok := cc.Body[last].(*ast.BranchStmt); ok && (b.Tok != token.BREAK || b.Label != nil) {
				cc.Body[last] = &ast.BlockStmt{Lbrace: b.Pos(), List: []ast.Stmt{b}, Rbrace: b.End()}
			}
			for j, body := range cc.Body {
				if b, ok := body.(*ast.BranchStmt); ok && j == last && b.Tok == token.BREAK && b.Label == nil {
					continue
				}
				selectBreaks(body, func(b *ast.BranchStmt) {
					if label == nil {
						label = r.temp("brk", sel.Pos())
					}
					b.Tok, b.Label = token.GOTO, ident(label.Name, b.Pos())
				})
			}
		}
		if label != nil {
			end := list[i].End()
			out = append(out, &ast.LabeledStmt{Label: label, Colon: end, Stmt: &ast.EmptyStmt{Semicolon: end, Implicit: true}})
		}
	}
	return out
}

// selectBreaks calls fn with each unlabelled break under st that leaves
// the select st is a case of: not those of a loop, switch or select
// inside it, nor of a function literal.
func selectBreaks(st ast.Stmt, fn func(*ast.BranchStmt)) {
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			if n.Tok == token.BREAK && n.Label == nil {
				fn(n)
			}
		}
		return true
	})
}

// gotosAroundSelects refuses a goto in body (a function's, not in its
// function literals) back to a label with a select between the two.
func (r *typedRewriter) gotosAroundSelects(body *ast.BlockStmt) {
	labels := map[string]token.Pos{}
	var gotos []*ast.BranchStmt
	var selects []token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			labels[n.Label.Name] = n.Pos()
		case *ast.SelectStmt:
			selects = append(selects, n.Pos())
		case *ast.BranchStmt:
			if n.Tok == token.GOTO && n.Label != nil {
				gotos = append(gotos, n)
			}
		}
		return true
	})
	for _, g := range gotos {
		at, ok := labels[g.Label.Name]
		if !ok || at > g.Pos() {
			continue
		}
		for _, s := range selects {
			if at < s && s < g.Pos() {
				r.fail(posErrorf(r.s.in.FileSet(), g.Pos(), "goto %s goes back around a select statement, which the interpreter cannot run (the process would end): make the loop a for statement", g.Label.Name))
				return
			}
		}
	}
}

// selectSends evaluates the operands of a select's cases before the
// select, into variables, where a case sends a value that is not a
// variable or a constant: the interpreter evaluated only the outermost
// operation of a sent value (case ch <- pair{i, f(i)} sent pair{i, ""},
// and ch <- fmt.Sprint(x+1) sent "0"). Go evaluates the channel operands
// and the sent values of all cases once, in source order, on entering
// the select, so all of them go into variables, in that order:
//
//	select { case ch <- f(x): … case v := <-g(): … }
//	→  { var c1 chan T = ch; var v1 T = f(x); var c2 <-chan U = g(); select { case c1 <- v1: … case v := <-c2: … } }
//
// (a labelled select keeps its label, inside the block). A select whose
// operand types the shell cannot write is left alone.
func (r *typedRewriter) selectSends(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		sel, label := stmtAt[*ast.SelectStmt](c)
		if sel == nil || !r.sendsComputed(sel) {
			return true
		}
		// The operands in source order, each with its type written out;
		// a select with one the shell cannot write is left alone.
		var ops []*ast.Expr
		var typs []ast.Expr
		for _, s := range sel.Body.List {
			cc, ok := s.(*ast.CommClause)
			if !ok || cc.Comm == nil {
				continue
			}
			for _, x := range commOperands(cc.Comm) {
				if r.leafOperand(*x) {
					continue
				}
				t := r.typeOf(*x)
				if t == nil {
					return true
				}
				te := r.typeExpr(t, (*x).Pos())
				if te == nil {
					return true
				}
				ops, typs = append(ops, x), append(typs, te)
			}
		}
		var list []ast.Stmt
		for i, x := range ops {
			pos := (*x).Pos()
			v := r.temp("sv", pos)
			list = append(list, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
				&ast.ValueSpec{Names: []*ast.Ident{v}, Type: typs[i], Values: []ast.Expr{*x}}}}})
			*x = ident(v.Name, pos)
		}
		var st ast.Stmt = sel
		if label != nil {
			st = label
		}
		c.Replace(&ast.BlockStmt{Lbrace: st.Pos(), List: append(list, st), Rbrace: st.End()})
		return true
	})
}

// commOperands returns the operands of a select case's communication that
// are evaluated on entering the select: a send's channel and value, a
// receive's channel.
func commOperands(comm ast.Stmt) []*ast.Expr {
	var recv ast.Expr
	switch st := comm.(type) {
	case *ast.SendStmt:
		return []*ast.Expr{&st.Chan, &st.Value}
	case *ast.ExprStmt:
		recv = st.X
	case *ast.AssignStmt:
		if len(st.Rhs) == 1 {
			recv = st.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(recv).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return []*ast.Expr{&u.X}
	}
	return nil
}

// sendsComputed reports whether a case of sel sends a value that is
// neither a variable nor a constant.
func (r *typedRewriter) sendsComputed(sel *ast.SelectStmt) bool {
	for _, s := range sel.Body.List {
		if cc, ok := s.(*ast.CommClause); ok {
			if send, ok := cc.Comm.(*ast.SendStmt); ok && !r.leafOperand(send.Value) {
				return true
			}
		}
	}
	return false
}

// leafOperand reports whether x is a constant, nil, or an identifier.
func (r *typedRewriter) leafOperand(x ast.Expr) bool {
	x = ast.Unparen(x)
	if _, ok := x.(*ast.Ident); ok {
		return true
	}
	if tv, ok := r.info.Types[x]; ok && (tv.Value != nil || tv.IsNil()) {
		return true
	}
	return false
}
