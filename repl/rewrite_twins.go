package repl

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// The interpreter makes a struct type of the session a struct type of
// reflection made of its fields, so two types of the same fields (type
// Cat struct{ Name string } and type Dog struct{ Name string }) are one
// type to it: a type switch on an any holding a Dog took case Cat, an
// assertion to Cat of it succeeded, a Dog equalled a Cat of the same
// name, and printing one through an interface called the other's String
// method. Each such type after the first of its fields (its twin, in the
// order the session declares them) gets a field of its own that takes
// no room and that nothing else sees, which makes its reflection type
// differ:
//
//	type Dog struct{ _sn_twin_Dog struct{}; Name string }
//
// The checker and the rewrites see the type as the input declares it;
// printing names the fields from the checker. A literal of the type with
// its values in order gets the field's value first (Dog{"rex"} becomes
// Dog{struct{}{}, "rex"}), in this input and in later ones, and a
// conversion between twins, which the interpreter cannot make of types
// with other fields, copies the fields one by one.

// twinField is the name of the field that marks a twin type T
// (twinField + "T"): unexported, so that the interpreter's renaming of
// unexported fields tags it out of encoding/json's and encoding/xml's
// sight.
const twinField = rtName + "_twin_"

// twinTypes gives each struct type that f declares at the package's level
// and that has a twin declared before it the field that marks it, and
// records which of the session's types are marked (Session.twins).
func (r *typedRewriter) twinTypes(f *ast.File) {
	scope := r.c.pkg.Scope()
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, isStruct := ts.Type.(*ast.StructType)
		obj, _ := r.info.Defs[ts.Name].(*types.TypeName)
		if !isStruct || obj == nil || obj.Parent() != scope || ts.Assign.IsValid() || ts.TypeParams != nil {
			return false
		}
		if !hasTwinBefore(scope, obj) {
			delete(r.s.twins, obj.Name())
			return false
		}
		if r.s.twins == nil {
			r.s.twins = map[string]bool{}
		}
		r.s.twins[obj.Name()] = true
		pos := st.Struct
		mark := &ast.Field{Names: []*ast.Ident{ident(twinField+obj.Name(), pos)}, Type: emptyStructType(pos)}
		st.Fields.List = append([]*ast.Field{mark}, st.Fields.List...)
		return false
	})
}

// hasTwinBefore reports whether scope holds a struct type declared
// before obj (the session's types before the input's) other than obj and
// of another name, not generic, whose underlying type is identical to
// obj's.
func hasTwinBefore(scope *types.Scope, obj *types.TypeName) bool {
	for _, name := range scope.Names() {
		o, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || o == obj || o.Name() == obj.Name() || o.IsAlias() || o.Pos() >= obj.Pos() {
			continue
		}
		if nt, ok := o.Type().(*types.Named); !ok || nt.TypeParams().Len() > 0 {
			continue
		}
		if types.Identical(o.Type().Underlying(), obj.Type().Underlying()) {
			return true
		}
	}
	return false
}

// emptyStructType writes struct{}.
func emptyStructType(pos token.Pos) ast.Expr {
	return &ast.StructType{Struct: pos, Fields: &ast.FieldList{Opening: pos, Closing: pos}}
}

// twinType returns the session's type that t names when it is a marked
// twin (twinTypes).
func (r *typedRewriter) twinType(t types.Type) (*types.TypeName, bool) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || len(r.s.twins) == 0 || n.TypeArgs().Len() > 0 {
		return nil, false
	}
	obj := n.Obj()
	if obj.Parent() != r.c.pkg.Scope() || !r.s.twins[obj.Name()] {
		return nil, false
	}
	return obj, true
}

// twinLiterals puts the value of the marking field first in the
// literals of marked types that give their values in order, and
// rewrites the conversions between a marked type and another of the same
// fields as
//
//	func(v X) T { return T{A: v.A, B: v.B} }(x)
func (r *typedRewriter) twinLiterals(f *ast.File) {
	if len(r.s.twins) == 0 {
		return
	}
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.CompositeLit:
			if len(n.Elts) == 0 {
				return true
			}
			if _, keyed := n.Elts[0].(*ast.KeyValueExpr); keyed {
				return true
			}
			if _, ok := r.twinType(r.typeOf(n)); ok {
				pos := n.Lbrace
				n.Elts = append([]ast.Expr{&ast.CompositeLit{Type: emptyStructType(pos), Lbrace: pos, Rbrace: pos}}, n.Elts...)
			}
		case *ast.CallExpr:
			if lit := r.twinConversion(n); lit != nil {
				c.Replace(lit)
			}
		}
		return true
	})
}

// twinConversion returns the rewritten form of call when it converts
// between two struct types of the same fields, one of them marked, else
// nil.
func (r *typedRewriter) twinConversion(call *ast.CallExpr) ast.Expr {
	if len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return nil
	}
	tv, ok := r.info.Types[call.Fun]
	if !ok || !tv.IsType() {
		return nil
	}
	to, from := tv.Type, r.typeOf(call.Args[0])
	if from == nil || types.Identical(to, from) {
		return nil
	}
	st, ok := to.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	_, toTwin := r.twinType(to)
	_, fromTwin := r.twinType(from)
	if !toTwin && !fromTwin {
		return nil
	}
	pos := call.Pos()
	te, fe := r.typeExpr(to, pos), r.typeExpr(from, pos)
	if te == nil || fe == nil {
		return nil
	}
	v := r.temp("v", pos)
	var elts []ast.Expr
	if toTwin {
		elts = append(elts, &ast.CompositeLit{Type: emptyStructType(pos), Lbrace: pos, Rbrace: pos})
	}
	for fld := range st.Fields() {
		if fld.Name() == "_" {
			return nil // a blank field cannot be copied by name
		}
		elts = append(elts, &ast.SelectorExpr{X: ident(v.Name, pos), Sel: ident(fld.Name(), pos)})
	}
	lit := &ast.CompositeLit{Type: r.typeExpr(to, pos), Lbrace: pos, Elts: elts, Rbrace: pos}
	conv := funcCall(v, fe, te, lit, pos, call.Args[0])
	if tv, ok := r.info.Types[call]; ok {
		r.info.Types[conv] = tv // for the rewrites after this one (printing)
	}
	return conv
}

// funcCall writes func(v X) T { return res }(x).
func funcCall(v *ast.Ident, xe, te, res ast.Expr, pos token.Pos, x ast.Expr) ast.Expr {
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{v}, Type: xe}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: te}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{res}}}},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}
