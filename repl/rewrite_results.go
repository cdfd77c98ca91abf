package repl

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// namedResults gives every function with named results results of its
// own names, the named ones becoming variables declared at the top of
// its body, zero as Go's results start:
//
//	func sum(n int) (total int) { ...; return }
//
// becomes
//
//	func sum(n int) (_sn_r1 int) { var total int; ...; return total }
//
// The interpreter makes a call's result the place its value goes to in
// the caller (a variable, or a temporary a loop uses again): a named
// result started with the value the last call left there (sum(i) in a
// loop returned 1, 4, 10 for 1, 3, 6), or with the variable's own value
// (x = acc(1) added to x). A function that defers calls, which may change
// its results after a return, returns through its variables, by pointers
// taken at its top (where a return lies, a variable of a result's name
// may shadow the result's):
//
//	return a, b  →  { *p1, *p2 = a, b; return }
//
// and a call it defers ahead of all the others sets the results last:
//
//	defer func() { _sn_r1, _sn_r2 = total, err }()
func (r *typedRewriter) namedResults(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if fn.Body != nil {
				r.namedResultsOf(fn.Type, fn.Body)
			}
		case *ast.FuncLit:
			r.namedResultsOf(fn.Type, fn.Body)
		}
		return true
	})
}

func (r *typedRewriter) namedResultsOf(ft *ast.FuncType, body *ast.BlockStmt) {
	if ft.Results == nil || len(ft.Results.List) == 0 || len(ft.Results.List[0].Names) == 0 {
		return
	}
	pos := body.Lbrace
	var locals, results []ast.Expr
	var decls []ast.Stmt
	for _, field := range ft.Results.List {
		spec := &ast.ValueSpec{Type: copyExpr(field.Type)}
		for i, name := range field.Names {
			local := ident(name.Name, name.Pos())
			if name.Name == "_" {
				local = r.temp("z", name.Pos())
			}
			res := r.temp("r", name.Pos())
			field.Names[i] = res
			spec.Names = append(spec.Names, ident(local.Name, pos))
			locals = append(locals, local)
			results = append(results, res)
		}
		decls = append(decls, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{spec}}})
	}
	names := func() []ast.Expr {
		out := make([]ast.Expr, len(locals))
		for i, l := range locals {
			out[i] = ident(l.(*ast.Ident).Name, pos)
		}
		return out
	}
	deferred := false
	ownStmts(body, func(n ast.Node) {
		if _, ok := n.(*ast.DeferStmt); ok {
			deferred = true
		}
	})
	// Where the function defers calls, its returns set the variables
	// through pointers to them, taken at the top: a return may lie where
	// a variable of the same name shadows one (if v, err := f(); err !=
	// nil { return 0, err }).
	var ptrs []ast.Expr
	if deferred {
		for _, l := range locals {
			p := r.temp("p", pos)
			ptrs = append(ptrs, p)
			decls = append(decls, &ast.AssignStmt{Lhs: []ast.Expr{p}, TokPos: pos, Tok: token.DEFINE,
				Rhs: []ast.Expr{&ast.UnaryExpr{OpPos: pos, Op: token.AND, X: ident(l.(*ast.Ident).Name, pos)}}})
		}
	}
	astutil.Apply(body, func(c *astutil.Cursor) bool {
		switch rs := c.Node().(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			switch {
			case len(rs.Results) == 0:
				rs.Results = names() // no variable of those names shadows them here: Go refuses the bare return
			case deferred:
				lhs := make([]ast.Expr, len(ptrs))
				for i, p := range ptrs {
					lhs[i] = &ast.StarExpr{Star: rs.Pos(), X: ident(p.(*ast.Ident).Name, rs.Pos())}
				}
				c.Replace(&ast.BlockStmt{Lbrace: rs.Pos(), Rbrace: rs.End(), List: []ast.Stmt{
					&ast.AssignStmt{Lhs: lhs, TokPos: rs.Pos(), Tok: token.ASSIGN, Rhs: rs.Results},
					&ast.ReturnStmt{Return: rs.Return},
				}})
			}
		}
		return true
	}, nil)
	if deferred {
		lhs := make([]ast.Expr, len(results))
		for i, x := range results {
			lhs[i] = ident(x.(*ast.Ident).Name, pos)
		}
		set := &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.ASSIGN, Rhs: names()}
		lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{set}, Rbrace: pos}}
		decls = append(decls, &ast.DeferStmt{Defer: pos, Call: &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: pos}})
	}
	body.List = append(decls, body.List...)
}

// ownStmts calls visit for the nodes of body outside its function
// literals.
func ownStmts(body *ast.BlockStmt, visit func(ast.Node)) {
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n != nil {
			visit(n)
		}
		return true
	})
}

// constDivisions writes out the value of a constant expression of a float
// or complex type that divides untyped integer constants, as the checker
// computed it:
//
//	var f float64 = 7 / 2  →  var f float64 = 3.0
//
// Go divides the integers (3); the interpreter converted them to the
// expression's type first (3.5). So are calls of real, imag and complex
// with constant arguments, which the interpreter failed on. Constant
// declarations are left to floatConsts.
func (r *typedRewriter) constDivisions(f *ast.File) {
	astutil.Apply(f, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.GenDecl:
			return n.Tok != token.CONST
		case *ast.BinaryExpr, *ast.ParenExpr, *ast.UnaryExpr, *ast.CallExpr:
			tv, ok := r.info.Types[n.(ast.Expr)]
			if !ok || tv.Value == nil {
				return true
			}
			if call, isCall := n.(*ast.CallExpr); isCall {
				// real, imag and complex of constants: the interpreter
				// failed on them ("reflect: call of
				// reflect.Value.Complex on interface Value").
				if !r.constBuiltin(call) {
					return true
				}
			} else if !floatOrComplex(tv.Type) || !r.intDivision(n.(ast.Expr)) {
				return true
			}
			val := constant.ToFloat(tv.Value)
			if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&types.IsComplex != 0 {
				val = constant.ToComplex(tv.Value)
			}
			w := &typeWriter{pos: n.Pos()}
			x := w.constExpr(val, tv.Type)
			if w.err != nil {
				return true
			}
			if b, ok := tv.Type.(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 {
				// A typed constant keeps its type: float32(1.5).
				if tx := r.typeExpr(tv.Type, n.Pos()); tx != nil {
					x = &ast.CallExpr{Fun: tx, Lparen: n.Pos(), Args: []ast.Expr{x}, Rparen: n.End()}
				}
			}
			c.Replace(&ast.ParenExpr{Lparen: n.Pos(), X: x, Rparen: n.End()})
			return false
		}
		return true
	}, nil)
}

// constBuiltin reports whether call is a call of the builtin real, imag
// or complex.
func (r *typedRewriter) constBuiltin(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := r.info.Uses[id].(*types.Builtin)
	return ok && (b.Name() == "real" || b.Name() == "imag" || b.Name() == "complex")
}

// floatOrComplex reports whether t is a float or complex type, typed or
// not.
func floatOrComplex(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsFloat|types.IsComplex) != 0
}

// intDivision reports whether x divides two untyped integer constants
// (or takes a remainder) somewhere.
func (r *typedRewriter) intDivision(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		be, ok := n.(*ast.BinaryExpr)
		if !ok || found || (be.Op != token.QUO && be.Op != token.REM) {
			return !found
		}
		untypedInt := func(e ast.Expr) bool {
			tv, ok := r.info.Types[e]
			if !ok || tv.Value == nil {
				return false
			}
			b, ok := tv.Type.(*types.Basic)
			return ok && b.Info()&types.IsUntyped != 0 && b.Info()&types.IsInteger != 0
		}
		found = untypedInt(be.X) && untypedInt(be.Y)
		return !found
	})
	return found
}

// variadicSlices passes a variadic argument whose type is the variadic
// parameter's slice type ([]any for ...any) as one value, an element of
// that type:
//
//	report("c", 1, x)  →  report("c", 1, []any{x}[0])
//
// Go passes it as one element of the variadic slice; the interpreter
// took a value of the slice's type for the whole slice, as if spread
// (dropping the arguments before it).
func (r *typedRewriter) variadicSlices(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || call.Ellipsis.IsValid() {
			return true
		}
		sig, ok := r.typeOf(call.Fun).(*types.Signature)
		if !ok || !sig.Variadic() {
			return true
		}
		last := sig.Params().Len() - 1
		slice, ok := sig.Params().At(last).Type().(*types.Slice)
		if !ok || !isInterface(slice.Elem()) {
			return true
		}
		for i := last; i < len(call.Args); i++ {
			t := r.typeOf(call.Args[i])
			if t == nil || !types.Identical(t, slice) {
				continue
			}
			if tx := r.typeExpr(slice, call.Args[i].Pos()); tx != nil {
				// []any{x}[0]: a conversion any(x) keeps the slice's
				// type to the interpreter, an element of an []any does
				// not.
				pos := call.Args[i].Pos()
				lit := &ast.CompositeLit{Type: tx, Lbrace: pos, Elts: []ast.Expr{call.Args[i]}, Rbrace: pos}
				call.Args[i] = &ast.IndexExpr{X: lit, Lbrack: pos, Index: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}, Rbrack: pos}
			}
		}
		return true
	})
}
