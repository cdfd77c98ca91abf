package repl

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// chanRanges rewrites a range with a value over a slice, array or map of
// channels (chs of type []chan int, or []<-chan T in a generic function):
// the interpreter gave the value variable a wrong type, and the first use
// of it failed at run time ("reflect: call of reflect.Value.Len on int
// Value", or a nil dereference for a map). The elements are indexed
// instead:
//
//	for i, ch := range chs { … }  →  { r := chs; for k := range r { i, ch := k, r[k]; … } }
//
// (= for = in both places; r := (*p)[:] for a pointer p to an array),
// the range's label, if any, kept on the loop.
func (r *typedRewriter) chanRanges(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		var rs *ast.RangeStmt
		label, _ := c.Node().(*ast.LabeledStmt)
		if label != nil {
			rs, _ = label.Stmt.(*ast.RangeStmt)
		} else if _, inLabel := c.Parent().(*ast.LabeledStmt); !inLabel {
			rs, _ = c.Node().(*ast.RangeStmt)
		}
		if rs == nil || rs.Value == nil || !r.chanElems(rs.X) {
			return true
		}
		pos := rs.Pos()
		x, k := r.temp("rx", pos), r.temp("rk", pos)
		src := rs.X
		if _, ptr := coreType(r.typeOf(src)).(*types.Pointer); ptr {
			// A pointer to an array becomes a slice of the array, (*p)[:]:
			// the interpreter fails on ranges over such a pointer and
			// on indexing it where the checker has not typed it.
			src = &ast.SliceExpr{X: &ast.ParenExpr{Lparen: pos, X: &ast.StarExpr{Star: pos, X: src}, Rparen: pos}, Lbrack: pos, Rbrack: pos}
		}
		key := rs.Key
		if key == nil {
			key = ident("_", pos)
		}
		var bind ast.Stmt = &ast.AssignStmt{
			Lhs: []ast.Expr{key, rs.Value}, TokPos: pos, Tok: rs.Tok,
			Rhs: []ast.Expr{ident(k.Name, pos), &ast.IndexExpr{X: ident(x.Name, pos), Lbrack: pos, Index: ident(k.Name, pos), Rbrack: pos}},
		}
		if id, ok := key.(*ast.Ident); ok && id.Name == "_" && rs.Tok == token.DEFINE {
			// _, v := k, r[k] declares v alone: v := r[k].
			bind.(*ast.AssignStmt).Lhs, bind.(*ast.AssignStmt).Rhs = bind.(*ast.AssignStmt).Lhs[1:], bind.(*ast.AssignStmt).Rhs[1:]
		}
		rs.Key, rs.Value, rs.Tok, rs.X = k, nil, token.DEFINE, ident(x.Name, pos)
		rs.Body.List = append([]ast.Stmt{bind}, rs.Body.List...)
		var loop ast.Stmt = rs
		if label != nil {
			loop = label
		}
		c.Replace(&ast.BlockStmt{Lbrace: pos, Rbrace: rs.End(), List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{x}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{src}},
			loop,
		}})
		return true
	})
}

// chanElems reports whether x is a slice, array, pointer to an array or
// map of channels.
func (r *typedRewriter) chanElems(x ast.Expr) bool {
	t := r.typeOf(x)
	if t == nil {
		return false
	}
	var elem types.Type
	switch u := coreType(t).(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	case *types.Map:
		elem = u.Elem()
	case *types.Pointer:
		if a, ok := coreType(u.Elem()).(*types.Array); ok {
			elem = a.Elem()
		}
	}
	if elem == nil {
		return false
	}
	_, ok := coreType(elem).(*types.Chan)
	return ok
}
