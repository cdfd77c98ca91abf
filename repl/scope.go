package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"log"
	"reflect"
	"regexp"
	"strconv"
	"sync"

	"github.com/sparknet-go/sparknet/repl/typecheck"
	"github.com/sparknet-go/sparknet/stdlib"
	yaegistdlib "github.com/traefik/yaegi/stdlib"
)

// The type checker sees the session as one package, main: every input
// is checked together with declarations of what the earlier inputs left
// (the prelude), as if it were one more file of the package.
//
// The prelude is rebuilt for every check, because an input may replace
// any top-level name: a variable, function or constant that is declared
// again is left out, and a type that is declared again stays under an
// internal name (_sn<N>_<name>), for the values of it that remain. The
// interpreter knows every type the inputs declared by that internal
// name only, so that it never sees a type declared twice.
//
// Variables, functions and constants whose types refer to no type of the
// session are put in the package scope as objects; the rest, and every
// type with its methods, are written out as declarations (without
// bodies), because the checker makes new type objects on every check and
// only declarations can refer to those.

// sharedImporter gives every session's checker the compiled packages of
// the interpreter's symbol tables and the shell's source packages.
var sharedImporter = sync.OnceValue(func() *typecheck.Importer {
	return typecheck.New(baseSymbols())
})

// baseSymbols merges the interpreter's standard library tables with
// sparknet's.
func baseSymbols() map[string]map[string]reflect.Value {
	all := map[string]map[string]reflect.Value{}
	for _, tables := range []map[string]map[string]reflect.Value{yaegistdlib.Symbols, stdlib.Symbols} {
		for k, syms := range tables {
			m := all[k]
			if m == nil {
				m = map[string]reflect.Value{}
				all[k] = m
			}
			for n, v := range syms {
				m[n] = v
			}
		}
	}
	// Go's log.Logger and log.New, where the interpreter's tables have
	// a wrapper type of its own (whose Fatal methods panic), which
	// log.Default and the functions that take a *log.Logger did not
	// match; a call of a Logger's Fatal methods ends the script as Go's
	// ends a program (see logFatals).
	all["log/log"]["Logger"] = reflect.ValueOf((*log.Logger)(nil))
	all["log/log"]["New"] = reflect.ValueOf(log.New)
	return all
}

// scope is what the checker knows of the session.
type scope struct {
	entries []*entry                     // in the order they were declared
	seq     int                          // numbers the declarations
	typeOf  map[*types.TypeName]int      // every check's type names of session types → entry ids
	imports map[string]map[string]string // per file: import name → path, as checked
}

// entry is a top-level name an input declared.
type entry struct {
	name string
	id   int          // the N of its internal name
	obj  types.Object // as the latest check saw it
	live bool         // the name still means this entry
	// yname is the name of a type in the interpreter: its own name the
	// first time the interpreter meets that name, its internal name
	// afterwards; of a function named like an import, its internal
	// name; "" otherwise.
	yname string
	// methods are the names of a type's methods that inputs declared
	// and that ran; forwarded those that call a function variable,
	// which a later declaration with the same receiver and signature
	// replaces (see forwardMethods), with those (methodKey).
	methods   map[string]bool
	forwarded map[string]string
}

// internal is the name under which the interpreter knows a type, and
// the checker a type whose name was declared again.
func (e *entry) internal() string { return internalName(e.id, e.name) }

func internalName(id int, name string) string { return fmt.Sprintf("_sn%d_%s", id, name) }

// typeNameIn returns the name under which the interpreter knows the
// session type tn of check c, or "" if tn is not one.
func (c *checked) typeNameIn(tn *types.TypeName) string { return c.nameIn(tn) }

// nameIn returns the name under which the interpreter knows the session
// object obj of check c (a type, or a function named like an import),
// or "" when it knows it by its own name or obj is not the session's.
func (c *checked) nameIn(obj types.Object) string {
	if n, ok := c.ynames[obj]; ok {
		return n
	}
	for id, o := range c.prelude.objs {
		if o == obj {
			return c.ynameOf[id]
		}
	}
	return ""
}

// internalNames matches the internal names of types in messages.
var internalNames = regexp.MustCompile(`\b_sn\d+_(\w+)`)

func newScope() *scope {
	return &scope{typeOf: map[*types.TypeName]int{}, imports: map[string]map[string]string{}}
}

// lookup returns the live entry named name, or nil.
func (sc *scope) lookup(name string) *entry {
	for i := len(sc.entries) - 1; i >= 0; i-- {
		if e := sc.entries[i]; e.live && e.name == name {
			return e
		}
	}
	return nil
}

// byID returns the entry with id, or nil.
func (sc *scope) byID(id int) *entry {
	for _, e := range sc.entries {
		if e.id == id {
			return e
		}
	}
	return nil
}

// scopeState is a copy of a scope, to go back to.
type scopeState struct {
	entries []entry
	seq     int
	typeOf  map[*types.TypeName]int
	imports map[string]map[string]string
}

// save returns a copy of the scope's state.
func (sc *scope) save() scopeState {
	st := scopeState{seq: sc.seq, typeOf: make(map[*types.TypeName]int, len(sc.typeOf))}
	for _, e := range sc.entries {
		c := *e
		if e.methods != nil {
			c.methods = make(map[string]bool, len(e.methods))
			for m := range e.methods {
				c.methods[m] = true
			}
		}
		st.entries = append(st.entries, c)
	}
	for k, v := range sc.typeOf {
		st.typeOf[k] = v
	}
	st.imports = map[string]map[string]string{}
	for f, m := range sc.imports {
		st.imports[f] = map[string]string{}
		for k, v := range m {
			st.imports[f][k] = v
		}
	}
	return st
}

// restore goes back to a saved state (the sequence of numbers goes on).
func (sc *scope) restore(st scopeState) {
	sc.entries = sc.entries[:0]
	for _, e := range st.entries {
		c := e
		sc.entries = append(sc.entries, &c)
	}
	sc.typeOf = st.typeOf
	sc.imports = st.imports
}

// add records an object that is not declared by a checked input (sc and
// ctx).
func (sc *scope) add(obj types.Object) {
	sc.seq++
	sc.entries = append(sc.entries, &entry{name: obj.Name(), id: sc.seq, obj: obj, live: true})
}

// preludeView is the prelude of one check.
type preludeView struct {
	file *ast.File
	// objs maps each entry's id to the object that stands for it in
	// the check's package, once the check has run (see resolve).
	objs map[int]types.Object
	// declared maps the names of the written declarations to their
	// entries' ids.
	declared map[string]int
	// hide holds the names the input declares itself.
	hide map[string]bool
}

// checkName is the name under which the checker sees e in a check whose
// input declares the names in hide.
func checkName(e *entry, hide map[string]bool) string {
	if e.live && !hide[e.name] {
		return e.name
	}
	return e.internal()
}

// prelude makes pkg's scope hold the session's objects, and returns the
// declarations of the rest. hide holds the names the input declares;
// hideMethods the methods it declares, as "Type.Method".
// extra names more variables: entries under other names.
func (sc *scope) prelude(imp *typecheck.Importer, pkg *types.Package, pos token.Pos, hide, hideMethods map[string]bool, extra map[string]*entry) *preludeView {
	v := &preludeView{objs: map[int]types.Object{}, declared: map[string]int{}, hide: hide}
	imports := map[string]string{} // path → name
	var importPaths []string
	w := &typeWriter{
		pkg: func(p *types.Package) (string, bool) {
			if name, ok := imports[p.Path()]; ok {
				return name, true
			}
			if !imp.Has(p.Path()) {
				return "", false
			}
			name := "_snp" + strconv.Itoa(len(imports))
			imports[p.Path()] = name
			importPaths = append(importPaths, p.Path())
			return name, true
		},
		name: func(tn *types.TypeName) string {
			if e := sc.byID(sc.typeOf[tn]); e != nil {
				return checkName(e, hide)
			}
			return tn.Name()
		},
		pos: pos,
	}
	var decls []ast.Decl
	for _, e := range sc.entries {
		if e.live && hide[e.name] {
			if _, isType := e.obj.(*types.TypeName); !isType {
				continue // replaced by the input
			}
		}
		if !e.live {
			if _, isType := e.obj.(*types.TypeName); !isType {
				continue
			}
		}
		name := checkName(e, hide)
		if tn, ok := e.obj.(*types.TypeName); ok {
			w.err = nil
			decls = append(decls, sc.typeDecls(w, e, tn, name, hideMethods)...)
			v.declared[name] = e.id
			continue
		}
		if d, obj := valueDecl(w, pkg, e.obj, name); d != nil {
			decls = append(decls, d)
			v.declared[name] = e.id
		} else {
			v.objs[e.id] = obj
		}
	}
	for _, name := range sortedKeys(extra) {
		if d, _ := valueDecl(w, pkg, extra[name].obj, name); d != nil {
			decls = append(decls, d)
		}
	}
	if len(importPaths) > 0 {
		gd := &ast.GenDecl{TokPos: pos, Tok: token.IMPORT}
		for _, p := range importPaths {
			gd.Specs = append(gd.Specs, &ast.ImportSpec{Name: w.ident(imports[p]), Path: &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(p)}})
		}
		decls = append([]ast.Decl{gd}, decls...)
	}
	v.file = &ast.File{Package: pos, Name: w.ident("main"), Decls: decls, FileStart: pos, FileEnd: pos}
	return v
}

// valueDecl declares the variable, constant or function obj under name:
// in pkg's scope, returning the new object, or, when its type refers to
// the session's types, as a declaration.
func valueDecl(w *typeWriter, pkg *types.Package, obj types.Object, name string) (ast.Decl, types.Object) {
	w.err = nil
	pos := w.pos
	switch obj := obj.(type) {
	case *types.Var:
		if refersToSession(obj.Type()) {
			spec := &ast.ValueSpec{Names: []*ast.Ident{w.ident(name)}, Type: w.expr(obj.Type())}
			if w.err == nil {
				return &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{spec}}, nil
			}
		}
		nv := types.NewVar(pos, pkg, name, obj.Type())
		pkg.Scope().Insert(nv)
		return nil, nv
	case *types.Const:
		if refersToSession(obj.Type()) {
			spec := &ast.ValueSpec{Names: []*ast.Ident{w.ident(name)}, Type: w.expr(obj.Type()), Values: []ast.Expr{w.constExpr(obj.Val(), obj.Type())}}
			if w.err == nil {
				return &ast.GenDecl{TokPos: pos, Tok: token.CONST, Specs: []ast.Spec{spec}}, nil
			}
		}
		nc := types.NewConst(pos, pkg, name, obj.Type(), obj.Val())
		pkg.Scope().Insert(nc)
		return nil, nc
	case *types.Func:
		sig := obj.Type().(*types.Signature)
		if refersToSession(sig) {
			fd := &ast.FuncDecl{Name: w.ident(name), Type: w.funcType(sig, sig.TypeParams())}
			if w.err == nil {
				return fd, nil
			}
		}
		nf := types.NewFunc(pos, pkg, name, sig)
		pkg.Scope().Insert(nf)
		return nil, nf
	}
	return nil, nil
}

// typeDecls writes the declaration of a session type and of its methods.
func (sc *scope) typeDecls(w *typeWriter, e *entry, tn *types.TypeName, name string, hideMethods map[string]bool) []ast.Decl {
	if tn.IsAlias() {
		spec := &ast.TypeSpec{Name: w.ident(name), Assign: w.pos, Type: w.expr(types.Unalias(tn.Type()))}
		if a, ok := tn.Type().(*types.Alias); ok && a.TypeParams().Len() > 0 {
			// A generic alias (see genericAliases).
			spec.TypeParams, spec.Type = w.typeParams(a.TypeParams()), w.expr(a.Rhs())
		}
		return []ast.Decl{&ast.GenDecl{TokPos: w.pos, Tok: token.TYPE, Specs: []ast.Spec{spec}}}
	}
	named, ok := tn.Type().(*types.Named)
	if !ok {
		return nil
	}
	spec := &ast.TypeSpec{Name: w.ident(name), Type: w.expr(named.Underlying())}
	if named.TypeParams().Len() > 0 {
		spec.TypeParams = w.typeParams(named.TypeParams())
	}
	decls := []ast.Decl{&ast.GenDecl{TokPos: w.pos, Tok: token.TYPE, Specs: []ast.Spec{spec}}}
	for i := range named.NumMethods() {
		m := named.Method(i)
		if !e.methods[m.Name()] || (name == e.name && hideMethods[e.name+"."+m.Name()]) {
			continue
		}
		sig := m.Type().(*types.Signature)
		var recv ast.Expr = w.ident(name)
		if tps := sig.RecvTypeParams(); tps.Len() > 0 {
			idx := make([]ast.Expr, tps.Len())
			for j := range idx {
				idx[j] = w.ident(tps.At(j).Obj().Name())
			}
			recv = &ast.IndexListExpr{X: recv, Lbrack: w.pos, Indices: idx, Rbrack: w.pos}
		}
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			recv = &ast.StarExpr{Star: w.pos, X: recv}
		}
		decls = append(decls, &ast.FuncDecl{
			Recv: &ast.FieldList{Opening: w.pos, List: []*ast.Field{{Type: recv}}, Closing: w.pos},
			Name: w.ident(m.Name()),
			Type: w.funcType(sig, nil),
		})
	}
	return decls
}

// refersToSession reports whether t mentions a type the session
// declared.
func refersToSession(t types.Type) bool { return refersTo(t, isSession) }

// refersToMain reports whether t mentions a type that the inputs
// declared, at the top level or in a function: a type whose values the
// interpreter makes with no name.
func refersToMain(t types.Type) bool {
	return refersTo(t, func(tn *types.TypeName) bool { return tn.Pkg() != nil && tn.Pkg().Path() == "main" })
}

// refersTo reports whether t mentions a named type whose name is
// declared as in reports.
func refersTo(t types.Type, in func(*types.TypeName) bool) bool {
	found := false
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if found || t == nil {
			return
		}
		switch t := t.(type) {
		case *types.Named:
			if in(t.Obj()) {
				found = true
				return
			}
			for i := range t.TypeArgs().Len() {
				walk(t.TypeArgs().At(i))
			}
		case *types.Alias:
			walk(types.Unalias(t))
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			walkTuple(t.Params(), walk)
			walkTuple(t.Results(), walk)
			if tps := t.TypeParams(); tps != nil {
				for i := range tps.Len() {
					walk(tps.At(i).Constraint())
				}
			}
		case *types.Struct:
			for i := range t.NumFields() {
				walk(t.Field(i).Type())
			}
		case *types.Interface:
			for i := range t.NumEmbeddeds() {
				walk(t.EmbeddedType(i))
			}
			for i := range t.NumExplicitMethods() {
				walk(t.ExplicitMethod(i).Type())
			}
		case *types.Union:
			for i := range t.Len() {
				walk(t.Term(i).Type())
			}
		case *types.TypeParam:
			walk(t.Constraint())
		}
	}
	walk(t)
	return found
}

func walkTuple(t *types.Tuple, walk func(types.Type)) {
	for i := range t.Len() {
		walk(t.At(i).Type())
	}
}

// resolve finds, after a check, the objects that stand for the written
// declarations in the check's package.
func (v *preludeView) resolve(pkg *types.Package) {
	for name, id := range v.declared {
		if obj := pkg.Scope().Lookup(name); obj != nil {
			v.objs[id] = obj
		}
	}
}

// commit records what the first ran chunks of a checked input declared:
// the session's objects become the check's, the names the chunks
// declared replace the session's, and their declarations are added.
// When the chunk after them stopped at reached (a panic), the
// declarations before that position are recorded too: they ran.
func (sc *scope) commit(c *checked, ran int, reached token.Pos) {
	for id, obj := range c.prelude.objs {
		if e := sc.byID(id); e != nil {
			e.obj = obj
			if tn, ok := obj.(*types.TypeName); ok {
				sc.typeOf[tn] = id
			}
		}
	}
	upTo := ran
	if reached.IsValid() && ran < len(c.defs) {
		upTo = ran + 1 // the chunk that stopped, in part
	}
	ranObj := func(i int, obj types.Object) bool { return i < ran || obj.Pos() < reached }
	var defs [][]types.Object
	for i := 0; i < upTo; i++ {
		var ds []types.Object
		for _, obj := range c.defs[i] {
			if ranObj(i, obj) {
				ds = append(ds, obj)
			}
		}
		defs = append(defs, ds)
	}
	replaced := map[string]bool{}
	for _, ds := range defs {
		for _, obj := range ds {
			replaced[obj.Name()] = true
		}
	}
	for i := 0; i < ran && i < len(c.hides); i++ {
		for _, name := range c.hides[i] {
			replaced[name] = true
		}
		for name, path := range c.imports[i] {
			if sc.imports[c.file] == nil {
				sc.imports[c.file] = map[string]string{}
			}
			sc.imports[c.file][name] = path
		}
	}
	kept := sc.entries[:0]
	for _, e := range sc.entries {
		if e.live && replaced[e.name] {
			if _, isType := e.obj.(*types.TypeName); !isType {
				continue
			}
			e.live = false
		}
		kept = append(kept, e)
	}
	sc.entries = kept
	for i, ds := range defs {
		for _, obj := range ds {
			e := &entry{name: obj.Name(), id: c.ids[obj], obj: obj, live: true, yname: c.ynames[obj]}
			if tn, ok := obj.(*types.TypeName); ok {
				e.methods, e.forwarded = map[string]bool{}, map[string]string{}
				sc.typeOf[tn] = e.id
			}
			sc.entries = append(sc.entries, e)
		}
		if i >= ran {
			continue
		}
		for _, m := range c.methods[i] {
			recv := m.Signature().Recv().Type()
			if p, ok := recv.(*types.Pointer); ok {
				recv = p.Elem()
			}
			if n, ok := types.Unalias(recv).(*types.Named); ok {
				if e := sc.byID(sc.typeOf[n.Origin().Obj()]); e != nil {
					e.methods[m.Name()] = true
					if c.forwarded[m] {
						e.forwarded[m.Name()] = methodKey(m)
					}
				}
			}
		}
	}
}

// declarePrelude tells the checker about sc and ctx.
func (s *Session) declarePrelude() error {
	imp := sharedImporter()
	rddPkg, err := imp.Import("github.com/sparknet-go/sparknet/rdd")
	if err != nil {
		return err
	}
	ctxPkg, err := imp.Import("context")
	if err != nil {
		return err
	}
	pkg := types.NewPackage("main", "main")
	s.scope.add(types.NewVar(s.preludePos, pkg, "sc", types.NewPointer(rddPkg.Scope().Lookup("Context").Type())))
	s.scope.add(types.NewVar(s.preludePos, pkg, "ctx", ctxPkg.Scope().Lookup("Context").Type()))
	return nil
}
