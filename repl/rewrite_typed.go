package repl

import (
	"cmp"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/repl/typecheck"
	"golang.org/x/tools/go/ast/astutil"
)

// The checker's type information drives the rewrites that make the
// interpreter run today's Go (the interpreter stops at Go 1.21 or so and
// gets some of it wrong). Each rewrite works on the parsed chunks after
// the check, before they run:
//
//   - the session's types get their names in the interpreter
//     (renameTypes);
//   - the shell's source packages (slices, maps, iter, cmp, generic
//     functions of other packages) are imported by their IDs
//     (sourcePackages);
//   - calls of generic functions name all their type arguments, which
//     the interpreter cannot infer when there are several
//     (instantiate);
//   - min, max and clear become calls of the helper package, or
//     constants (builtins);
//   - range over an integer becomes a counting loop, range over a
//     function a call with a yield function (ranges);
//   - a loop variable that a closure, a goroutine, a deferred call or a
//     pointer captures is declared again in each iteration (loopVars);
//   - a deferred call's function and arguments are evaluated at the
//     defer statement (defers);
//   - v, ok := m[k] (or x.(T), <-ch) at the top level declares v and ok
//     first (commaOK);
//   - function literals that use loop variables are made closures when
//     they are evaluated (closures);
//   - return <-ch receives into a temporary first (receives);
//   - a conversion to an interface type becomes a function that returns
//     the value as that type (conversions), and so does a value of a
//     type the program declared where it becomes a value of an interface
//     type with methods (implicitConversions);
//   - the instantiated generic types that composite literals spell out
//     are named by aliases declared before the literals run
//     (instanceAliases).
//
// Later rewrites (the shell's own in rewrite.go, and those of other
// features) see the rewritten syntax: info describes the nodes the
// checker saw, which the rewrites keep wherever they can.

// typedRewriter rewrites the chunks of one checked input.
type typedRewriter struct {
	s       *Session
	c       *checked
	info    *types.Info
	file    string // the name the chunks are compiled under
	n       int    // numbers temporaries
	parents map[ast.Node]ast.Node
	err     error
	// expanding holds the named types whose values elements is writing
	// the conversion of, outermost first.
	expanding []*expansion
	// at is the node whose arguments typedArg or the echo is converting
	// (the session's types visible there), ifaceDepth how many interface
	// elements' conversions enclose the one being written.
	at         ast.Node
	ifaceDepth int
	// raw counts the fields not exported (or inside one) whose values
	// elements is converting: fmt calls none of their methods, so the
	// conversions keep their fields and drop their methods.
	raw int
	// typeArgExprs are the type arguments of generic functions' uses, with
	// their types, for instanceAliases.
	typeArgExprs map[ast.Expr]types.Type
	// fmtAs caches fmtWrapping.
	fmtAs map[string]fmtPass
	// shiftsChecked holds the shifts (a *ast.BinaryExpr or a shifting
	// *ast.AssignStmt) whose counts shiftChecks checks before their
	// statements, which indexChecks then leaves alone.
	shiftsChecked map[ast.Node]bool
	// instances are the identifiers of the chunk being rewritten that
	// name instances of generic types or functions, as the input has
	// them, for forceInstances.
	instances []*ast.Ident
	// sessInst are the chunk's instances of the session's generic types
	// (sessionInstances), for planShadows, dynamicTypedOr and
	// forceInstances.
	sessInst []sessionInstance
	// pastInst are the instances of the session's generic types that
	// earlier inputs used and the chunk may not name (pastInstances).
	pastInst []sessionInstance
	// hasMethods caches sessionHasMethods: 0 unknown, 1 yes, -1 no.
	hasMethods int
	// loopDefer tells deferEarly that the defer it rewrites is in a loop
	// of its function.
	loopDefer bool
	// generic holds the extents of the chunk's generic functions and
	// methods of generic types, for inGeneric.
	generic [][2]token.Pos
	// funcs holds the extents of the chunk's function bodies, which may
	// run after later inputs declare types of their own (inFunction).
	funcs [][2]token.Pos
	// seq numbers the segment being rewritten (Session.laterSeq), for
	// the runtime's Register and LaterAs.
	seq int
	// files and kinds are the chunks being rewritten, for compiledWith.
	files []*ast.File
	kinds []chunkKind
	// only, when not nil, restricts the session's types that
	// dynamicTypedOr tells to these (laterConverters); it then asks the
	// runtime's Later for no others.
	only map[*types.TypeName]bool
}

// functionBodies returns the extents of f's function bodies: the
// functions it declares and its function literals, except the function
// that holds a chunk of statements (kind stmtChunk), which runs once.
func functionBodies(f *ast.File, kind chunkKind) [][2]token.Pos {
	var out [][2]token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if kind != stmtChunk && n.Body != nil {
				out = append(out, [2]token.Pos{n.Body.Pos(), n.Body.End()})
				return false // literals inside lie within
			}
		case *ast.FuncLit:
			out = append(out, [2]token.Pos{n.Body.Pos(), n.Body.End()})
			return false
		}
		return true
	})
	return out
}

// inFunction reports whether n lies in a function body of the chunk
// (functionBodies): code that may run after later inputs.
func (r *typedRewriter) inFunction(n ast.Node) bool { return n != nil && r.inFunctionPos(n.Pos()) }

// inFunctionPos is inFunction of a position.
func (r *typedRewriter) inFunctionPos(pos token.Pos) bool {
	for _, g := range r.funcs {
		if g[0] <= pos && pos < g[1] {
			return true
		}
	}
	return false
}

// genericBodies returns the extents of f's generic functions and methods
// of generic types.
func genericBodies(f *ast.File) [][2]token.Pos {
	var out [][2]token.Pos
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		generic := fd.Type.TypeParams != nil
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			recv := ast.Unparen(fd.Recv.List[0].Type)
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = ast.Unparen(star.X)
			}
			switch recv.(type) {
			case *ast.IndexExpr, *ast.IndexListExpr:
				generic = true
			}
		}
		if generic {
			out = append(out, [2]token.Pos{fd.Pos(), fd.End()})
		}
	}
	return out
}

// inGeneric reports whether n is in a generic function or a method of a
// generic type.
func (r *typedRewriter) inGeneric(n ast.Node) bool {
	for _, g := range r.generic {
		if g[0] <= n.Pos() && n.Pos() < g[1] {
			return true
		}
	}
	return false
}

// rewriteChecked applies the typed rewrites to the chunks of p. With
// echo, the final expression statement becomes the echo of its value.
func (s *Session) rewriteChecked(c *checked, p *parsedInput, file string, echo bool) (err error) {
	defer func() {
		// A fault of a rewrite ends the input, not the session.
		if rec := recover(); rec != nil {
			err = fmt.Errorf("the shell failed to prepare this input for the interpreter (a fault of the shell's; the session goes on): %v", rec)
		}
	}()
	s.renameTypes(c, p.files)
	s.laterSeq++
	r := &typedRewriter{s: s, c: c, info: c.info, file: file, n: s.tempSeq, files: p.files, kinds: p.kinds, seq: s.laterSeq}
	defer func() { s.tempSeq = r.n }()
	past := s.pastInstances(c)
	for i, f := range p.files {
		r.instances = r.instanceIdents(f)
		r.sessInst = r.sessionInstances()
		r.pastInst = past
		s.pendInstances(r.sessInst)
		r.generic = genericBodies(f)
		r.funcs = functionBodies(f, p.kinds[i])
		r.universeVars(f)
		r.nilSpreads(f)
		r.genericAliases(f)
		r.namedConsts(f)
		r.embeddedInterfaces(f)
		s.generic = s.generic || len(r.instances) > 0 || len(r.generic) > 0
		r.planShadows()
		r.shadowTypes(f)
		r.genericMethodOrder(f)
		r.unionConstraints(f)
		r.floatConsts(f)
		r.twinTypes(f)
		r.twinLiterals(f)
		r.parents = parentMap(f)
		r.bigValues(f)
		if p.kinds[i] == stmtChunk && echo && i == len(p.files)-1 {
			r.echo(f.Decls[0].(*ast.FuncDecl).Body)
		}
		r.sourcePackages(f)
		r.instantiate(f)
		r.positionalCalls(f)
		r.localAliases(f, p.kinds[i])
		r.genericValues(f)
		r.genericInits(f, p.kinds[i])
		r.builtins(f)
		r.paramConversions(f)
		r.nilAssigns(f)
		r.ifaceKeyRanges(f)
		r.ptrArrayRanges(f)
		r.ranges(f)
		r.assignRanges(f)
		r.chanRanges(f)
		r.stringRanges(f)
		r.loopVars(f)
		r.goCalls(f)
		r.closures(f)
		r.defers(f, p.kinds[i] == stmtChunk)
		r.receives(f)
		r.selectSends(f)
		r.shiftChecks(f)
		r.indexChecks(f)
		r.mapKeys(f)
		r.mapLookups(f)
		r.funcTypeMethods(f)
		r.methodValues(f)
		r.methodExprs(f)
		r.promotedMethods(f)
		r.zeroDivisors(f)
		r.comparisons(f)
		r.nilAssertions(f)
		r.multiResults(f)
		r.emptyAsserts(f)
		r.names(f)
		r.logCalls(f)
		r.conversions(f)
		r.implicitConversions(f)
		r.interfaceResults(f)
		r.panicValues(f)
		r.ifaceKeyMaps(f)
		r.instanceAliases(f, p.kinds[i])
		r.recursiveTypes(f, p.kinds[i])
		r.unexportedTags(f)
		r.selectBranches(f)
		r.taglessCases(f)
		r.switchInits(f)
		r.blankVars(f)
		r.packageVars(f)
		r.parenReceives(f)
		r.deferPanics(f, p.kinds[i] == stmtChunk)
		r.genericPtrAsserts(f)
		if p.kinds[i] == declChunk {
			r.forwardMethods(f)
		}
		if p.kinds[i] == fileChunk {
			r.mainRefs(f)
		}
		if p.kinds[i] == stmtChunk {
			r.reuseVars(f.Decls[0].(*ast.FuncDecl).Body)
			r.commaOK(f.Decls[0].(*ast.FuncDecl).Body)
			r.topRecovers(f.Decls[0].(*ast.FuncDecl).Body)
		}
		r.ifaceSwitchCases(f)
		r.parenValues(f)
		r.forceInstances(f, p.kinds[i])
		r.embeddedPtrAsserts(f)
		r.constDivisions(f)
		r.variadicSlices(f)
		r.namedResults(f)
		r.builtinResults(f)
		if p.kinds[i] == fileChunk {
			r.packageVarInits(f)
			r.promotedForwarders(f)
		}
		if r.err != nil {
			return r.err
		}
	}
	s.pendingLater, s.laterChunks = r.laterConverters(p)
	return r.err
}

// laterInterfaces are the compiled interfaces with methods that code
// compiled before a type's methods may assert its values to (see
// laterAs): the interface's name as typeString writes it, and the path
// and name of its package.
var laterInterfaces = []struct{ key, path, name string }{
	{"error", "", "error"},
	{"fmt.Stringer", "fmt", "Stringer"},
	{"fmt.Formatter", "fmt", "Formatter"},
	{"sort.Interface", "sort", "Interface"},
	{"io.Reader", "io", "Reader"},
	{"io.Writer", "io", "Writer"},
}

// laterAs returns, for the session's type tn, the function that converts
// a value of it, or of a pointer to it, to one of laterInterfaces that
// it implements, for the runtime's LaterAs:
//
//	func(v any, iface string) any {
//		if iface == "error" { if w, ok := v.(*T); ok { var x error = w; return x } }
//		...
//		return _sn.Unmatched()
//	}
//
// or nil, where it implements none. Compiled with the type's methods, it
// gives the interpreter's value of the interface, which an assertion in
// code compiled before them did not.
func (r *typedRewriter) laterAs(tn *types.TypeName, pos token.Pos) ast.Expr {
	v, iface := r.temp("v", pos), r.temp("iface", pos)
	var arms []ast.Stmt
	type target struct {
		key string
		it  types.Type
	}
	var targets []target
	for _, li := range laterInterfaces {
		var it types.Type
		if li.path == "" {
			it = types.Universe.Lookup(li.name).Type()
		} else {
			found, err := sharedImporter().Import(li.path)
			if err != nil {
				continue
			}
			obj, ok := found.Scope().Lookup(li.name).(*types.TypeName)
			if !ok {
				continue
			}
			it = obj.Type()
		}
		targets = append(targets, target{li.key, it})
	}
	// The session's interfaces (see laterKeyOf).
	scope := r.c.pkg.Scope()
	for _, name := range scope.Names() {
		if it, ok := scope.Lookup(name).(*types.TypeName); ok && !it.IsAlias() && isInterface(it.Type()) {
			if key := r.laterKeyOf(it.Type()); strings.HasPrefix(key, "main.") {
				targets = append(targets, target{key, it.Type()})
			}
		}
	}
	for _, li := range targets {
		it := li.it
		for _, ct := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if !types.Implements(ct, it.Underlying().(*types.Interface)) {
				continue
			}
			cx, ix := r.typeExpr(ct, pos), r.typeExpr(it, pos)
			if cx == nil || ix == nil {
				continue
			}
			w, x := r.temp("w", pos), r.temp("x", pos)
			arms = append(arms, &ast.IfStmt{If: pos,
				Cond: &ast.BinaryExpr{X: ident(iface.Name, pos), OpPos: pos, Op: token.EQL, Y: stringLit(li.key, pos)},
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.IfStmt{If: pos,
					Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
						Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(v.Name, pos), Lparen: pos, Type: cx, Rparen: pos}}},
					Cond: ident("ok", pos),
					Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
						&ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
							&ast.ValueSpec{Names: []*ast.Ident{x}, Type: ix, Values: []ast.Expr{ident(w.Name, pos)}}}}},
						&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(x.Name, pos)}},
					}}}}}})
		}
	}
	if len(arms) == 0 {
		return ident("nil", pos)
	}
	arms = append(arms, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{rtCall("Unmatched", pos).X}})
	return &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{
				{Names: []*ast.Ident{v}, Type: ident("any", pos)}, {Names: []*ast.Ident{iface}, Type: ident("string", pos)}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: arms},
	}
}

// methodNames returns the names of t's methods, comma-separated, in
// order.
func methodNames(t types.Type) string {
	ms := types.NewMethodSet(t)
	names := make([]string, ms.Len())
	for i := range ms.Len() {
		names[i] = ms.At(i).Obj().Name()
	}
	return strings.Join(names, ",")
}

// laterConverters returns, for an input that declares types of the
// session's or methods of them, the registration of each such type's
// converter with the runtime's Later, which code compiled before the type
// or method (a function of an earlier input that prints an any) asks:
//
//	_sn.Register("main.P", decl, *new(P), "M1,M2", "M1", func(v any) any { ...; return _sn.Unmatched() }, direct, as, errm, seq)
//
// The literal is dynamicTypedOr's over that type alone: it returns the
// value with its type's name, or Unmatched when it holds none; decl tells
// a declaration from methods added; a struct type is found by the
// interpreter's type of its zero value, another by its name (PairType);
// the methods of *P and of P (methodNames) tell it from a struct type
// with the same fields where the value comes in an interface with
// methods, and tell the runtime's Typed which of fmt's methods its values
// have (see Session.upgrade); direct, for a type not a struct, converts a
// value known to be of it, where the first literal needs the
// interpreter's pair; as converts a value of it to a compiled interface
// (laterAs), and errm calls its Unwrap, Is and As for the errors
// package's functions (errorMethodsOf), which code compiled before seq,
// the segment's number, asks.
// It returns too the chunks that declare those types or methods, after
// which the registrations run.
func (r *typedRewriter) laterConverters(p *parsedInput) ([]ast.Stmt, map[int]bool) {
	only := map[*types.TypeName]bool{} // true: declared here
	chunks := map[int]bool{}
	var i int
	typeDecl := func(gd *ast.GenDecl) {
		if gd.Tok != token.TYPE {
			return
		}
		for _, sp := range gd.Specs {
			ts := sp.(*ast.TypeSpec)
			if tn, ok := r.info.Defs[ts.Name].(*types.TypeName); ok && ts.TypeParams == nil && !ts.Assign.IsValid() {
				only[tn] = true
				chunks[i] = true
			}
		}
	}
	for i = range p.files {
		for _, d := range p.files[i].Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				typeDecl(d)
			case *ast.FuncDecl:
				if p.kinds[i] == stmtChunk {
					// Types declared among the statements.
					for _, st := range d.Body.List {
						if ds, ok := st.(*ast.DeclStmt); ok {
							typeDecl(ds.Decl.(*ast.GenDecl))
						}
					}
					continue
				}
				// A method changes what its type's values print: the
				// converter is made again, with it.
				if fn, ok := r.info.Defs[d.Name].(*types.Func); ok && d.Recv != nil {
					rt := fn.Signature().Recv().Type()
					if pt, ok := rt.(*types.Pointer); ok {
						rt = pt.Elem()
					}
					if n, ok := types.Unalias(rt).(*types.Named); ok && n.TypeParams().Len() == 0 && isSession(n.Obj()) {
						if _, ok := only[n.Obj()]; !ok {
							only[n.Obj()] = false
						}
						chunks[i] = true
					}
				}
			}
		}
	}
	if len(only) == 0 {
		return nil, nil
	}
	tns := slices.SortedFunc(maps.Keys(only), func(a, b *types.TypeName) int { return cmp.Compare(a.Pos(), b.Pos()) })
	pos := p.files[len(p.files)-1].End()
	at := ident("_", pos)
	defer r.converting(at)()
	defer func() { r.only = nil }()
	miss := func(string) []ast.Stmt {
		return []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{rtCall("Unmatched", pos).X}}}
	}
	var out []ast.Stmt
	for _, tn := range tns {
		r.only = map[*types.TypeName]bool{tn: true}
		call, ok := r.dynamicTypedOr(ident("nil", pos), types.Universe.Lookup("any").Type(), at, miss).(*ast.CallExpr)
		if !ok {
			continue
		}
		lit, ok := call.Fun.(*ast.FuncLit)
		tx := r.typeExpr(tn.Type(), pos)
		if !ok || tx == nil {
			continue
		}
		var zero, direct ast.Expr = ident("nil", pos), ident("nil", pos)
		if _, isStruct := tn.Type().Underlying().(*types.Struct); isStruct {
			zero = &ast.StarExpr{Star: pos, X: &ast.CallExpr{Fun: ident("new", pos), Lparen: pos, Args: []ast.Expr{tx}, Rparen: pos}}
		} else {
			// For a value known to be of the type (Typed's), which
			// no pair may name:
			//	func(v any) any { if w, ok := v.(T); ok { return _sn.Typed(w, "main.T") }; return _sn.Unmatched() }
			v, w := r.temp("v", pos), r.temp("w", pos)
			direct = anyCall(v, ident("any", pos), &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
				&ast.IfStmt{If: pos,
					Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
						Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(v.Name, pos), Lparen: pos, Type: r.typeExpr(tn.Type(), pos), Rparen: pos}}},
					Cond: ident("ok", pos),
					Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
						rtCall("Typed", pos, ident(w.Name, pos), stringLit("main."+tn.Name(), pos)).X}}}}},
				&ast.ReturnStmt{Return: pos, Results: []ast.Expr{rtCall("Unmatched", pos).X}},
			}}, ident("nil", pos)).(*ast.CallExpr).Fun
		}
		as := r.laterAs(tn, pos)
		errm := r.errorMethodsOf(pos, true) // r.only holds tn alone
		out = append(out, rtCall("Register", pos,
			&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote("main." + tn.Name())},
			ident(strconv.FormatBool(only[tn]), pos), zero,
			&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(methodNames(types.NewPointer(tn.Type())))},
			&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(methodNames(tn.Type()))},
			lit, direct, as, errm, &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(r.seq)}))
	}
	return out, chunks
}

func (r *typedRewriter) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// temp returns a new temporary variable's name.
func (r *typedRewriter) temp(what string, pos token.Pos) *ast.Ident {
	r.n++
	return &ast.Ident{NamePos: pos, Name: fmt.Sprintf("%s_%s%d", rtName, what, r.n)}
}

// typeExpr writes t for the interpreter at pos, or returns nil when it
// cannot be written.
func (r *typedRewriter) typeExpr(t types.Type, pos token.Pos) ast.Expr {
	w := &typeWriter{
		pos:     pos,
		anyKeys: true,
		pkg: func(p *types.Package) (string, bool) {
			name, err := r.s.importFor(r.file, p.Path())
			if err != nil {
				r.fail(err)
				return "", false
			}
			return name, true
		},
		name: func(tn *types.TypeName) string {
			if n := r.c.typeNameIn(tn); n != "" {
				return n
			}
			return tn.Name()
		},
		args: func(t *types.Named) []ast.Expr { return r.shadowArgs(t, pos) },
	}
	e := w.expr(t)
	if w.err != nil {
		return nil
	}
	return e
}

// typeOf returns the type of expression x, or nil.
func (r *typedRewriter) typeOf(x ast.Expr) types.Type {
	if tv, ok := r.info.Types[x]; ok {
		return tv.Type
	}
	if id, ok := x.(*ast.Ident); ok {
		if obj := r.info.ObjectOf(id); obj != nil {
			return obj.Type()
		}
	}
	return nil
}

// helper returns a reference to a function of the helper package
// (min, max, clear for the interpreter), importing it.
func (r *typedRewriter) helper(name string, pos token.Pos) ast.Expr {
	id, err := r.s.importFor(r.file, typecheckHelper)
	if err != nil {
		r.fail(err)
	}
	return &ast.SelectorExpr{X: ident(id, pos), Sel: ident(name, pos)}
}

// typecheckHelper is the import path of the helper package.
const typecheckHelper = "sparknet-shell/builtin"

// importFor returns the name under which code compiled under file
// refers to the package at path, importing it there (under a name of
// the shell's own) if need be. A source package is compiled first.
func (s *Session) importFor(file, path string) (string, error) {
	name := "_snp_" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(path)
	ipath := path
	if id := typecheck.SourceID(path); id != "" {
		if err := s.loadSource(path); err != nil {
			return "", err
		}
		name, ipath = id, id
	}
	if s.hidden[file] == nil {
		s.hidden[file] = map[string]bool{}
	}
	if s.hidden[file][ipath] {
		return name, nil
	}
	f, err := parser.ParseFile(s.in.FileSet(), file, fmt.Sprintf("package main\nimport %s %q\n", name, ipath), 0)
	if err != nil {
		return "", err
	}
	if _, err := s.compile(f, nil); err != nil {
		return "", fmt.Errorf("repl: importing %s: %w", path, err)
	}
	s.hidden[file][ipath] = true
	return name, nil
}

// loadSource compiles the shell's source package at path, and the ones
// it imports, into the interpreter, once.
func (s *Session) loadSource(path string) error {
	if s.sources[path] {
		return nil
	}
	src, err := sharedImporter().Source(path)
	if err != nil {
		return err
	}
	for _, dep := range src.Imports {
		if err := s.loadSource(dep); err != nil {
			return err
		}
	}
	f, err := src.File(s.in.FileSet())
	if err != nil {
		return err
	}
	prog, err := s.compile(f, nil)
	if err != nil {
		return fmt.Errorf("repl: the shell's package %s: %w", path, err)
	}
	if _, err := s.in.Execute(prog); err != nil {
		return fmt.Errorf("repl: the shell's package %s: %w", path, err)
	}
	s.sources[path] = true
	return nil
}

// renameTypes gives the session's types their names in the interpreter
// (see entry.yname) wherever the input mentions them.
func (s *Session) renameTypes(c *checked, files []*ast.File) {
	rename := func(id *ast.Ident, obj types.Object) {
		switch obj := obj.(type) {
		case *types.TypeName:
			if !isSession(obj) {
				return
			}
		case *types.Func:
			if obj.Pkg() == nil || obj.Pkg().Path() != "main" || obj.Signature().Recv() != nil {
				return
			}
		default:
			return
		}
		if n := c.nameIn(obj); n != "" {
			id.Name = n
		}
	}
	for id, obj := range c.info.Defs {
		if obj != nil {
			rename(id, obj)
		}
	}
	for id, obj := range c.info.Uses {
		rename(id, obj)
	}
}

// copyOlds copies, before chunk i runs, the session's values that its
// declarations of the same names use (x := x + 1). The interpreter sets
// up the variables a block declares before the block runs, so the copy
// is a block of its own.
func (s *Session) copyOlds(ctx context.Context, c *checked, i int) error {
	var list []ast.Stmt
	for _, o := range c.olds {
		if o.chunk == i {
			pos := o.stmt.Pos()
			list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{ident(o.old, pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{ident(o.yname, pos)}})
		}
	}
	if len(list) == 0 {
		return nil
	}
	return s.run(ctx, &ast.BlockStmt{Lbrace: list[0].Pos(), List: list, Rbrace: list[0].Pos()}, nil)
}

// sourcePackages makes the input reach the shell's source packages by
// their IDs: their import specs, and the selectors of their members
// (errors.AsType, a member of an overlay, included).
func (r *typedRewriter) sourcePackages(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			path, _ := strconv.Unquote(is.Path.Value)
			id := typecheck.SourceID(path)
			if id == "" {
				continue
			}
			if err := r.s.loadSource(path); err != nil {
				r.fail(err)
				return
			}
			is.Name = ident(id, is.Pos())
			is.Path.Value = strconv.Quote(id)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if _, isPkg := r.info.Uses[x].(*types.PkgName); !isPkg {
			return true
		}
		obj := r.info.Uses[sel.Sel]
		if obj == nil || !typecheck.IsSource(obj.Pkg()) {
			return true
		}
		name, err := r.s.importFor(r.file, obj.Pkg().Path())
		if err != nil {
			r.fail(err)
			return false
		}
		x.Name = name
		return true
	})
}

// genericFunc returns the identifier of a generic function that x
// refers to (f, or pkg.F), with its instance, or nil.
func (r *typedRewriter) genericFunc(x ast.Expr) (*ast.Ident, *types.Instance) {
	var id *ast.Ident
	switch x := x.(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		if pkgX, ok := x.X.(*ast.Ident); ok {
			if _, isPkg := r.info.Uses[pkgX].(*types.PkgName); isPkg {
				id = x.Sel
			}
		}
	}
	if id == nil {
		return nil, nil
	}
	inst, ok := r.info.Instances[id]
	if !ok {
		return nil, nil
	}
	f, ok := r.info.Uses[id].(*types.Func)
	if !ok || f.Signature().Recv() != nil {
		return nil, nil
	}
	return id, &inst
}

// typeArgs writes the type arguments of inst, or returns nil.
func (r *typedRewriter) typeArgs(inst *types.Instance, pos token.Pos) []ast.Expr {
	if args := r.funcShadowArgs(inst, pos); args != nil {
		r.noteTypeArgs(args, inst)
		return args
	}
	args := make([]ast.Expr, inst.TypeArgs.Len())
	for i := range args {
		if args[i] = r.typeExpr(inst.TypeArgs.At(i), pos); args[i] == nil {
			return nil
		}
	}
	r.noteTypeArgs(args, inst)
	return args
}

// noteTypeArgs notes the type arguments of a use of a generic function
// (instanceAliases).
func (r *typedRewriter) noteTypeArgs(args []ast.Expr, inst *types.Instance) {
	if r.typeArgExprs == nil {
		r.typeArgExprs = map[ast.Expr]types.Type{}
	}
	for i, a := range args {
		if i < inst.TypeArgs.Len() {
			r.typeArgExprs[a] = inst.TypeArgs.At(i)
		}
	}
}

// instantiate names all the type arguments of every use of a generic
// function, but those whose arguments the interpreter cannot take named
// (paramInstanceArgs) and can infer (inferable).
func (r *typedRewriter) instantiate(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.IndexExpr:
			if _, inst := r.genericFunc(n.X); inst != nil {
				if inst.TypeArgs.Len() == 1 {
					r.noteTypeArgs([]ast.Expr{n.Index}, inst)
				} else if args := r.typeArgs(inst, n.Lbrack); args != nil {
					c.Replace(&ast.IndexListExpr{X: n.X, Lbrack: n.Lbrack, Indices: args, Rbrack: n.Rbrack})
				}
			}
		case *ast.IndexListExpr:
			if _, inst := r.genericFunc(n.X); inst != nil {
				if inst.TypeArgs.Len() == len(n.Indices) {
					r.noteTypeArgs(n.Indices, inst)
				} else if args := r.typeArgs(inst, n.Lbrack); args != nil {
					n.Indices = args
				}
			}
		case *ast.Ident, *ast.SelectorExpr:
			if _, isSel := c.Parent().(*ast.SelectorExpr); isSel && c.Name() == "Sel" {
				return true
			}
			switch p := c.Parent().(type) {
			case *ast.IndexExpr:
				if c.Name() == "X" && p.X == n {
					return true
				}
			case *ast.IndexListExpr:
				if c.Name() == "X" && p.X == n {
					return true
				}
			}
			x := n.(ast.Expr)
			if id, inst := r.genericFunc(x); inst != nil && !(r.inferArgs(f, id, inst) && r.inferable(id) && !r.recursive(f, id)) {
				if args := r.typeArgs(inst, x.Pos()); len(args) == 1 {
					// An index expression, as the parser makes of f[T]:
					// the interpreter took an index list with one type
					// in a composite literal's element ([]int{f[int](1)})
					// for a generic type's instantiation ("not a generic
					// type").
					c.Replace(&ast.IndexExpr{X: x, Lbrack: x.End(), Index: args[0], Rbrack: x.End()})
				} else if args != nil {
					c.Replace(&ast.IndexListExpr{X: x, Lbrack: x.End(), Indices: args, Rbrack: x.End()})
				}
			}
		}
		return true
	})
}

// paramInstanceArgs reports whether a type argument of inst is, or is
// made of, an instance of a generic type whose own type arguments hold a
// type parameter (Box[K], in a generic function of K): named in a generic
// function's type arguments (apply[Box[K]](b)), the interpreter finds no
// such instance ("type not found: Box[string]", in the instance it makes
// of the enclosing function), or compiles the call wrong, where it infers
// the same types from the arguments (apply(b)).
func paramInstanceArgs(inst *types.Instance) bool {
	for a := range inst.TypeArgs.Types() {
		if madeOf(a, func(t types.Type) bool {
			n, ok := t.(*types.Named)
			return ok && n.TypeArgs().Len() > 0 && slices.ContainsFunc(slices.Collect(n.TypeArgs().Types()), isTypeParamMade)
		}) {
			return true
		}
	}
	return false
}

// inferArgs reports whether a use of a generic function (id, inst) keeps
// its type arguments inferred: they hold an instance built on type
// parameters (paramInstanceArgs), or, in a generic function (not a
// method), a type parameter (Count(xs) in Dups[T]: named, Count[T](xs)
// failed in Dups[ID], of a declared type, with a nil dereference; in a
// method of a generic type it is the inference that failed), unless the
// function is variadic.
func (r *typedRewriter) inferArgs(f *ast.File, id *ast.Ident, inst *types.Instance) bool {
	if paramInstanceArgs(inst) {
		return true
	}
	if !slices.ContainsFunc(slices.Collect(inst.TypeArgs.Types()), isTypeParamMade) {
		return false
	}
	if fn, ok := r.info.Uses[id].(*types.Func); ok && fn.Signature().Variadic() {
		// Inferred, a call of a variadic one (Sum(a, b) in Mean[T])
		// failed ("CFG post-order panic"); named, it runs.
		return false
	}
	fd := enclosingDecl(f, id.Pos())
	return fd != nil && fd.Recv == nil && fd.Type.TypeParams != nil
}

// enclosingDecl returns the function declaration of f that holds pos, or
// nil.
func enclosingDecl(f *ast.File, pos token.Pos) *ast.FuncDecl {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos < fd.End() {
			return fd
		}
	}
	return nil
}

// recursive reports whether id, a use of a generic function, is in that
// function's own body, or in the body of a function of f that the
// generic function's declaration in f calls: inferred there, the
// interpreter's instantiation of the call never ended (a tree's walk
// calling walk(n.left, visit)).
func (r *typedRewriter) recursive(f *ast.File, id *ast.Ident) bool {
	callee, ok := r.info.Uses[id].(*types.Func)
	if !ok {
		return false
	}
	callee = callee.Origin()
	encl := enclosingDecl(f, id.Pos())
	if encl == nil {
		return false
	}
	caller := r.info.Defs[encl.Name]
	if caller == callee {
		return true
	}
	var fd *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && r.info.Defs[d.Name] == callee {
			fd = d
		}
	}
	if fd == nil || fd.Body == nil {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if use, ok := n.(*ast.Ident); ok {
			if obj, ok := r.info.Uses[use].(*types.Func); ok && obj.Origin() == caller {
				found = true
			}
		}
		return !found
	})
	return found
}

// inferable reports whether the interpreter infers the type arguments
// of a call of the generic function id from the arguments: each type
// parameter is, or is part of, the type of a parameter, outside the
// results of a parameter of function type and the type arguments of
// instances (it does not infer E from S ~[]E, nor from iter.Seq[E], and
// took U of Map(xs []T, f func(T) U) for T).
func (r *typedRewriter) inferable(id *ast.Ident) bool {
	f, ok := r.info.Uses[id].(*types.Func)
	if !ok {
		return false
	}
	sig := f.Origin().Signature()
	for tp := range sig.TypeParams().TypeParams() {
		found := false
		for v := range sig.Params().Variables() {
			if madeOfParts(v.Type(), func(t types.Type) bool { return t == tp }, false) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// isTypeParamMade reports whether t is or is made of a type parameter.
func isTypeParamMade(t types.Type) bool {
	return madeOf(t, func(t types.Type) bool {
		_, ok := t.(*types.TypeParam)
		return ok
	})
}

// logCalls sends the log package's output calls, its functions' and a
// Logger's Print, Fatal and Panic functions, to the session's LogAt,
// with the call's position and the message formatted by the session's
// fmt shims:
//
//	l.Fatalf(format, args...)
//
// becomes _sn.LogAt(l, "fatal", "prog.go:12", "/src/prog.go:12",
// _sn.Sprintf(format, args...)), and log.Println(x) the same with a nil
// logger (the session's standard logger). The log package finds the
// position of its caller on the stack (Lshortfile, Llongfile), where
// there is only the interpreter's; a Logger's Fatal would end the
// shell's process, where LogAt ends the script as Go's end the program
// (the message, then status 1, no deferred call run); and %v of a value
// of the session's types needs the shims.
func (r *typedRewriter) logCalls(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		fn, ok := r.info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "log" {
			return true
		}
		kind, format := logKind(fn.Name())
		if kind == "" {
			return true
		}
		pos := call.Pos()
		var recv ast.Expr = ident("nil", pos)
		if s, ok := r.info.Selections[sel]; ok {
			if s.Kind() != types.MethodVal {
				return true
			}
			recv = sel.X
			if _, ptr := s.Recv().Underlying().(*types.Pointer); !ptr {
				recv = &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: recv}
			}
		}
		short, long := r.logPos(pos)
		msg := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(format, pos)}, Lparen: pos, Args: call.Args, Ellipsis: call.Ellipsis, Rparen: call.Rparen}
		first := 0
		if format == "Sprintf" {
			first = 1
		}
		r.fmtArgs(msg, first)
		call.Fun = &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("LogAt", pos)}
		call.Args = []ast.Expr{recv, stringLit(kind, pos), stringLit(short, pos), stringLit(long, pos), msg}
		call.Ellipsis = token.NoPos
		return true
	})
}

// logKind returns for a log output function's name what it does after
// writing ("print", "fatal", "panic") and the fmt function that formats
// its message, or "" for another function.
func logKind(name string) (kind, format string) {
	for _, k := range []string{"Print", "Fatal", "Panic"} {
		if rest, ok := strings.CutPrefix(name, k); ok {
			switch rest {
			case "":
				return strings.ToLower(k), "Sprint"
			case "f":
				return strings.ToLower(k), "Sprintf"
			case "ln":
				return strings.ToLower(k), "Sprintln"
			}
		}
	}
	return "", ""
}

// logPos gives a position of the input as log's Lshortfile and Llongfile
// write it: the file's base name or its absolute path, and the line; in
// an input at the prompt, its number and line.
func (r *typedRewriter) logPos(pos token.Pos) (short, long string) {
	p := r.s.in.FileSet().Position(pos)
	if p.Filename == inputFile {
		// An input at the prompt or a cell: in[3]:2.
		at := r.s.mapPositions(inputFile + ":" + strconv.Itoa(p.Line))
		return at, at
	}
	long = p.Filename
	if abs, err := filepath.Abs(p.Filename); err == nil {
		if _, err := os.Stat(abs); err == nil {
			long = abs
		}
	}
	line := ":" + strconv.Itoa(p.Line)
	return filepath.Base(p.Filename) + line, long + line
}

// paramConversions rewrites each conversion T(x) to a type parameter in
// generic code (not to an interface) as builtin.ConvertParam[T, X](x),
// in a generic function that the input instantiates with a named type
// argument (namedInstances): the interpreter's own conversion failed for
// one (type Celsius float64 in an Average that divides by T(len(xs))).
func (r *typedRewriter) paramConversions(f *ast.File) {
	if len(r.generic) == 0 {
		return
	}
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		call, ok := c.Node().(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || call.Ellipsis.IsValid() || !r.inGeneric(call) {
			return true
		}
		tv, ok := r.info.Types[call.Fun]
		if !ok || !tv.IsType() {
			return true
		}
		arg, ok := r.info.Types[call.Args[0]]
		if !ok || arg.Type == nil || arg.IsNil() || isInterface(tv.Type) && !isTypeParam(tv.Type) {
			return true
		}
		if !isTypeParam(tv.Type) || !r.namedInstances(enclosingDecl(f, call.Pos())) {
			return true
		}
		pos := call.Pos()
		te, xe := r.typeExpr(tv.Type, pos), r.typeExpr(types.Default(arg.Type), pos)
		if te == nil || xe == nil {
			return true
		}
		conv := &ast.CallExpr{Fun: &ast.IndexListExpr{X: r.helper("ConvertParam", pos), Lbrack: pos, Indices: []ast.Expr{te, xe}, Rbrack: pos},
			Lparen: call.Lparen, Args: call.Args, Rparen: call.Rparen}
		if ctv, ok := r.info.Types[call]; ok {
			r.info.Types[conv] = ctv
		}
		c.Replace(conv)
		return true
	})
}

// namedInstances reports whether the input instantiates the generic
// function fd with a named type argument (Celsius, time.Duration), for
// which paramConversions must take its slow road, or whether fd is a
// method (of a generic type: its instances are not looked for); the
// interpreter's own conversion is some 20 times as fast for the others
// (a loop of T(i) over 200,000 values: 27 ms against 625 ms).
func (r *typedRewriter) namedInstances(fd *ast.FuncDecl) bool {
	if fd == nil || fd.Recv != nil {
		return true
	}
	obj := r.info.Defs[fd.Name]
	for id, in := range r.info.Instances {
		if r.info.Uses[id] != obj {
			continue
		}
		for t := range in.TypeArgs.Types() {
			if _, named := types.Unalias(t).(*types.Named); named {
				return true
			}
		}
	}
	return false
}

// builtins rewrites the calls of min, max and clear, which the
// interpreter lacks: a constant min or max becomes its value; the others
// call the helper package's generic functions. new of a value, make of
// a one-way channel are written in forms the interpreter runs.
func (r *typedRewriter) builtins(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		call, ok := c.Node().(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		b, ok := r.info.Uses[id].(*types.Builtin)
		if !ok {
			return true
		}
		pos := call.Pos()
		switch b.Name() {
		case "print", "println":
			// To standard error, in the builtins' own formats
			// (builtinPrint); an interface's value as the builtin
			// writes it, its two words (PrintIface).
			for i, a := range call.Args {
				if t := r.typeOf(a); t != nil && isInterface(t) && !isTypeParam(t) {
					call.Args[i] = &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("PrintIface", pos)}, Lparen: a.Pos(), Args: []ast.Expr{a}, Rparen: a.End()}
				}
			}
			name := "BuiltinPrint"
			if b.Name() == "println" {
				name = "BuiltinPrintln"
			}
			call.Fun = &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(name, pos)}
			return true
		case "min", "max":
			tv := r.info.Types[call]
			if tv.Value != nil {
				w := &typeWriter{pos: pos}
				x := w.constExpr(tv.Value, tv.Type)
				if b, isBasic := tv.Type.(*types.Basic); !isBasic || b.Info()&types.IsUntyped == 0 {
					t := r.typeExpr(tv.Type, pos)
					if t == nil {
						return true
					}
					x = &ast.CallExpr{Fun: t, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
				} else {
					x = &ast.ParenExpr{Lparen: pos, X: x, Rparen: pos}
				}
				c.Replace(x)
				return true
			}
			name := "Min"
			if b.Name() == "max" {
				name = "Max"
			}
			if u, ok := tv.Type.Underlying().(*types.Basic); ok && u.Info()&types.IsFloat != 0 {
				name += "Float"
			}
			t := r.typeExpr(tv.Type, pos)
			if t == nil {
				return true
			}
			if fd := enclosingDecl(f, pos); isTypeParam(tv.Type) && fd != nil && fd.Recv == nil {
				// min(a, b) of a type parameter's values in a generic
				// function (see inferArgs): the helper's type argument
				// inferred, which the interpreter does for a declared
				// type (Min[T] with T a type C int failed with a nil
				// dereference), from the first argument: a constant
				// there (min(10, v)) goes after the first variable one,
				// which changes neither the result nor the order of
				// the calls (T(10) failed to compile).
				if i := slices.IndexFunc(call.Args, func(a ast.Expr) bool { return r.info.Types[a].Value == nil }); i > 0 {
					first := call.Args[i]
					copy(call.Args[1:i+1], call.Args[:i])
					call.Args[0] = first
				}
				call.Fun = r.helper(name, pos)
				return true
			}
			if n, ok := types.Unalias(tv.Type).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() != "main" {
				// A compiled package's type (time.Duration): the
				// interpreter failed to instantiate the helper with it
				// ("CFG post-order panic"). Its underlying type's:
				//	time.Duration(Max[int64](int64(a), int64(b)))
				if u := r.typeExpr(n.Underlying(), pos); u != nil {
					for i, a := range call.Args {
						call.Args[i] = &ast.CallExpr{Fun: copyExpr(u), Lparen: a.Pos(), Args: []ast.Expr{a}, Rparen: a.End()}
					}
					call.Fun = &ast.IndexExpr{X: r.helper(name, pos), Lbrack: pos, Index: u, Rbrack: pos}
					c.Replace(&ast.CallExpr{Fun: t, Lparen: pos, Args: []ast.Expr{call}, Rparen: call.End()})
					return true
				}
			}
			call.Fun = &ast.IndexExpr{X: r.helper(name, pos), Lbrack: pos, Index: t, Rbrack: pos}
		case "new":
			// new(expr), Go 1.26's pointer to a new variable holding
			// expr's value, which the interpreter took for new(T) of
			// a zero T: &[]T{expr}[0].
			if len(call.Args) != 1 {
				return true
			}
			if tv := r.info.Types[call.Args[0]]; tv.IsType() {
				// new(I) of an interface type (of the session's, the
				// interpreter's *p == nil was false): a nil element's
				// address, &[]I{nil}[0].
				if !isInterface(tv.Type) || isTypeParam(tv.Type) {
					return true
				}
				c.Replace(boxed(ident("nil", pos), call.Args[0], pos))
				return true
			}
			if !r.info.Types[call.Args[0]].IsValue() {
				return true
			}
			p, ok := r.typeOf(call).(*types.Pointer)
			if !ok {
				return true
			}
			t := r.typeExpr(p.Elem(), pos)
			if t == nil {
				return true
			}
			c.Replace(boxed(call.Args[0], t, pos))
		case "make":
			// make(chan<- T, n): the interpreter's reflect.MakeChan
			// refuses a one-way channel type; a two-way channel
			// converted to it.
			ch, ok := r.typeOf(call).Underlying().(*types.Chan)
			if !ok || ch.Dir() == types.SendRecv {
				return true
			}
			both, one := r.typeExpr(types.NewChan(types.SendRecv, ch.Elem()), pos), r.typeExpr(r.typeOf(call), pos)
			if both == nil || one == nil {
				return true
			}
			call.Args[0] = both
			c.Replace(&ast.CallExpr{Fun: &ast.ParenExpr{Lparen: pos, X: one, Rparen: pos}, Lparen: pos, Args: []ast.Expr{call}, Rparen: call.End()})
		case "clear":
			if len(call.Args) != 1 {
				return true
			}
			t := r.typeOf(call.Args[0])
			if t == nil {
				return true
			}
			var name string
			var args []types.Type
			switch u := coreType(t).(type) {
			case *types.Map:
				name, args = "ClearMap", []types.Type{t, u.Key(), u.Elem()}
			case *types.Slice:
				name, args = "ClearSlice", []types.Type{t, u.Elem()}
			default:
				return true
			}
			idx := make([]ast.Expr, len(args))
			for i, a := range args {
				if idx[i] = r.typeExpr(a, pos); idx[i] == nil {
					return true
				}
			}
			call.Fun = &ast.IndexListExpr{X: r.helper(name, pos), Lbrack: pos, Indices: idx, Rbrack: pos}
		}
		return true
	})
}

// coreType returns the underlying type of t, or for a type parameter
// the underlying type that all the types of its constraint share, or
// nil.
func coreType(t types.Type) types.Type {
	tp, ok := types.Unalias(t).(*types.TypeParam)
	if !ok {
		return t.Underlying()
	}
	it, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var core types.Type
	for i := range it.NumEmbeddeds() {
		var terms []types.Type
		switch e := it.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				terms = append(terms, e.Term(j).Type())
			}
		default:
			terms = append(terms, e)
		}
		for _, term := range terms {
			u := coreType(term)
			if u == nil {
				return nil
			}
			if core == nil {
				core = u
			} else if !types.Identical(core, u) {
				return nil
			}
		}
	}
	return core
}
