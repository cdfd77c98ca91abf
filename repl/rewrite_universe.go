package repl

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A variable or constant may take the name of a predeclared one: nil
// := 5, iota := 4, any := false, len := 0. The interpreter got two of
// these wrong itself (nil printed <nil>, iota 0), and the rewrites write
// code that names predeclared identifiers (nil, any, len, true, error,
// ...): in the scope of such a variable that code meant the variable,
// which failed to compile or ran wrong. The shell gives the interpreter
// these variables and constants under names of their own (universeName:
// _snu_len), in every input: a session's variable named len is _snu_len
// to the interpreter in each input that uses it. Struct fields, types,
// functions and labels keep their names.

// universeName is the interpreter's name of a variable or constant
// named like a predeclared identifier.
func universeName(name string) string { return "_snu_" + name }

// shadowsUniverse reports whether obj is a variable or constant (not a
// field) of the program's whose name is a predeclared identifier's.
func shadowsUniverse(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Var:
		if o.IsField() {
			return false
		}
	case *types.Const:
	default:
		return false
	}
	return obj.Parent() != types.Universe && types.Universe.Lookup(obj.Name()) != nil
}

// universeVars renames the variables and constants of f that shadow a
// predeclared identifier (see universeName). It runs before the other
// rewrites, so that the code they write sees the predeclared ones.
func (r *typedRewriter) universeVars(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		obj := r.info.Defs[id]
		if obj == nil {
			obj = r.info.Uses[id]
		}
		if obj != nil && shadowsUniverse(obj) {
			id.Name = universeName(id.Name)
		}
		return true
	})
}

// universeIdents renames in x, an expression typed by the user outside
// any input (:vars, completion), the session's variables and constants
// that shadow a predeclared identifier, as universeVars renames them in
// inputs.
func (s *Session) universeIdents(x ast.Expr) {
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(m ast.Node) bool { return s.universeIdent(m) })
			return false
		default:
			return s.universeIdent(n)
		}
	})
}

func (s *Session) universeIdent(n ast.Node) bool {
	id, ok := n.(*ast.Ident)
	if !ok {
		return true
	}
	if types.Universe.Lookup(id.Name) != nil && (s.declared(id.Name, "var") || s.declared(id.Name, "const")) {
		id.Name = universeName(id.Name)
	}
	return true
}

// nilSpreads drops a nil passed as a variadic parameter's slice:
//
//	f(1, nil...)  →  f(1)
//
// which Go runs alike (the parameter is a nil slice either way), and
// which the interpreter compiles (f(nil...) failed with a CFG panic).
func (r *typedRewriter) nilSpreads(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !call.Ellipsis.IsValid() || len(call.Args) == 0 {
			return true
		}
		id, ok := ast.Unparen(call.Args[len(call.Args)-1]).(*ast.Ident)
		if !ok {
			return true
		}
		if _, isNil := r.info.Uses[id].(*types.Nil); isNil {
			call.Args = call.Args[:len(call.Args)-1]
			call.Ellipsis = token.NoPos
		}
		return true
	})
}

// genericAliases spells out the instances of generic type aliases (Go
// 1.24), which the interpreter does not know, and leaves their
// declarations to the checker:
//
//	type Set[T comparable] = map[T]struct{}
//	s := Set[string]{}  →  s := map[string]struct{}{}
//
// and Set[T] in a generic function's signature becomes map[T]struct{}.
func (r *typedRewriter) genericAliases(f *ast.File) {
	generic := func(x ast.Expr) bool {
		var id *ast.Ident
		switch x := ast.Unparen(x).(type) {
		case *ast.Ident:
			id = x
		case *ast.SelectorExpr:
			id = x.Sel
		default:
			return false
		}
		tn, ok := r.info.Uses[id].(*types.TypeName)
		if !ok {
			return false
		}
		a, ok := tn.Type().(*types.Alias)
		return ok && a.TypeParams().Len() > 0
	}
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.IndexExpr, *ast.IndexListExpr:
			var x ast.Expr
			if ix, ok := n.(*ast.IndexExpr); ok {
				x = ix.X
			} else {
				x = n.(*ast.IndexListExpr).X
			}
			tv, ok := r.info.Types[n.(ast.Expr)]
			if !ok || !tv.IsType() || !generic(x) {
				return true
			}
			if tx := r.typeExpr(tv.Type, n.Pos()); tx != nil {
				c.Replace(tx)
			}
		case *ast.GenDecl:
			if n.Tok != token.TYPE {
				return true
			}
			specs := n.Specs[:0]
			for _, sp := range n.Specs {
				ts := sp.(*ast.TypeSpec)
				if ts.Assign.IsValid() && ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
					continue
				}
				specs = append(specs, sp)
			}
			n.Specs = specs
		}
		return true
	})
	// Declarations left without specs.
	decls := f.Decls[:0]
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE && len(gd.Specs) == 0 {
			continue
		}
		decls = append(decls, d)
	}
	f.Decls = decls
}

// namedConsts writes each constant that the program declared with a
// named type, as an operand of == or !=, as its value converted to the
// type:
//
//	type Kind int
//	const (Deposit Kind = iota + 1; Withdrawal)
//	k == Withdrawal  →  k == Kind(2)
//
// The interpreter kept the value of such a constant whose declaration is
// an expression (iota + 1, 1 << iota, "r" + "ed") so that == and != with
// it were false (k == Withdrawal, Deposit == 1), where a conversion of
// the literal compares rightly. (Its other uses were right; in an array
// literal's index, the conversion was not a constant to it.)
func (r *typedRewriter) namedConsts(f *ast.File) {
	operands := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if be, ok := n.(*ast.BinaryExpr); ok && (be.Op == token.EQL || be.Op == token.NEQ) {
			for _, x := range []ast.Expr{be.X, be.Y} {
				if id, ok := ast.Unparen(x).(*ast.Ident); ok {
					operands[id] = true
				}
			}
		}
		return true
	})
	if len(operands) == 0 {
		return
	}
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		id, ok := c.Node().(*ast.Ident)
		if !ok || !operands[id] {
			return true
		}
		k, ok := r.info.Uses[id].(*types.Const)
		if !ok || k.Pkg() == nil || k.Pkg().Path() != "main" {
			return true
		}
		if _, named := types.Unalias(k.Type()).(*types.Named); !named {
			return true
		}
		tv, ok := r.info.Types[id]
		if !ok || tv.Value == nil {
			return true
		}
		t := r.typeExpr(tv.Type, id.Pos())
		if t == nil {
			return true
		}
		w := &typeWriter{pos: id.Pos()}
		x := &ast.CallExpr{Fun: t, Lparen: id.Pos(), Args: []ast.Expr{w.constExpr(tv.Value, tv.Type)}, Rparen: id.End()}
		r.info.Types[x] = tv
		c.Replace(x)
		return true
	})
}
