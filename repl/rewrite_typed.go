package repl

import (
	"context"
	"go/ast"
	"go/token"
	"go/types"
)

// renameTypes gives the session's types their names in the interpreter
// (see entry.yname) wherever the input mentions them.
func (s *Session) renameTypes(c *checked, files []*ast.File) {
	rename := func(id *ast.Ident, obj types.Object) {
		tn, ok := obj.(*types.TypeName)
		if !ok || !isSession(tn) {
			return
		}
		if n := c.typeNameIn(tn); n != "" {
			id.Name = n
		}
	}
	for id, obj := range c.info.Defs {
		if obj != nil {
			rename(id, obj)
		}
	}
	for id, obj := range c.info.Uses {
		rename(id, obj)
	}
}

// copyOlds copies, before chunk i runs, the session's values that its
// declarations of the same names use (x := x + 1). The interpreter sets
// up the variables a block declares before the block runs, so the copy
// is a block of its own.
func (s *Session) copyOlds(ctx context.Context, c *checked, i int) error {
	var list []ast.Stmt
	for _, o := range c.olds {
		if o.chunk == i {
			pos := o.stmt.Pos()
			list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{ident(o.old, pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{ident(o.name, pos)}})
		}
	}
	if len(list) == 0 {
		return nil
	}
	return s.run(ctx, &ast.BlockStmt{Lbrace: list[0].Pos(), List: list, Rbrace: list[0].Pos()}, nil)
}
