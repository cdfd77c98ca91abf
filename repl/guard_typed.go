package repl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"math"
)

// bigValues refuses an input that holds a value of a fixed size larger
// than the session's memory budget: var x [1 << 40]byte, new(T) or a
// composite literal of such a type. The interpreter allocates a
// function's variables when the function starts, and the Go runtime ends
// the process when that allocation fails, so such an input is refused
// before any of it runs.
func (r *typedRewriter) bigValues(f *ast.File) {
	fset := r.s.in.FileSet()
	check := func(t types.Type, pos token.Pos, what func() string) {
		if t == nil || r.err != nil {
			return
		}
		if size := sizeOf(t); size > r.s.budget {
			r.fail(fmt.Errorf("%s: %s needs %s, more than the session's memory budget of %s (sparknet-shell --memory SIZE changes it)",
				fset.Position(pos), what(), formatBytes(size), formatBytes(r.s.budget)))
		}
	}
	text := func(n ast.Node) string {
		var b bytes.Buffer
		printer.Fprint(&b, token.NewFileSet(), n)
		return internalNames.ReplaceAllString(b.String(), "$1")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if r.err != nil {
			return false
		}
		switch x := n.(type) {
		case *ast.CompositeLit:
			check(r.typeOf(x), x.Pos(), func() string {
				if x.Type == nil {
					return "a composite literal"
				}
				return text(x.Type) + "{…}"
			})
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && len(x.Args) == 1 {
				if _, builtin := r.info.Uses[id].(*types.Builtin); builtin && id.Name == "new" {
					if p, ok := r.typeOf(x).(*types.Pointer); ok {
						check(p.Elem(), x.Pos(), func() string { return text(x) })
					}
				}
			}
		case *ast.Ident:
			if v, ok := r.info.Defs[x].(*types.Var); ok && !v.IsField() {
				check(v.Type(), x.Pos(), func() string {
					return "variable " + x.Name + " of type " + text(&ast.Ident{Name: types.TypeString(v.Type(), func(*types.Package) string { return "" })})
				})
			}
		}
		return true
	})
}

// sizeOf returns the size of a value of type t, or MaxInt64 when it does
// not fit in an int64; 0 for a type that depends on a type parameter.
func sizeOf(t types.Type) (size int64) {
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return 0
	}
	defer func() {
		if recover() != nil { // a type the sizes do not cover
			size = 0
		}
	}()
	switch u := t.Underlying().(type) {
	case *types.Array:
		e := sizeOf(u.Elem())
		if u.Len() > 0 && e > math.MaxInt64/u.Len() {
			return math.MaxInt64
		}
		return u.Len() * e
	case *types.Struct:
		var s int64
		for i := range u.NumFields() {
			f := sizeOf(u.Field(i).Type())
			if s > math.MaxInt64-f-8 {
				return math.MaxInt64
			}
			s += f + 8 // at most the padding before a field
		}
		return s
	}
	return sharedImporter().Sizes().Sizeof(t)
}
