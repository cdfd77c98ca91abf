package repl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
)

// instanceAliases names the instantiated generic types of a chunk's
// composite literals by aliases: pair[string, int]{"a", 1} becomes
// A{"a", 1}, with type A = pair[string, int] declared at the top level:
// among a file's declarations, or right before the first top-level
// statement that uses it. The interpreter mixes up the
// instantiations that composite literals spell out: a second
// pair[string, int]{…} in another literal broke the first (a value of
// the wrong type, or "call of nil function"), and one as an element of a
// []pair[string, int] literal failed to compile. Through an alias every
// literal names one declared type, identical to the instantiation (Go's
// alias), so values, assignments and %T are unchanged.
//
// Only types the top level can name are rewritten: type arguments made
// of predeclared, imported and the session's package-level types, and of
// slices, arrays, maps, pointers and channels of them; none inside a
// generic function, whose type parameters the alias could not see.
// Instantiations of one type within a chunk share an alias.
func (r *typedRewriter) instanceAliases(f *ast.File, kind chunkKind) {
	names := map[string]*ast.Ident{}
	if kind != stmtChunk {
		// Declarations, in any order: the aliases join them.
		for _, src := range r.aliasLits(f, names) {
			if gd := r.aliasDecl(src, f.Package); gd != nil {
				f.Decls = append(f.Decls, gd)
			}
		}
		return
	}
	// Statements run as one block at the top level, where a type they
	// declare is declared: each alias comes right before the first
	// statement that uses it, after the declarations before that.
	body := f.Decls[0].(*ast.FuncDecl).Body
	var list []ast.Stmt
	for _, st := range body.List {
		for _, src := range r.aliasLits(st, names) {
			if gd := r.aliasDecl(src, st.Pos()); gd != nil {
				list = append(list, &ast.DeclStmt{Decl: gd})
			}
		}
		list = append(list, st)
	}
	body.List = list
}

// aliasDecl parses an alias's declaration, placed at pos.
func (r *typedRewriter) aliasDecl(src string, pos token.Pos) *ast.GenDecl {
	af, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		r.fail(err)
		return nil
	}
	gd := af.Decls[0].(*ast.GenDecl)
	ts := gd.Specs[0].(*ast.TypeSpec)
	ast.Inspect(ts, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			id.NamePos = pos
		}
		return true
	})
	ts.Assign = pos
	return &ast.GenDecl{TokPos: pos, Tok: gd.Tok, Specs: gd.Specs}
}

// aliasLits rewrites the composite literals under n whose types
// instanceAliases names by aliases, and returns the declarations of the
// aliases that names did not hold yet (adding them).
func (r *typedRewriter) aliasLits(n ast.Node, names map[string]*ast.Ident) []string {
	var decls []string
	// alias returns the alias's name for type t, written at pos, or nil.
	// The type arguments of t that are instances themselves are written
	// as aliases of their own: the interpreter failed on
	// Box[Pair[string, int]] (a nil dereference), not on Box[A].
	var alias func(t types.Type, pos token.Pos) *ast.Ident
	alias = func(t types.Type, pos token.Pos) *ast.Ident {
		key := types.TypeString(t, nil)
		id := names[key]
		if id == nil {
			x := r.typeExpr(t, pos)
			if x == nil {
				return nil
			}
			if nt, ok := types.Unalias(t).(*types.Named); ok {
				var args []ast.Expr
				switch ix := x.(type) {
				case *ast.IndexExpr:
					args = []ast.Expr{ix.Index}
				case *ast.IndexListExpr:
					args = ix.Indices
				}
				for i := range args {
					if i < nt.TypeArgs().Len() && instanceArg(nt.TypeArgs().At(i)) {
						if aid := alias(nt.TypeArgs().At(i), pos); aid != nil {
							args[i] = aid
						}
					}
				}
			}
			var text bytes.Buffer
			if err := printer.Fprint(&text, token.NewFileSet(), x); err != nil {
				return nil
			}
			id = r.temp("T", pos)
			names[key] = id
			decls = append(decls, fmt.Sprintf("package main\ntype %s = %s\n", id.Name, text.String()))
		}
		return ident(id.Name, pos)
	}
	astutil.Apply(n, nil, func(c *astutil.Cursor) bool {
		if x, ok := c.Node().(ast.Expr); ok {
			// A type argument (instantiate notes them): the interpreter
			// fails on f[pair[string, int]](…) (a nil dereference),
			// which f[A](…) avoids.
			if t, ok := r.typeArgExprs[x]; ok && hasInstance(t) && topLevelType(t) {
				if id := alias(t, x.Pos()); id != nil {
					c.Replace(id)
				}
				return true
			}
		}
		switch x := c.Node().(type) {
		case *ast.IndexExpr, *ast.IndexListExpr:
			// An instance whose type arguments are instances, as a
			// type: var x Box[Pair[string, int]].
			tv, ok := r.info.Types[x.(ast.Expr)]
			if !ok || !tv.IsType() {
				return true
			}
			nt, ok := types.Unalias(tv.Type).(*types.Named)
			if !ok || !isSession(nt.Origin().Obj()) || !topLevelType(nt) {
				return true
			}
			for i := range nt.TypeArgs().Len() {
				if instanceArg(nt.TypeArgs().At(i)) {
					if id := alias(nt, x.Pos()); id != nil {
						c.Replace(id)
					}
					break
				}
			}
			return true
		}
		lit, ok := c.Node().(*ast.CompositeLit)
		if !ok || lit.Type == nil {
			return true
		}
		switch lit.Type.(type) {
		case *ast.IndexExpr, *ast.IndexListExpr:
		default:
			return true
		}
		t := r.typeOf(lit.Type)
		nt, ok := t.(*types.Named)
		if !ok || nt.TypeArgs().Len() == 0 || !isSession(nt.Origin().Obj()) || !topLevelType(t) {
			return true
		}
		if id := alias(t, lit.Type.Pos()); id != nil {
			lit.Type = id
		}
		return true
	})
	return decls
}

// instanceArg reports whether a type argument t is itself an instance of
// one of the session's generic types.
func instanceArg(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.TypeArgs().Len() > 0 && isSession(n.Origin().Obj())
}

// hasInstance reports whether t is or is made of an instance of one of
// the session's generic types.
func hasInstance(t types.Type) bool {
	return madeOf(t, func(t types.Type) bool {
		n, ok := t.(*types.Named)
		return ok && n.TypeArgs().Len() > 0 && isSession(n.Origin().Obj())
	})
}

// madeOf reports whether is holds for t or for a type t is made of: a
// named type's type arguments, the elements of pointers, slices, arrays,
// channels and maps (and their keys), functions' parameters and results,
// structs' fields.
func madeOf(t types.Type, is func(types.Type) bool) bool {
	return madeOfParts(t, is, true)
}

// madeOfParts is madeOf, looking into named types' type arguments and
// functions' results only with all.
func madeOfParts(t types.Type, is func(types.Type) bool, all bool) bool {
	t = types.Unalias(t)
	if is(t) {
		return true
	}
	switch t := t.(type) {
	case *types.Named:
		if all {
			for a := range t.TypeArgs().Types() {
				if madeOfParts(a, is, all) {
					return true
				}
			}
		}
	case *types.Pointer:
		return madeOfParts(t.Elem(), is, all)
	case *types.Slice:
		return madeOfParts(t.Elem(), is, all)
	case *types.Array:
		return madeOfParts(t.Elem(), is, all)
	case *types.Chan:
		return madeOfParts(t.Elem(), is, all)
	case *types.Map:
		return madeOfParts(t.Key(), is, all) || madeOfParts(t.Elem(), is, all)
	case *types.Signature:
		lists := []*types.Tuple{t.Params()}
		if all {
			lists = append(lists, t.Results())
		}
		for _, l := range lists {
			for v := range l.Variables() {
				if madeOfParts(v.Type(), is, all) {
					return true
				}
			}
		}
	case *types.Struct:
		for f := range t.Fields() {
			if madeOfParts(f.Type(), is, all) {
				return true
			}
		}
	}
	return false
}

// topLevelType reports whether t can be named at the top level: no type
// parameter, no type declared inside a function, nothing but named,
// basic, slice, array, map, pointer and channel types.
func topLevelType(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return true
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && obj.Parent() != obj.Pkg().Scope() {
			return false
		}
		for a := range t.TypeArgs().Types() {
			if !topLevelType(a) {
				return false
			}
		}
		return true
	case *types.Pointer:
		return topLevelType(t.Elem())
	case *types.Slice:
		return topLevelType(t.Elem())
	case *types.Array:
		return topLevelType(t.Elem())
	case *types.Chan:
		return topLevelType(t.Elem())
	case *types.Map:
		return topLevelType(t.Key()) && topLevelType(t.Elem())
	}
	return false
}

// genericInits moves the values of the package-level variables of a
// chunk of declarations that use a generic function into functions of
// their own, declared right before them:
//
//	var best = slices.Max(scores)
//
// becomes
//
//	func _sn_init1() int { return slices.Max[[]int, int](scores) }
//	var best = _sn_init1()
//
// The interpreter cannot instantiate a generic function while it
// initialises a package's variables ("nil reflect type"; in a function
// literal, "undefined type for E"), but it can in a declared function.
// A variable whose type cannot be written at the top level keeps its
// value.
func (r *typedRewriter) genericInits(f *ast.File, kind chunkKind) {
	if kind == stmtChunk {
		return
	}
	var decls []ast.Decl
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			decls = append(decls, d)
			continue
		}
		for _, sp := range gd.Specs {
			if fd := r.genericInit(sp.(*ast.ValueSpec)); fd != nil {
				decls = append(decls, fd)
			}
		}
		decls = append(decls, d)
	}
	f.Decls = decls
}

// genericInit rewrites the values of vs (see genericInits) and returns
// the function that computes them, or nil when they use no generic
// function or a type cannot be written.
func (r *typedRewriter) genericInit(vs *ast.ValueSpec) *ast.FuncDecl {
	if len(vs.Values) == 0 || !r.usesGeneric(vs.Values) {
		return nil
	}
	pos := vs.Pos()
	results := &ast.FieldList{Opening: pos, Closing: pos}
	for _, name := range vs.Names {
		v, ok := r.info.Defs[name].(*types.Var)
		if !ok {
			return nil
		}
		tx := r.typeExpr(v.Type(), pos)
		if tx == nil {
			return nil
		}
		results.List = append(results.List, &ast.Field{Type: tx})
	}
	fn := r.temp("init", pos)
	fd := &ast.FuncDecl{Name: fn, Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}, Results: results},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: vs.Values}}, Rbrace: pos}}
	vs.Values = []ast.Expr{&ast.CallExpr{Fun: ident(fn.Name, pos), Lparen: pos, Rparen: pos}}
	return fd
}

// usesGeneric reports whether one of xs uses a generic function.
func (r *typedRewriter) usesGeneric(xs []ast.Expr) bool {
	found := false
	for _, x := range xs {
		ast.Inspect(x, func(n ast.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *ast.Ident, *ast.SelectorExpr:
				if id, _ := r.genericFunc(n.(ast.Expr)); id != nil {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// genericValues turns each use of an instantiated generic function that
// is not called (a function value: f := slices.Max[[]int]) into a
// function literal that calls it,
//
//	func(_sn_a1 []int) int { return slices.Max[[]int, int](_sn_a1) }
//
// The interpreter compiles a generic function only where it is called:
// as a value it failed ("not a generic type", or a panic of its own at
// the top level). Calls stay as they are (instantiate spelled their type
// arguments out).
func (r *typedRewriter) genericValues(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		var fun ast.Expr
		switch n := c.Node().(type) {
		case *ast.IndexExpr:
			fun = n.X
		case *ast.IndexListExpr:
			fun = n.X
		default:
			return true
		}
		if call, ok := c.Parent().(*ast.CallExpr); ok && c.Name() == "Fun" && call.Fun == c.Node() {
			return true
		}
		if _, inst := r.genericFunc(fun); inst != nil {
			if sig, ok := inst.Type.(*types.Signature); ok {
				if lit := r.callingLit(c.Node().(ast.Expr), sig, c.Node().Pos()); lit != nil {
					c.Replace(lit)
				}
			}
		}
		return true
	})
}

// localAliases replaces each use of a type alias declared inside a
// function (type MyInt = int in main) with the type it names, and
// drops the declaration: the interpreter does not declare such an alias
// ("undefined: MyInt" where it is used). An alias with type parameters,
// or one whose type cannot be written, stays, and so do the aliases
// among the top-level statements of the prompt, which the session
// declares for the inputs that follow.
func (r *typedRewriter) localAliases(f *ast.File, kind chunkKind) {
	top := map[ast.Stmt]bool{}
	if kind == stmtChunk {
		for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
			top[st] = true
		}
	}
	aliases := map[types.Object]types.Type{}
	specs := map[*ast.TypeSpec]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if ds, ok := n.(*ast.DeclStmt); ok && top[ds] {
				return false
			}
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Assign.IsValid() || ts.TypeParams != nil {
				return true
			}
			obj := r.info.Defs[ts.Name]
			if obj == nil {
				return true
			}
			aliases[obj] = types.Unalias(obj.Type())
			specs[ts] = true
			return true
		})
	}
	if len(aliases) == 0 {
		return
	}
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.Ident:
			t, ok := aliases[r.info.Uses[n]]
			if !ok {
				return true
			}
			if tx := r.typeExpr(t, n.Pos()); tx != nil {
				c.Replace(tx)
			}
		case *ast.DeclStmt:
			gd, ok := n.Decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				return true
			}
			var keep []ast.Spec
			for _, sp := range gd.Specs {
				if !specs[sp.(*ast.TypeSpec)] {
					keep = append(keep, sp)
				}
			}
			switch {
			case len(keep) == len(gd.Specs):
			case len(keep) == 0 && c.Index() >= 0:
				c.Delete()
			case len(keep) > 0:
				gd.Specs = keep
			}
		}
		return true
	})
}

// unionConstraints writes a type parameter's constraint that is a union
// with an interface among its terms as an interface literal:
//
//	func Mean[T Integer | Float](xs []T)  →  func Mean[T interface{ Integer | Float }](xs []T)
//
// which Go takes as the same constraint. The interpreter's compiler
// failed on the union written bare ("CFG post-order panic"), and runs the
// interface (as it runs type Number interface{ Integer | Float }).
func (r *typedRewriter) unionConstraints(f *ast.File) {
	fix := func(params *ast.FieldList) {
		if params == nil {
			return
		}
		for _, field := range params.List {
			if r.unionOfInterfaces(field.Type) {
				field.Type = &ast.InterfaceType{Interface: field.Type.Pos(),
					Methods: &ast.FieldList{Opening: field.Type.Pos(), Closing: field.Type.End(), List: []*ast.Field{{Type: field.Type}}}}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			fix(n.Type.TypeParams)
		case *ast.TypeSpec:
			fix(n.TypeParams)
		}
		return true
	})
}

// unionOfInterfaces reports whether x is a union (A | B) one of whose
// terms is an interface type.
func (r *typedRewriter) unionOfInterfaces(x ast.Expr) bool {
	b, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok || b.Op != token.OR {
		return false
	}
	for _, term := range []ast.Expr{b.X, b.Y} {
		if r.unionOfInterfaces(term) {
			return true
		}
		if tv, ok := r.info.Types[term]; ok && tv.IsType() && isInterface(tv.Type) {
			return true
		}
	}
	return false
}

// The interpreter compiles the methods of an instance of a generic type
// (Box[int]) when it first meets the instance. When that is inside the
// instantiation of a generic function that returns it (NewBox[int]),
// and a method calls that function with the type's parameters
// (NewBox[T]() in a method of Box[T]), the method's call finds the
// function's instance half made and the input fails to compile ("CFG
// post-order panic"). forceInstances declares a variable of each
// instance of the session's generic types that the input uses, and that
// the top level can name (topLevelType), at the end of the input:
//
//	var _ Box[int]
//
// so that the interpreter makes the instances, methods and all, before
// it compiles the functions; in a chunk of statements, as a variable of
// its own right before the first statement that uses the instance (its
// type may be declared by an earlier statement).
func (r *typedRewriter) forceInstances(f *ast.File, kind chunkKind) {
	found := r.sessInst
	if kind != stmtChunk {
		for _, in := range found {
			if te := r.typeExpr(in.t, in.pos); te != nil {
				f.Decls = append(f.Decls, &ast.GenDecl{TokPos: in.pos, Tok: token.VAR, Specs: []ast.Spec{
					&ast.ValueSpec{Names: []*ast.Ident{ident("_", in.pos)}, Type: te}}})
			}
		}
		return
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	before := map[int][]ast.Stmt{}
	for _, in := range found {
		te := r.typeExpr(in.t, in.pos)
		if te == nil {
			continue
		}
		i := slices.IndexFunc(body.List, func(st ast.Stmt) bool { return st.Pos() <= in.pos && in.pos < st.End() })
		if i < 0 {
			continue
		}
		before[i] = append(before[i], varDecl(r.temp("inst", in.pos), te))
	}
	if len(before) == 0 {
		return
	}
	var out []ast.Stmt
	for i, st := range body.List {
		out = append(append(out, before[i]...), st)
	}
	body.List = out
}

// sessionInstance is an instance of one of the session's generic types,
// with the position of its first use.
type sessionInstance struct {
	pos token.Pos
	t   *types.Named
}

// sessionInstances returns the instances of the session's generic types
// that the chunk being rewritten uses (r.instances), and the instances
// they are made of, each once, in the order of the chunk, but those the
// top level cannot name (topLevelType). rewriteChecked keeps them in
// r.sessInst for the chunk's rewrites.
func (r *typedRewriter) sessionInstances() []sessionInstance {
	var found []sessionInstance
	seen := map[string]bool{}
	for _, id := range r.instances {
		madeOf(r.info.Instances[id].Type, func(t types.Type) bool {
			n, ok := t.(*types.Named)
			if ok && n.TypeArgs().Len() > 0 && isSession(n.Origin().Obj()) && topLevelType(n) {
				if key := types.TypeString(n, nil); !seen[key] {
					seen[key] = true
					found = append(found, sessionInstance{id.Pos(), n})
				}
			}
			return false // every instance it is made of
		})
	}
	return found
}

// instanceIdents returns the identifiers of f that name instances, in
// the order of f.
func (r *typedRewriter) instanceIdents(f *ast.File) []*ast.Ident {
	var ids []*ast.Ident
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if _, ok := r.info.Instances[id]; ok {
				ids = append(ids, id)
			}
		}
		return true
	})
	return ids
}

// maxPastInstances bounds the instances of earlier inputs that a value
// in an interface is asserted against (pastInstances): each is two
// assertions in every such argument of fmt's.
const maxPastInstances = 64

// pendInstances notes the chunk's instances of the session's generic
// types, which join the session's (keepInstances) once the input ran.
func (s *Session) pendInstances(found []sessionInstance) {
	for _, in := range found {
		s.instPending = append(s.instPending, in.t)
	}
}

// keepInstances adds the instances of the input that ran to those the
// session remembers, each once (by its type string), the newest last,
// at most maxPastInstances.
func (s *Session) keepInstances() {
	for _, n := range s.instPending {
		key := types.TypeString(n, nil)
		s.instSeen = slices.DeleteFunc(s.instSeen, func(m *types.Named) bool { return types.TypeString(m, nil) == key })
		s.instSeen = append(s.instSeen, n)
	}
	s.instPending = nil
	if extra := len(s.instSeen) - maxPastInstances; extra > 0 {
		s.instSeen = slices.Delete(s.instSeen, 0, extra)
	}
}

// pastInstances returns the instances of the session's generic types
// that earlier inputs used, as the check c has them: a value made by an
// earlier input (an instance in an []any) is printed by a later one that
// need not name its type, and the interpreter's values do not name it
// (%T gave interp.valueInterface). An instance whose generic type is
// gone, or whose type arguments no longer fit it, is left out.
func (s *Session) pastInstances(c *checked) []sessionInstance {
	var out []sessionInstance
	for _, n := range s.instSeen {
		if t, ok := reinstance(c.pkg, n).(*types.Named); ok && isSession(t.Origin().Obj()) {
			out = append(out, sessionInstance{s.preludePos, t})
		}
	}
	return out
}

// reinstance returns t, a type of an earlier check that topLevelType
// accepts, in pkg, the package of this check: the session's types by
// their names in pkg's scope, other packages' and the predeclared types
// as they are (the checks share their importer), nil where pkg lacks a
// type or an instance does not satisfy its constraints.
func reinstance(pkg *types.Package, t types.Type) types.Type {
	elem := func(e types.Type) (types.Type, bool) {
		e = reinstance(pkg, e)
		return e, e != nil
	}
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return t
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil || obj.Pkg().Path() != "main" {
			return t
		}
		tn, ok := pkg.Scope().Lookup(obj.Name()).(*types.TypeName)
		if !ok || tn.IsAlias() {
			return nil
		}
		args := t.TypeArgs()
		if args.Len() == 0 {
			return tn.Type()
		}
		list := make([]types.Type, args.Len())
		for i := range list {
			var ok bool
			if list[i], ok = elem(args.At(i)); !ok {
				return nil
			}
		}
		inst, err := types.Instantiate(nil, tn.Type(), list, true)
		if err != nil {
			return nil
		}
		return inst
	case *types.Pointer:
		if e, ok := elem(t.Elem()); ok {
			return types.NewPointer(e)
		}
	case *types.Slice:
		if e, ok := elem(t.Elem()); ok {
			return types.NewSlice(e)
		}
	case *types.Array:
		if e, ok := elem(t.Elem()); ok {
			return types.NewArray(e, t.Len())
		}
	case *types.Map:
		k, ok1 := elem(t.Key())
		v, ok2 := elem(t.Elem())
		if ok1 && ok2 {
			return types.NewMap(k, v)
		}
	case *types.Chan:
		if e, ok := elem(t.Elem()); ok {
			return types.NewChan(t.Dir(), e)
		}
	}
	return nil
}

// tellInstances returns the instances whose values dynamicTypedOr tells
// apart: the chunk's (sessInst), then those of earlier inputs that the
// chunk does not use (pastInst).
func (r *typedRewriter) tellInstances() []sessionInstance {
	if len(r.pastInst) == 0 {
		return r.sessInst
	}
	out := slices.Clone(r.sessInst)
	for _, in := range r.pastInst {
		if !slices.ContainsFunc(out, func(o sessionInstance) bool { return types.Identical(o.t, in.t) }) {
			out = append(out, in)
		}
	}
	return out
}
