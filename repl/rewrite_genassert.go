package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"

	"golang.org/x/tools/go/ast/astutil"
)

// genericPtrAsserts rewrites, in generic code, an assertion to a pointer
// to an instance of a generic type of several type parameters, made of
// the code's type parameters (an LRU cache's e.Value.(*entry[K, V])):
//
//	x.(*entry[K, V])
//
// becomes
//
//	func(v any) *entry[K, V] {
//		var t *entry[K, V]
//		_sn.AssertInto(&t, v, "interface {}", "*main.entry[K,V]")
//		return t
//	}(x)
//
// and v, ok := x.(*entry[K, V]) a literal that returns t and whether
// _sn.AssignIf could set it. The interpreter took such a type, written
// where an expression goes, for a dereference, and failed ("CFG
// post-order panic"); as a variable's or a result's type it is read as
// a type.
func (r *typedRewriter) genericPtrAsserts(f *ast.File) {
	if len(r.generic) == 0 {
		return
	}
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		ta, ok := c.Node().(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil || !r.inGeneric(ta) {
			return true
		}
		star, ok := ta.Type.(*ast.StarExpr)
		if !ok {
			return true
		}
		if _, ok := star.X.(*ast.IndexListExpr); !ok {
			return true
		}
		commaOK := false
		switch p := c.Parent().(type) {
		case *ast.AssignStmt:
			commaOK = len(p.Lhs) == 2 && len(p.Rhs) == 1
		case *ast.ValueSpec:
			commaOK = len(p.Names) == 2 && len(p.Values) == 1
		}
		pos := ta.Pos()
		target := displayName(r.typeOf(ta.Type))
		if target == "" {
			target = types.ExprString(ta.Type)
		}
		iface := "interface {}"
		if t := r.typeOf(ta.X); t != nil {
			iface = displayName(t)
		}
		v, t := r.temp("v", pos), r.temp("t", pos)
		rt := func(fn string, args ...ast.Expr) *ast.CallExpr {
			return &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(fn, pos)}, Lparen: pos, Args: args, Rparen: pos}
		}
		addr := &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: ident(t.Name, pos)}
		decl := &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR,
			Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{t}, Type: copyExpr(ta.Type)}}}}
		results := &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: copyExpr(ta.Type)}}}
		var body []ast.Stmt
		if commaOK {
			ok := r.temp("ok", pos)
			results.List = append(results.List, &ast.Field{Type: ident("bool", pos)})
			body = []ast.Stmt{decl,
				&ast.AssignStmt{Lhs: []ast.Expr{ok}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{rt("AssignIf", addr, ident(v.Name, pos))}},
				&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(t.Name, pos), ident(ok.Name, pos)}}}
		} else {
			body = []ast.Stmt{decl,
				&ast.ExprStmt{X: rt("AssertInto", addr, ident(v.Name, pos),
					&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(iface)},
					&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(target)})},
				&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(t.Name, pos)}}}
		}
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos,
				Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{v}, Type: ident("any", pos)}}},
				Results: results},
			Body: &ast.BlockStmt{Lbrace: pos, List: body, Rbrace: pos},
		}
		c.Replace(&ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{ta.X}, Rparen: ta.End()})
		return true
	})
}

// assignIf is the runtime's AssignIf: it sets *p (p a pointer to a
// variable) to v and reports true where v's dynamic type is the
// variable's.
func assignIf(p any, v any) bool {
	dst := reflect.ValueOf(p).Elem()
	v = interpValue(v)
	if v == nil || reflect.TypeOf(v) != dst.Type() {
		return false
	}
	dst.Set(reflect.ValueOf(v))
	return true
}

// assertInto is the runtime's AssertInto: assignIf, which panics as a
// failed assertion x.(T) does (x of type iface, T named target) where v
// is not of the variable's type.
func assertInto(p any, v any, iface, target string) {
	if !assignIf(p, v) {
		panic(assertTypeFail(valueOf(v), iface, target))
	}
}
