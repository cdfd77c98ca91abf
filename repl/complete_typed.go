package repl

import (
	"go/ast"
	"go/parser"
	"go/types"
	"sort"
	"strings"

	"github.com/sparknet-go/sparknet/repl/typecheck"
)

// typedMembers lists the fields and methods of the type of expr, as the
// type checker sees it in the session's scope (methods that inputs
// declared included), and whether the checker could tell its type.
// Nothing is evaluated. The caller holds s.mu.
func (s *Session) typedMembers(expr string) ([]string, bool) {
	tv, pkg, target, ok := s.typedExpr(expr)
	if !ok || tv.IsType() || tv.IsBuiltin() {
		return nil, false
	}
	// The pointer methods of a value that is not addressable (a call's
	// result) cannot be called.
	_, isCall := ast.Unparen(target).(*ast.CallExpr)
	return typeMemberNames(tv.Type, pkg, !isCall), true
}

// typedExpr returns the type (and constant value) of expr as the type
// checker sees it in the session's scope, the package it is checked in,
// and the expression's syntax; false where the checker cannot tell its
// type. Nothing is evaluated. The caller holds s.mu.
func (s *Session) typedExpr(expr string) (types.TypeAndValue, *types.Package, ast.Expr, bool) {
	if s.scope == nil {
		return types.TypeAndValue{}, nil, nil, false
	}
	fset := s.in.FileSet()
	var src strings.Builder
	src.WriteString(s.checkHeader())
	src.WriteString("func _() {\n\t_ = ")
	at := src.Len()
	src.WriteString(expr + "\n}\n")
	f, err := parser.ParseFile(fset, "completion", src.String(), parser.SkipObjectResolution)
	if err != nil {
		return types.TypeAndValue{}, nil, nil, false
	}
	var target ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && target == nil && fset.Position(e.Pos()).Offset == at && fset.Position(e.End()).Offset == at+len(expr) {
			target = e
		}
		return target == nil
	})
	if target == nil {
		return types.TypeAndValue{}, nil, nil, false
	}
	imp := sharedImporter()
	pkg := types.NewPackage("main", "main")
	prelude := s.scope.prelude(imp, pkg, s.preludePos, nil, nil, nil)
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: imp, GoVersion: typecheck.GoVersion, Sizes: imp.Sizes(), Error: func(error) {}}
	types.NewChecker(&conf, fset, pkg, info).Files([]*ast.File{prelude.file, f})
	tv, ok := info.Types[target]
	if !ok || tv.Type == nil {
		return types.TypeAndValue{}, nil, nil, false
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Kind() == types.Invalid {
		return types.TypeAndValue{}, nil, nil, false
	}
	return tv, pkg, target, true
}

// typeMemberNames lists the fields and methods of t (and of *t, when
// addressable) that code in pkg may use.
func typeMemberNames(t types.Type, pkg *types.Package, addressable bool) []string {
	set := map[string]bool{}
	add := func(obj types.Object) {
		if obj.Exported() || obj.Pkg() == pkg {
			set[obj.Name()] = true
		}
	}
	mset := types.NewMethodSet(t)
	if _, isPtr := t.Underlying().(*types.Pointer); addressable && !isPtr && !types.IsInterface(t) {
		mset = types.NewMethodSet(types.NewPointer(t))
	}
	for i := range mset.Len() {
		add(mset.At(i).Obj())
	}
	st := t
	if p, ok := st.Underlying().(*types.Pointer); ok {
		st = p.Elem()
	}
	if s, ok := st.Underlying().(*types.Struct); ok {
		var fields func(s *types.Struct, depth int)
		fields = func(s *types.Struct, depth int) {
			for i := range s.NumFields() {
				f := s.Field(i)
				add(f)
				if f.Embedded() && depth < 4 {
					ft := f.Type()
					if p, ok := ft.Underlying().(*types.Pointer); ok {
						ft = p.Elem()
					}
					if es, ok := ft.Underlying().(*types.Struct); ok {
						fields(es, depth+1)
					}
				}
			}
		}
		fields(s, 0)
	}
	names := make([]string, 0, len(set))
	for n := range set {
		if !strings.HasPrefix(n, "_sn") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
