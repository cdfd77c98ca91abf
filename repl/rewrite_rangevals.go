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
		rs, label := stmtAt[*ast.RangeStmt](c)
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

// stringRanges rewrites a range over a string whose index is used: the
// interpreter moved the index on by the length of each rune it yields,
// so after a byte that is not UTF-8 (yielded as utf8.RuneError, three
// bytes long) the indexes ran ahead of Go's, which moves on by one. The runes are decoded as Go's range does instead:
//
//	for i, r := range s { … }
//	→  { t := s; for k := 0; k < len(t); { c, w := utf8.DecodeRuneInString(t[k:]); i, r := k, c; k += w; … } }
//
// (= for = in both places), the range's label, if any, kept on the loop.
// So is a range over the indexes alone, which the interpreter counted by
// one a rune (for i := range "héllo" gave 0 1 2 3 4, not 0 1 3 4 5). A
// range that uses only the runes is left alone: the interpreter yields
// the same runes.
func (r *typedRewriter) stringRanges(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		rs, label := stmtAt[*ast.RangeStmt](c)
		if rs == nil || blankOrNil(rs.Key) {
			return true
		}
		t := r.typeOf(rs.X)
		if t == nil {
			return true
		}
		if b, ok := coreType(t).(*types.Basic); !ok || b.Info()&types.IsString == 0 {
			return true
		}
		utf8, err := r.s.importFor(r.file, "unicode/utf8")
		if err != nil {
			r.fail(err)
			return true
		}
		pos := rs.Pos()
		s, k, ch, w := r.temp("rs", pos), r.temp("rk", pos), r.temp("rc", pos), r.temp("rw", pos)
		id := func(x *ast.Ident) *ast.Ident { return ident(x.Name, pos) }
		decode := &ast.AssignStmt{Lhs: []ast.Expr{ch, w}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: ident(utf8, pos), Sel: ident("DecodeRuneInString", pos)},
			Lparen: pos, Args: []ast.Expr{&ast.SliceExpr{X: id(s), Lbrack: pos, Low: id(k), Rbrack: pos}}, Rparen: pos,
		}}}
		bind := &ast.AssignStmt{Lhs: []ast.Expr{rs.Key, rs.Value}, TokPos: pos, Tok: rs.Tok, Rhs: []ast.Expr{id(k), id(ch)}}
		if rs.Value == nil {
			bind.Lhs, bind.Rhs = bind.Lhs[:1], bind.Rhs[:1]
			decode.Lhs[0] = ident("_", pos)
		}
		step := &ast.AssignStmt{Lhs: []ast.Expr{id(k)}, TokPos: pos, Tok: token.ADD_ASSIGN, Rhs: []ast.Expr{id(w)}}
		loop := &ast.ForStmt{
			For:  rs.For,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{k}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}}},
			Cond: &ast.BinaryExpr{X: id(k), OpPos: pos, Op: token.LSS, Y: &ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{id(s)}, Rparen: pos}},
			Body: &ast.BlockStmt{Lbrace: rs.Body.Lbrace, List: append([]ast.Stmt{decode, bind, step}, rs.Body.List...), Rbrace: rs.Body.Rbrace},
		}
		var st ast.Stmt = loop
		if label != nil {
			label.Stmt = loop
			st = label
		}
		c.Replace(&ast.BlockStmt{Lbrace: pos, Rbrace: rs.End(), List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{s}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{rs.X}},
			st,
		}})
		return true
	})
}

// blankOrNil reports whether x is absent or the blank identifier.
func blankOrNil(x ast.Expr) bool {
	id, ok := x.(*ast.Ident)
	return x == nil || ok && id.Name == "_"
}

// assignRanges rewrites a range that assigns its index and value to
// variables declared before it (for i, v = range xs), which the
// interpreter left unassigned: the loop declares its own and assigns
// them at the top of the body.
//
//	for i, v = range xs { … }  →  for k, e := range xs { i, v = k, e; … }
//
// (a blank or absent index or value stays so).
func (r *typedRewriter) assignRanges(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok || rs.Tok != token.ASSIGN {
			return true
		}
		if blankOrNil(rs.Key) && blankOrNil(rs.Value) {
			return true // for _ = range xs assigns nothing
		}
		pos := rs.Pos()
		var lhs, rhs []ast.Expr
		for _, p := range []*ast.Expr{&rs.Key, &rs.Value} {
			if blankOrNil(*p) {
				continue
			}
			t := r.temp("rv", pos)
			lhs, rhs = append(lhs, *p), append(rhs, ident(t.Name, pos))
			*p = t
		}
		rs.Tok = token.DEFINE
		rs.Body.List = append([]ast.Stmt{&ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.ASSIGN, Rhs: rhs}}, rs.Body.List...)
		return true
	})
}
