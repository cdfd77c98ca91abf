package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/repl/typecheck"
)

// promotedForwarders declares on each struct type of a script the
// methods that its values have from an embedded field of a compiled type
// (time.Time, *ndarray.Array, *bytes.Buffer), as methods that call the
// field's:
//
//	type Stamp struct { time.Time; Label string }
//
// gets func (r Stamp) String() string { return r.Time.String() }, and the
// like for each such method. The interpreter did not find them where a
// value of the type (not a pointer to one) became an interface value:
// printing it, or var s fmt.Stringer = stamp, panicked ("method not
// found: String"). The type's own methods, and methods promoted through
// the script's types or through embedded interfaces, are left alone.
func (r *typedRewriter) promotedForwarders(f *ast.File) {
	var added []ast.Decl
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, sp := range gd.Specs {
			ts := sp.(*ast.TypeSpec)
			if ts.TypeParams != nil || ts.Assign.IsValid() {
				continue
			}
			tn, ok := r.info.Defs[ts.Name].(*types.TypeName)
			if !ok {
				continue
			}
			added = append(added, r.forwardersOf(tn, ts.Name.Name, ts.Pos())...)
		}
	}
	f.Decls = append(f.Decls, added...)
}

// forwardersOf returns the forwarding methods of the struct type tn,
// named name in the interpreter's code (see promotedForwarders).
func (r *typedRewriter) forwardersOf(tn *types.TypeName, name string, pos token.Pos) []ast.Decl {
	var decls []ast.Decl
	for _, pm := range r.s.promotedMethods(tn, nil) {
		m, field, sig := pm.m, pm.field, pm.m.Signature()
		recv := r.temp("r", pos)
		params := &ast.FieldList{Opening: pos, Closing: pos}
		var args []ast.Expr
		for j := range sig.Params().Len() {
			pt := sig.Params().At(j).Type()
			if sig.Variadic() && j == sig.Params().Len()-1 {
				pt = pt.(*types.Slice).Elem()
			}
			tx := r.typeExpr(pt, pos)
			if tx == nil {
				return nil
			}
			a := ident(rtName+"_a"+strconv.Itoa(j), pos)
			if sig.Variadic() && j == sig.Params().Len()-1 {
				tx = &ast.Ellipsis{Ellipsis: pos, Elt: tx}
			}
			params.List = append(params.List, &ast.Field{Names: []*ast.Ident{a}, Type: tx})
			args = append(args, ident(a.Name, pos))
		}
		var results *ast.FieldList
		if sig.Results().Len() > 0 {
			results = &ast.FieldList{Opening: pos, Closing: pos}
			for j := range sig.Results().Len() {
				tx := r.typeExpr(sig.Results().At(j).Type(), pos)
				if tx == nil {
					return nil
				}
				results.List = append(results.List, &ast.Field{Type: tx})
			}
		}
		call := &ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: &ast.SelectorExpr{X: ident(recv.Name, pos), Sel: ident(field.Name(), pos)}, Sel: ident(m.Name(), pos)},
			Lparen: pos, Args: args, Rparen: pos,
		}
		if sig.Variadic() {
			call.Ellipsis = pos
		}
		var body ast.Stmt = &ast.ExprStmt{X: call}
		if results != nil {
			body = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
		}
		decls = append(decls, &ast.FuncDecl{
			Recv: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{recv}, Type: ident(name, pos)}}},
			Name: ident(m.Name(), pos),
			Type: &ast.FuncType{Func: pos, Params: params, Results: results},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{body}, Rbrace: pos},
		})
	}
	return decls
}

// promotedMethod is a method that a struct type has from an embedded
// field of a compiled type.
type promotedMethod struct {
	m     *types.Func
	field *types.Var
}

// promotedMethods returns the exported methods that the struct type tn
// (its values, not pointers) has from embedded fields of compiled named
// types (interfaces too: see embeddedInterfaces), less those named in own, those whose
// signatures name a package the interpreter has no table of, and a
// Format that is not fmt.Formatter's (time.Time's: the interpreter,
// which finds fmt.Formatter by the method's name, would call it as one).
func (s *Session) promotedMethods(tn *types.TypeName, own map[string]bool) []promotedMethod {
	st, ok := tn.Type().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var out []promotedMethod
	ms := types.NewMethodSet(tn.Type())
	for i := range ms.Len() {
		sel := ms.At(i)
		m, ok := sel.Obj().(*types.Func)
		// (The methods of the interpreter's interfaces have no package.)
		if !ok || len(sel.Index()) < 2 || !m.Exported() || m.Pkg() != nil && m.Pkg().Path() == "main" || own[m.Name()] {
			continue
		}
		field := st.Field(sel.Index()[0])
		ft := field.Type()
		if p, ok := ft.(*types.Pointer); ok {
			ft = p.Elem()
		}
		fn, ok := types.Unalias(ft).(*types.Named)
		if !ok || !field.Embedded() || fn.Obj().Pkg() == nil && fn.Obj().Name() != "error" || fn.Obj().Pkg() != nil && fn.Obj().Pkg().Path() == "main" {
			continue
		}
		if sig := m.Signature(); !s.knownPackages(sig) || m.Name() == "Format" && !isFmtFormat(sig) {
			continue
		}
		out = append(out, promotedMethod{m, field})
	}
	return out
}

// isFmtFormat reports whether sig is the signature of fmt.Formatter's
// Format(fmt.State, rune).
func isFmtFormat(sig *types.Signature) bool {
	if sig.Params().Len() != 2 || sig.Results().Len() != 0 {
		return false
	}
	n, ok := types.Unalias(sig.Params().At(0).Type()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "fmt" && n.Obj().Name() == "State" &&
		types.Identical(sig.Params().At(1).Type(), types.Typ[types.Int32])
}

// knownPackages reports whether every named type that t is made of
// belongs to the session, a source package, or a package the
// interpreter has a table of.
func (s *Session) knownPackages(t types.Type) bool {
	return !madeOf(t, func(t types.Type) bool {
		n, ok := types.Unalias(t).(*types.Named)
		if !ok || n.Obj().Pkg() == nil {
			return false
		}
		p := n.Obj().Pkg()
		if p.Path() == "main" || typecheck.IsSource(p) {
			return false
		}
		_, known := s.exports[p.Path()+"/"+p.Name()]
		return !known
	})
}

// promotedFile names the source of the methods that promoteMethods
// declares.
const promotedFile = "sparknet-promoted"

// promoteMethods declares, after an input at the prompt or in a notebook
// (seg, checked into c) that declared struct types embedding a compiled
// type, the methods promoted from it, as methods of the type's that call
// the field's (see promotedForwarders, which does it for scripts), from
// source, as if typed next: so they go through function variables as
// the prompt's methods do, and a method of the same name and signature
// declared later replaces one. A method whose signature needs a package
// the interpreter has no table of is left out.
func (s *Session) promoteMethods(ctx context.Context, seg *parsedInput, c *checked) {
	if s.refreshing {
		return
	}
	var b strings.Builder
	imports := map[string]string{} // path → name
	names := map[string]string{}   // name → path
	qual := func(p *types.Package) string {
		if name, ok := imports[p.Path()]; ok {
			return name
		}
		name := p.Name()
		for i := 2; names[name] != ""; i++ {
			name = fmt.Sprintf("%s%d", p.Name(), i)
		}
		imports[p.Path()], names[name] = name, p.Path()
		return name
	}
	for _, tn := range declaredTypes(seg, c) {
		if n, ok := tn.Type().(*types.Named); !ok || n.TypeParams().Len() > 0 {
			continue
		}
		own := map[string]bool{} // methods the input's later segments declare
		if e := s.scope.byID(s.scope.typeOf[tn]); e != nil {
			own = e.methods
		}
		for _, pm := range s.promotedMethods(tn, own) {
			m, field, sig := pm.m, pm.field, pm.m.Signature()
			if madeOf(sig, func(t types.Type) bool {
				n, ok := types.Unalias(t).(*types.Named)
				return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main"
			}) {
				continue // (source names the session's types otherwise)
			}
			var params, args, results []string
			for j := range sig.Params().Len() {
				t := sig.Params().At(j).Type()
				ts := types.TypeString(t, qual)
				a := fmt.Sprintf("a%d", j)
				if sig.Variadic() && j == sig.Params().Len()-1 {
					ts = "..." + types.TypeString(t.(*types.Slice).Elem(), qual)
					a += "..."
				}
				params = append(params, fmt.Sprintf("a%d %s", j, ts))
				args = append(args, a)
			}
			for j := range sig.Results().Len() {
				results = append(results, types.TypeString(sig.Results().At(j).Type(), qual))
			}
			call := fmt.Sprintf("recv.%s.%s(%s)", field.Name(), m.Name(), strings.Join(args, ", "))
			if len(results) > 0 {
				call = "return " + call
			}
			fmt.Fprintf(&b, "func (recv %s) %s(%s) (%s) { %s }\n", tn.Name(), m.Name(), strings.Join(params, ", "), strings.Join(results, ", "), call)
		}
	}
	if b.Len() == 0 {
		return
	}
	var src strings.Builder
	for _, path := range sortedKeys(imports) {
		fmt.Fprintf(&src, "import %s %q\n", imports[path], path)
	}
	src.WriteString(b.String())
	s.refreshing = true
	defer func() { s.refreshing = false }()
	if err := s.evalChunks(ctx, promotedFile, src.String(), 1, false); err != nil {
		fmt.Fprintf(s.stderr, "note: the methods promoted from the embedded fields of %s were not declared, and a value of it (not a pointer) lacks them in an interface: %v\n",
			typeNames(declaredTypes(seg, c)), err)
	}
}

// typeNames lists the names of tns.
func typeNames(tns []*types.TypeName) string {
	var names []string
	for _, tn := range tns {
		names = append(names, tn.Name())
	}
	return strings.Join(names, ", ")
}

// embeddedInterfaces gives each embedded field of a compiled interface
// type with methods (struct{ sort.Interface }, struct{ io.Reader; n int })
// its name, for the interpreter: its reflect.StructOf refused the type
// ("StructOf does not support methods of embedded interfaces"). The
// field keeps its name, Interface or Reader, for selectors, keyed
// literals and printing, and the struct types of the program get the
// interface's methods from promotedForwarders and promoteMethods.
func (r *typedRewriter) embeddedInterfaces(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok || st.Fields == nil {
			return true
		}
		for _, field := range st.Fields.List {
			if len(field.Names) > 0 {
				continue
			}
			t := r.typeOf(field.Type)
			if t == nil || !wrappedInterface(t) {
				continue
			}
			var name *ast.Ident
			switch x := field.Type.(type) {
			case *ast.Ident:
				name = x
			case *ast.SelectorExpr:
				name = x.Sel
			}
			if name != nil {
				field.Names = []*ast.Ident{ident(name.Name, name.Pos())}
			}
		}
		return true
	})
}
