package repl

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The interpreter builds the reflection type of a struct type that
// refers to itself (type Dir struct{ Subs []Dir }) in two steps, a
// stand-in type first for each reference, then the real one in its
// place; but when it builds the type as a field of another struct
// (type FS struct{ Root Dir }) before it has built it alone, the stand-in
// stays in the type of the field's elements, and appending to
// fs.Root.Subs fails to compile ("cannot use type main.Dir as type
// unsafe2.dummy"). recursiveTypes makes it build each such type alone
// first: it declares a variable of it, var _ Dir, among a file's
// declarations, or right after the statement that declares the last of
// them, each after those it refers to (which the interpreter would
// otherwise build inside it, as a field). Types that refer to each other
// (type X struct{ Ys []Y }; type Y struct{ Xs []X }) are left alone: the
// interpreter gets one of them wrong in any order, and building them
// first made it crash where it had refused to compile.
func (r *typedRewriter) recursiveTypes(f *ast.File, kind chunkKind) {
	var specs []*ast.TypeSpec
	last := -1 // the statement that declares the last of them
	if kind == stmtChunk {
		for i, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
			if ds, ok := st.(*ast.DeclStmt); ok {
				if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
					n := len(specs)
					specs = r.recursiveSpecs(gd, specs)
					if len(specs) > n {
						last = i
					}
				}
			}
		}
	} else {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				specs = r.recursiveSpecs(gd, specs)
			}
		}
	}
	if len(specs) == 0 {
		return
	}
	named := map[*types.Named]*ast.TypeSpec{}
	for _, sp := range specs {
		named[r.info.Defs[sp.Name].Type().(*types.Named)] = sp
	}
	var decls []ast.Stmt
	var gds []ast.Decl
	// The variables are _ among declarations; among statements, where _
	// cannot be declared, temporaries of the session's.
	name := func(pos token.Pos) *ast.Ident {
		if kind == stmtChunk {
			return r.temp("r", pos)
		}
		return ident("_", pos)
	}
	done := map[*types.Named]bool{}
	var emit func(n *types.Named)
	emit = func(n *types.Named) {
		if done[n] {
			return
		}
		done[n] = true
		for _, o := range namedIn(n.Underlying(), nil, map[types.Type]bool{}) {
			emit(o)
		}
		if _, ok := named[n]; !ok {
			return
		}
		pos := named[n].Name.Pos()
		tx := r.typeExpr(n, pos)
		if tx == nil {
			return
		}
		gd := &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{name(pos)}, Type: tx}}}
		gds = append(gds, gd)
		decls = append(decls, &ast.DeclStmt{Decl: gd})
		if kind == stmtChunk {
			v := gd.Specs[0].(*ast.ValueSpec).Names[0]
			decls = append(decls, &ast.AssignStmt{Lhs: []ast.Expr{ident("_", pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(v.Name, pos)}})
		}
	}
	for _, sp := range specs {
		emit(r.info.Defs[sp.Name].Type().(*types.Named))
	}
	if kind != stmtChunk {
		f.Decls = append(f.Decls, gds...)
		return
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	list := append([]ast.Stmt{}, body.List[:last+1]...)
	list = append(list, decls...)
	body.List = append(list, body.List[last+1:]...)
}

// recursiveSpecs appends to specs those of gd's that declare struct
// types that refer to themselves and can be built alone (builtAlone),
// not generic, unless tangled with types in cycles.
func (r *typedRewriter) recursiveSpecs(gd *ast.GenDecl, specs []*ast.TypeSpec) []*ast.TypeSpec {
	for _, s := range gd.Specs {
		sp, ok := s.(*ast.TypeSpec)
		if !ok || sp.TypeParams != nil || sp.Assign.IsValid() {
			continue
		}
		tn, ok := r.info.Defs[sp.Name].(*types.TypeName)
		if !ok {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		if _, isStruct := n.Underlying().(*types.Struct); isStruct && builtAlone(n, map[*types.Named]bool{}) && !r.tangled(n) {
			specs = append(specs, sp)
		}
	}
	return specs
}

// builtAlone reports whether the named type n refers to itself directly,
// is in no cycle with other types (inCycle), and of the program's other
// types it is made of, those that refer to themselves are built alone
// too: the interpreter builds those inside n's type otherwise, and gets
// types in cycles wrong there.
func builtAlone(n *types.Named, seen map[*types.Named]bool) bool {
	if seen[n] {
		return true
	}
	seen[n] = true
	if !refersToSelf(n.Underlying(), n, true, map[types.Type]bool{}) || inCycle(n) {
		return false
	}
	for _, o := range reachable(n) {
		if o != n && refersToSelf(o.Underlying(), o, false, map[types.Type]bool{}) && !builtAlone(o, seen) {
			return false
		}
	}
	return true
}

// tangled reports whether a type in a cycle (inCycle) refers to n or is
// referred to by it, through the program's other types in either
// direction: building n alone first once made the interpreter fail on
// such a type that it had got right.
func (r *typedRewriter) tangled(n *types.Named) bool {
	var all []*types.Named
	scope := r.c.pkg.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
			if t, ok := tn.Type().(*types.Named); ok {
				all = append(all, t)
			}
		}
	}
	near := map[*types.Named][]*types.Named{}
	for _, t := range all {
		for _, o := range namedIn(t.Underlying(), nil, map[types.Type]bool{}) {
			near[t] = append(near[t], o)
			near[o] = append(near[o], t)
		}
	}
	seen := map[*types.Named]bool{n: true}
	stack := []*types.Named{n}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if inCycle(t) {
			return true
		}
		for _, o := range near[t] {
			if !seen[o] {
				seen[o] = true
				stack = append(stack, o)
			}
		}
	}
	return false
}

// reachable returns the program's named types that n is made of, through
// others too.
func reachable(n *types.Named) []*types.Named {
	seen := map[*types.Named]bool{n: true}
	out := []*types.Named{}
	stack := []*types.Named{n}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, o := range namedIn(t.Underlying(), nil, map[types.Type]bool{}) {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
				stack = append(stack, o)
			}
		}
	}
	return out
}

// inCycle reports whether the named type n refers to another of the
// program's named types that refers to n.
func inCycle(n *types.Named) bool {
	for _, o := range namedIn(n.Underlying(), nil, map[types.Type]bool{}) {
		if o != n && refersToSelf(o.Underlying(), n, false, map[types.Type]bool{}) {
			return true
		}
	}
	return false
}

// namedIn appends to out the program's named types that t is made of,
// not looking into them.
func namedIn(t types.Type, out []*types.Named, seen map[types.Type]bool) []*types.Named {
	if seen[t] {
		return out
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if p := t.Obj().Pkg(); p != nil && p.Path() == "main" {
			out = append(out, t)
		}
	case *types.Pointer:
		out = namedIn(t.Elem(), out, seen)
	case *types.Slice:
		out = namedIn(t.Elem(), out, seen)
	case *types.Array:
		out = namedIn(t.Elem(), out, seen)
	case *types.Chan:
		out = namedIn(t.Elem(), out, seen)
	case *types.Map:
		out = namedIn(t.Elem(), namedIn(t.Key(), out, seen), seen)
	case *types.Struct:
		for i := range t.NumFields() {
			out = namedIn(t.Field(i).Type(), out, seen)
		}
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tup.Len() {
				out = namedIn(tup.At(i).Type(), out, seen)
			}
		}
	}
	return out
}

// refersToSelf reports whether type t refers to the named type n: is it,
// or is made of it, through the program's other named types too unless
// direct.
func refersToSelf(t types.Type, n *types.Named, direct bool, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if t == n {
			return true
		}
		if !direct {
			if p := t.Obj().Pkg(); p != nil && p.Path() == "main" {
				return refersToSelf(t.Underlying(), n, direct, seen)
			}
		}
		return false
	case *types.Pointer:
		return refersToSelf(t.Elem(), n, direct, seen)
	case *types.Slice:
		return refersToSelf(t.Elem(), n, direct, seen)
	case *types.Array:
		return refersToSelf(t.Elem(), n, direct, seen)
	case *types.Chan:
		return refersToSelf(t.Elem(), n, direct, seen)
	case *types.Map:
		return refersToSelf(t.Key(), n, direct, seen) || refersToSelf(t.Elem(), n, direct, seen)
	case *types.Struct:
		for i := range t.NumFields() {
			if refersToSelf(t.Field(i).Type(), n, direct, seen) {
				return true
			}
		}
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tup.Len() {
				if refersToSelf(tup.At(i).Type(), n, direct, seen) {
					return true
				}
			}
		}
	}
	return false
}
