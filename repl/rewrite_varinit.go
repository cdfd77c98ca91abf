package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// packageVarInits moves the initializers of a file's package-level
// variables into an init function ahead of the file's own, in the order
// Go initializes them (the checker's InitOrder), where one of them
// refers to a variable of an earlier input or holds a function literal:
//
//	var handlers = map[string]func() int{"a": func() int { return 1 }}
//	var n = sc.Workers()
//
// become var handlers map[string]func() int; var n int and
//
//	func init() { handlers = map[string]func() int{...}; n = sc.Workers() }
//
// The interpreter orders a file's variables by the variables their
// initializers name, and refused one that names a variable of an earlier
// input ("variable definition loop"): the session's sc and ctx, and the
// counter that the shell's probes add to every function literal. Every
// initializer of the file moves, so that they keep Go's order among
// themselves; a variable whose type cannot be written leaves the file
// as it was. So do those of a file with a variable of several that one
// call initializes (var x, y = pair()), whose function the interpreter
// did not find declared when it came later in the file.
func (r *typedRewriter) packageVarInits(f *ast.File) {
	type place struct {
		spec *ast.ValueSpec
		i    int
	}
	here := map[types.Object]place{}
	var specs []*ast.ValueSpec
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) == 0 {
				continue
			}
			specs = append(specs, vs)
			for i, n := range vs.Names {
				if obj := r.info.Defs[n]; obj != nil {
					here[obj] = place{vs, i}
				}
			}
		}
	}
	needs := func(x ast.Expr) bool {
		found := false
		ast.Inspect(x, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				found = true
			case *ast.Ident:
				if strings.HasPrefix(n.Name, rtName+"_") {
					found = true
				} else if v, ok := r.info.Uses[n].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "main" && v.Parent() == v.Pkg().Scope() {
					if _, ok := here[v]; !ok {
						found = true
					}
				}
			}
			return !found
		})
		return found
	}
	multi := func(vs *ast.ValueSpec) bool { return len(vs.Names) > 1 && len(vs.Values) == 1 }
	if !slices.ContainsFunc(specs, func(vs *ast.ValueSpec) bool { return multi(vs) || slices.ContainsFunc(vs.Values, needs) }) {
		return
	}
	// The variables' types, written before anything changes: one for
	// the spec, or one for each name where they differ (var a, b = 1,
	// "x" becomes var a int; var b string).
	typ := map[*ast.ValueSpec][]ast.Expr{}
	for _, vs := range specs {
		if vs.Type != nil {
			continue
		}
		same := true
		for _, n := range vs.Names {
			o := r.info.Defs[n]
			if o == nil {
				return
			}
			same = same && types.Identical(o.Type(), r.info.Defs[vs.Names[0]].Type())
		}
		for _, n := range vs.Names {
			t := r.typeExpr(r.info.Defs[n].Type(), vs.Pos())
			if t == nil {
				return
			}
			typ[vs] = append(typ[vs], t)
			if same {
				break
			}
		}
	}
	var body []ast.Stmt
	done := map[*ast.ValueSpec]int{}
	for _, in := range r.info.InitOrder {
		p, ok := here[in.Lhs[0]]
		if !ok {
			continue
		}
		vs, pos := p.spec, p.spec.Pos()
		as := &ast.AssignStmt{TokPos: pos, Tok: token.ASSIGN}
		if multi(vs) { // var a, b = f(), or made so (genericInits)
			if done[vs] > 0 {
				continue
			}
			for _, n := range vs.Names {
				as.Lhs = append(as.Lhs, ident(n.Name, n.Pos()))
			}
			as.Rhs = vs.Values
			body = append(body, as)
			done[vs] = len(vs.Names)
			continue
		}
		n := vs.Names[p.i]
		as.Lhs = []ast.Expr{ident(n.Name, n.Pos())}
		as.Rhs = []ast.Expr{vs.Values[p.i]}
		body = append(body, as)
		done[vs]++
	}
	for _, vs := range specs {
		if done[vs] != len(vs.Names) {
			return // an initializer the checker did not order
		}
	}
	split := map[*ast.ValueSpec]bool{}
	for _, vs := range specs {
		if vs.Type == nil {
			vs.Type = typ[vs][0]
			split[vs] = len(typ[vs]) > 1
		}
		vs.Values = nil
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for k := 0; k < len(gd.Specs); k++ {
			vs := gd.Specs[k].(*ast.ValueSpec)
			if !split[vs] {
				continue
			}
			var each []ast.Spec
			for i, n := range vs.Names {
				each = append(each, &ast.ValueSpec{Names: []*ast.Ident{n}, Type: typ[vs][i]})
			}
			gd.Specs = slices.Replace(gd.Specs, k, k+1, each...)
			k += len(each) - 1
			if !gd.Lparen.IsValid() {
				gd.Lparen, gd.Rparen = gd.TokPos, gd.End()
			}
		}
	}
	pos := specs[0].Pos()
	init := &ast.FuncDecl{Name: ident("init", pos), Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
		Body: &ast.BlockStmt{Lbrace: pos, List: body, Rbrace: pos}}
	at := slices.IndexFunc(f.Decls, func(d ast.Decl) bool {
		fd, ok := d.(*ast.FuncDecl)
		return ok && fd.Recv == nil && fd.Name.Name == "init"
	})
	if at < 0 {
		at = len(f.Decls)
	}
	f.Decls = slices.Insert(f.Decls, at, ast.Decl(init))
}
