package repl

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/repl/typecheck"
)

// Every input is type-checked before any of it runs. The checker sees
// the input as a file of package main (see scope.go): its imports, its
// func, type, var and const declarations and its top-level := statements
// at package level, and its other top-level statements in functions of
// their own (_sn_body<N>). The nodes are the parsed chunks' own, so that
// the type information (checked.info) applies to what the interpreter
// runs.
//
// REPL leniency: unused variables at the top level and unused imports
// are not errors, and a top-level declaration may replace an earlier
// one of the same name (see scope.go). Otherwise errors are the checker's
// own words, which are the Go compiler's.

// checked is an input the checker accepted.
type checked struct {
	file    string              // the name it was compiled under
	imports []map[string]string // per chunk, the imports it declares
	pkg     *types.Package
	info    *types.Info
	prelude *preludeView
	// defs lists for each chunk the package-level objects it declares.
	defs [][]types.Object
	// methods lists for each chunk the methods it declares.
	methods [][]*types.Func
	// hides lists for each chunk the names it declares or imports,
	// which replace the session's.
	hides [][]string
	// ids numbers the objects the input declares at the top level (the
	// ids of their entries); ynames are the names of its types in the
	// interpreter, and ynameOf those of the session's types, by id.
	ids     map[types.Object]int
	ynames  map[types.Object]string
	ynameOf map[int]string
	// bodies are the functions that hold the top-level statements, by
	// chunk (nil for other chunks).
	bodies []*ast.FuncDecl
	// olds are the session's values that top-level declarations of the
	// same name use, as in x := x + 1.
	olds []oldValue
	// replaced are the methods the input declares again, with the
	// function variables their first declarations call (forwardMethods);
	// forwarded are the methods the rewrite declared that way.
	replaced  map[*types.Func]string
	forwarded map[*types.Func]bool
}

// oldValue is a session variable that a top-level declaration of the
// same name uses in its initialization: there it is old, which the
// interpreter must copy before the declaration replaces it.
type oldValue struct {
	chunk     int
	stmt      ast.Stmt // the declaration
	name, old string   // its name, and the name of the copy
	yname     string   // the old value's name in the interpreter
}

// hoistedSpec is a variable declaration of a top-level statement, which
// the checker sees at package level.
type hoistedSpec struct {
	spec  *ast.ValueSpec
	stmt  ast.Stmt
	chunk int
}

// reassigned matches the names under which the checker sees variables
// that a := assigns rather than declares.
var reassigned = regexp.MustCompile(`\b_snre\d+_(\w+)`)

// maxErrors is the most errors reported for one input, as the compiler
// reports.
const maxErrors = 10

// inputParts is an input arranged for the checker.
type inputParts struct {
	file        *ast.File
	bodies      []*ast.FuncDecl
	hide        map[string]bool
	hideMethods map[string]bool
	hides       [][]string
	defined     []*ast.AssignStmt   // top-level := checked as var declarations
	errs        []error             // errors found while arranging
	idents      map[string]bool     // every identifier the input uses
	echoed      ast.Expr            // the final expression, whose value is echoed
	imports     []map[string]string // per chunk, the imports it declares
	hoisted     []hoistedSpec       // the variable declarations of top-level statements
	// fileImports are the import declarations of whole files (a script
	// with a package clause), whose unused imports are errors as in Go.
	fileImports []*ast.GenDecl
}

// arrange builds the file the checker sees from the parsed chunks.
// With echo, the final expression statement is echoed, so used.
func (s *Session) arrange(files []*ast.File, kinds []chunkKind, echo bool) *inputParts {
	fset := s.in.FileSet()
	p := &inputParts{hide: map[string]bool{}, hideMethods: map[string]bool{}, idents: map[string]bool{}}
	p.hides = make([][]string, len(files))
	p.imports = make([]map[string]string, len(files))
	p.bodies = make([]*ast.FuncDecl, len(files))
	var imports, decls []ast.Decl
	declared := map[string]bool{} // top-level names of this input so far
	declare := func(chunk int, id *ast.Ident) {
		if id == nil || id.Name == "_" {
			return
		}
		declared[id.Name] = true
		p.hide[id.Name] = true
		p.hides[chunk] = append(p.hides[chunk], id.Name)
	}
	declareGen := func(chunk int, gd *ast.GenDecl) {
		for _, sp := range gd.Specs {
			switch sp := sp.(type) {
			case *ast.ValueSpec:
				for _, id := range sp.Names {
					declare(chunk, id)
				}
			case *ast.TypeSpec:
				declare(chunk, sp.Name)
			case *ast.ImportSpec:
				path, _ := strconv.Unquote(sp.Path.Value)
				name := importName(sp, path)
				if sp.Name == nil || (sp.Name.Name != "_" && sp.Name.Name != ".") {
					p.hide[name] = true
					p.hides[chunk] = append(p.hides[chunk], name)
					if p.imports[chunk] == nil {
						p.imports[chunk] = map[string]string{}
					}
					p.imports[chunk][name] = path
				}
			}
		}
	}
	for i, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				p.idents[id.Name] = true
			}
			return true
		})
		if kinds[i] != stmtChunk {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					if d.Tok == token.IMPORT {
						imports = append(imports, d)
						if kinds[i] == fileChunk {
							p.fileImports = append(p.fileImports, d)
						}
					} else {
						decls = append(decls, d)
					}
					declareGen(i, d)
				case *ast.FuncDecl:
					decls = append(decls, d)
					if d.Recv == nil {
						if kinds[i] == fileChunk && (d.Name.Name == "main" || d.Name.Name == "init") {
							continue
						}
						declare(i, d.Name)
					} else if base := recvBase(d.Recv); base != "" {
						p.hideMethods[base+"."+d.Name.Name] = true
					}
				}
			}
			continue
		}
		body := f.Decls[0].(*ast.FuncDecl).Body
		var rest []ast.Stmt
		for j, st := range body.List {
			if es, ok := st.(*ast.ExprStmt); ok && echo && i == len(files)-1 && j == len(body.List)-1 {
				p.echoed = es.X
			}
			switch st := st.(type) {
			case *ast.DeclStmt:
				gd := st.Decl.(*ast.GenDecl)
				decls = append(decls, gd)
				declareGen(i, gd)
				if gd.Tok == token.VAR {
					for _, sp := range gd.Specs {
						p.hoisted = append(p.hoisted, hoistedSpec{sp.(*ast.ValueSpec), st, i})
					}
				}
				continue
			case *ast.AssignStmt:
				if st.Tok != token.DEFINE || !allIdents(st.Lhs) {
					break
				}
				spec := &ast.ValueSpec{Values: st.Rhs}
				var reassign []ast.Stmt
				fresh := false
				for _, l := range st.Lhs {
					id := l.(*ast.Ident)
					if id.Name == "_" || !declared[id.Name] {
						spec.Names = append(spec.Names, id)
						fresh = fresh || id.Name != "_"
						continue
					}
					// Declared earlier in this input: assigned, as
					// := does.
					tmp := &ast.Ident{NamePos: id.NamePos, Name: fmt.Sprintf("_snre%d_%s", len(p.defined), id.Name)}
					spec.Names = append(spec.Names, tmp)
					reassign = append(reassign, &ast.AssignStmt{
						Lhs: []ast.Expr{&ast.Ident{NamePos: id.NamePos, Name: id.Name}}, TokPos: st.TokPos, Tok: token.ASSIGN,
						Rhs: []ast.Expr{&ast.Ident{NamePos: id.NamePos, Name: tmp.Name}},
					})
				}
				if !fresh {
					p.errs = append(p.errs, posErrorf(fset, st.TokPos, "no new variables on left side of :="))
					continue
				}
				for _, id := range spec.Names {
					if !strings.HasPrefix(id.Name, "_snre") {
						declare(i, id)
					}
				}
				decls = append(decls, &ast.GenDecl{TokPos: st.Pos(), Tok: token.VAR, Specs: []ast.Spec{spec}})
				p.defined = append(p.defined, st)
				p.hoisted = append(p.hoisted, hoistedSpec{spec, st, i})
				rest = append(rest, reassign...)
				continue
			}
			rest = append(rest, st)
		}
		fd := &ast.FuncDecl{
			Name: &ast.Ident{NamePos: body.Lbrace, Name: fmt.Sprintf("_sn_body%d", i)},
			Type: &ast.FuncType{Func: body.Lbrace, Params: &ast.FieldList{}},
			Body: &ast.BlockStmt{Lbrace: body.Lbrace, List: rest, Rbrace: body.Rbrace},
		}
		p.bodies[i] = fd
		decls = append(decls, fd)
	}
	p.file = &ast.File{Package: files[0].Package, Name: &ast.Ident{NamePos: files[0].Package, Name: "main"}, Decls: append(imports, decls...)}
	return p
}

func allIdents(xs []ast.Expr) bool {
	for _, x := range xs {
		if _, ok := x.(*ast.Ident); !ok {
			return false
		}
	}
	return true
}

// recvBase returns the name of a method's receiver base type.
func recvBase(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// check type-checks the chunks of an input compiled under the name file.
func (s *Session) check(file string, files []*ast.File, kinds []chunkKind, echo bool) (*checked, error) {
	fset := s.in.FileSet()
	parts := s.arrange(files, kinds, echo)
	if len(parts.errs) > 0 {
		return nil, errors.Join(parts.errs...)
	}
	// The file's imports that the input may use: those whose names it
	// mentions and does not declare itself.
	var specs []ast.Spec
	imported := map[string]string{}
	for name, path := range s.imported[file] {
		imported[name] = path
	}
	for name, path := range s.scope.imports[file] {
		imported[name] = path
	}
	for _, name := range sortedKeys(imported) {
		if name == rtName || parts.hide[name] || !parts.idents[name] || s.scope.lookup(name) != nil {
			continue
		}
		specs = append(specs, &ast.ImportSpec{
			Name: &ast.Ident{NamePos: parts.file.Package, Name: name},
			Path: &ast.BasicLit{ValuePos: parts.file.Package, Kind: token.STRING, Value: strconv.Quote(imported[name])},
		})
	}
	if len(specs) > 0 {
		gd := &ast.GenDecl{TokPos: parts.file.Package, Tok: token.IMPORT, Specs: specs}
		parts.file.Decls = append([]ast.Decl{gd}, parts.file.Decls...)
	}

	imp := sharedImporter()
	var (
		pkg     *types.Package
		prelude *preludeView
		info    *types.Info
		terrs   []types.Error
	)
	var fault error // a panic of the checker's
	attempt := func(extra map[string]*entry) {
		pkg = types.NewPackage("main", "main")
		prelude = s.scope.prelude(imp, pkg, s.preludePos, parts.hide, parts.hideMethods, extra)
		info = &types.Info{
			Types:      map[ast.Expr]types.TypeAndValue{},
			Instances:  map[*ast.Ident]types.Instance{},
			Defs:       map[*ast.Ident]types.Object{},
			Uses:       map[*ast.Ident]types.Object{},
			Implicits:  map[ast.Node]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
			Scopes:     map[ast.Node]*types.Scope{},
		}
		terrs = nil
		conf := types.Config{
			Importer:  imp,
			GoVersion: typecheck.GoVersion,
			Sizes:     imp.Sizes(),
			Error: func(err error) {
				if te, ok := err.(types.Error); ok {
					terrs = append(terrs, te)
				}
			},
		}
		defer func() {
			if rec := recover(); rec != nil {
				fault = fmt.Errorf("the shell failed to check this input (a fault of the shell's; the session goes on): %v", rec)
			}
		}()
		types.NewChecker(&conf, fset, pkg, info).Files([]*ast.File{prelude.file, parts.file})
	}
	attempt(nil)
	if fault != nil {
		return nil, fault
	}
	var olds []oldValue
	if len(terrs) > 0 {
		// x := x + 1 at the top level: the x on the right is the
		// session's, which the checker sees under another name.
		extra := map[string]*entry{}
		for _, h := range parts.hoisted {
			for _, id := range h.spec.Names {
				obj := info.Defs[id]
				e := s.scope.lookup(id.Name)
				if obj == nil || e == nil {
					continue
				}
				old := fmt.Sprintf("_snold%d_%s", len(olds), id.Name)
				found := false
				for _, v := range h.spec.Values {
					ast.Inspect(v, func(n ast.Node) bool {
						if u, ok := n.(*ast.Ident); ok && info.Uses[u] == obj {
							u.Name, found = old, true
						}
						return true
					})
				}
				if found {
					extra[old] = e
					yname := id.Name
					if shadowsUniverse(e.obj) {
						yname = universeName(yname)
					}
					olds = append(olds, oldValue{chunk: h.chunk, stmt: h.stmt, name: id.Name, old: old, yname: yname})
				}
			}
		}
		if len(olds) > 0 {
			attempt(extra)
			if fault != nil {
				return nil, fault
			}
		}
	}
	terrs = append(terrs, s.usesBeforeDeclared(parts, info)...)
	if msgs := s.checkErrors(terrs, parts, info); len(msgs) > 0 {
		for _, o := range olds { // as the user wrote them
			for _, h := range parts.hoisted {
				for _, v := range h.spec.Values {
					ast.Inspect(v, func(n ast.Node) bool {
						if u, ok := n.(*ast.Ident); ok && u.Name == o.old {
							u.Name = o.name
						}
						return true
					})
				}
			}
		}
		return nil, &CompileError{Errors: msgs}
	}
	prelude.resolve(pkg)
	// The interpreter keeps the first declaration of a method: one that
	// went through a function variable (see forwardMethods) is replaced
	// by assigning that, others are refused.
	var again []string
	replaced := map[*types.Func]string{}
	for ident, obj := range info.Defs {
		f, ok := obj.(*types.Func)
		if !ok || f.Signature().Recv() == nil || !ident.Pos().IsValid() || ident.Pos() == s.preludePos {
			continue
		}
		recv := f.Signature().Recv().Type()
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		n, ok := types.Unalias(recv).(*types.Named)
		if !ok {
			continue
		}
		for id, o := range prelude.objs {
			if e := s.scope.byID(id); e != nil && o == n.Origin().Obj() && e.methods[f.Name()] {
				key, fwd := e.forwarded[f.Name()]
				switch {
				case fwd && key == methodKey(f):
					replaced[f] = methodVar(id, f.Name())
				case fwd:
					again = append(again, fmt.Sprintf("%s: method %s.%s is declared already, as %s; the shell replaces a method only with the same receiver and signature: declare the type %s again, then its methods",
						fset.Position(ident.Pos()), e.name, f.Name(), key, e.name))
				default:
					again = append(again, fmt.Sprintf("%s: method %s.%s is declared already, and the shell cannot replace it (declared in a script, calling recover itself, or of a generic type): declare the type %s again, then its methods",
						fset.Position(ident.Pos()), e.name, f.Name(), e.name))
				}
			}
		}
	}
	if len(again) > 0 {
		sort.Strings(again)
		return nil, &CompileError{Errors: again}
	}
	if deep := s.deepSelfTypes(info); len(deep) > 0 {
		return nil, &CompileError{Errors: deep}
	}
	c := &checked{file: file, imports: parts.imports, pkg: pkg, info: info, prelude: prelude, bodies: parts.bodies, hides: parts.hides, olds: olds,
		ids: map[types.Object]int{}, ynames: map[types.Object]string{}, ynameOf: map[int]string{},
		replaced: replaced, forwarded: map[*types.Func]bool{}}
	for _, e := range s.scope.entries {
		c.ynameOf[e.id] = e.yname
	}
	c.defs = make([][]types.Object, len(files))
	c.methods = make([][]*types.Func, len(files))
	chunkOf := func(pos token.Pos) int {
		for i, f := range files {
			if f.FileStart <= pos && pos <= f.FileEnd {
				return i
			}
		}
		return -1
	}
	// The package-level objects, in the order of their declarations.
	var objs []types.Object
	for id, obj := range info.Defs {
		if obj == nil || !id.Pos().IsValid() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			if obj.Signature().Recv() != nil {
				if i := chunkOf(obj.Pos()); i >= 0 {
					c.methods[i] = append(c.methods[i], obj)
				}
				continue
			}
		case *types.PkgName, *types.Label:
			continue
		}
		if obj.Parent() == pkg.Scope() && !strings.HasPrefix(obj.Name(), "_sn") {
			objs = append(objs, obj)
		}
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Pos() < objs[j].Pos() })
	for _, obj := range objs {
		i := chunkOf(obj.Pos())
		if i < 0 || (kinds[i] == fileChunk && (obj.Name() == "main" || obj.Name() == "init")) {
			continue
		}
		c.defs[i] = append(c.defs[i], obj)
		s.scope.seq++
		c.ids[obj] = s.scope.seq
		if tn, ok := obj.(*types.TypeName); ok {
			c.ynames[tn] = tn.Name()
			// A type named like a package the file imports gets a
			// name of its own too, as a function does below.
			if s.typesSeen[tn.Name()] || s.imported[file][tn.Name()] != "" {
				c.ynames[tn] = internalName(s.scope.seq, tn.Name())
			}
			s.typesSeen[c.ynames[tn]] = true
		}
		// A function named like a package the file imports: the
		// interpreter would refuse it as declared twice. And a func
		// main at the prompt or in a cell, which the interpreter ran
		// at once and after every later input; it runs when called.
		if fn, ok := obj.(*types.Func); ok && (s.imported[file][fn.Name()] != "" || fn.Name() == "main" && fn.Signature().Recv() == nil) {
			c.ynames[fn] = internalName(s.scope.seq, fn.Name())
		}
	}
	return c, nil
}

// usesBeforeDeclared returns an error for each use, in the input's
// top-level statements, of a variable that a later top-level statement
// of the input declares (fmt.Println(b) above var b = 2; var a = b + 1
// above it): the checker sees those variables as the package's, declared
// in any order, but the statements run in order, so the use read the
// zero value where Go, in a function's body, reports the name undefined,
// or uses the variable of that name that an earlier input declared.
func (s *Session) usesBeforeDeclared(parts *inputParts, info *types.Info) []types.Error {
	declaredAt := map[types.Object]token.Pos{}
	for _, h := range parts.hoisted {
		for _, id := range h.spec.Names {
			if obj := info.Defs[id]; obj != nil {
				declaredAt[obj] = h.stmt.Pos()
			}
		}
	}
	if len(declaredAt) == 0 {
		return nil
	}
	var errs []types.Error
	check := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			u, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := info.Uses[u]
			at, ok := declaredAt[obj]
			if !ok || u.Pos() >= at || types.Universe.Lookup(u.Name) != nil {
				// (A predeclared name, true or len, declared again
				// below: left as it was; see the BUG note.)
				return true
			}
			msg := "undefined: " + u.Name
			if s.scope.lookup(u.Name) != nil {
				// The earlier input's variable, which Go would use here,
				// is the new one's zero value to the interpreter.
				msg = fmt.Sprintf("%s is declared again below, at %s: the shell cannot use the earlier %s above that in the same input; use it in an input of its own, or give the new one another name",
					u.Name, s.in.FileSet().Position(at), u.Name)
			}
			errs = append(errs, types.Error{Fset: s.in.FileSet(), Pos: u.Pos(), Msg: msg})
			return true
		})
	}
	for _, h := range parts.hoisted {
		for _, v := range h.spec.Values {
			check(v)
		}
	}
	for _, b := range parts.bodies {
		if b != nil {
			check(b.Body)
		}
	}
	return errs
}

// A CompileError reports an input that the Go type checker rejected:
// none of it ran.
type CompileError struct {
	// Errors are the checker's messages at their positions, in order,
	// at most 10 and then "too many errors", as the go command gives
	// them.
	Errors []string
}

func (e *CompileError) Error() string { return strings.Join(e.Errors, "\n") }

// inFileImports reports whether pos is in an import declaration of a
// whole file of the input.
func inFileImports(pos token.Pos, parts *inputParts) bool {
	for _, d := range parts.fileImports {
		if d.Pos() <= pos && pos <= d.End() {
			return true
		}
	}
	return false
}

// checkErrors turns the checker's errors into the messages reported:
// leniency applied, sorted, positions and names as the user wrote them.
func (s *Session) checkErrors(errs []types.Error, parts *inputParts, info *types.Info) []string {
	// inBody: at the top level of the statements of an input, whose
	// variables the session keeps; not in a block, a statement's own
	// scope or a function literal among them, where Go's rule holds.
	inBody := func(pos token.Pos) bool {
		inner := info.Scopes[parts.file].Innermost(pos)
		for _, b := range parts.bodies {
			if b != nil && b.Body.Lbrace <= pos && pos <= b.Body.Rbrace {
				return inner == nil || inner == info.Scopes[b.Type]
			}
		}
		return false
	}
	inDefine := func(pos token.Pos) bool {
		for _, st := range parts.defined {
			if st.Pos() <= pos && pos <= st.End() {
				return true
			}
		}
		return false
	}
	var kept []types.Error
	for _, e := range errs {
		switch {
		case !e.Pos.IsValid() || e.Pos == s.preludePos:
			continue // in the prelude
		case strings.HasPrefix(e.Msg, "declared and not used") && inBody(e.Pos):
			continue
		case parts.echoed != nil && e.Pos == parts.echoed.Pos() && strings.HasSuffix(e.Msg, " is not used"):
			continue // echoed
		case (strings.HasSuffix(e.Msg, "imported and not used") || strings.Contains(e.Msg, "imported as ") && strings.HasSuffix(e.Msg, " and not used")) &&
			!inFileImports(e.Pos, parts):
			continue // an input's imports serve the inputs after it
		}
		if inDefine(e.Pos) {
			e.Msg = defineMessage(e, parts, info)
		}
		if strings.Contains(e.Msg, ", cannot infer ") {
			e = inferError(e, parts.file)
		}
		kept = append(kept, e)
	}
	// As the go command: the same error at the same place once; the
	// first maxErrors in the order the checker found them, sorted by
	// position, and then "too many errors" at the last one's place.
	fset := s.in.FileSet()
	type seenError struct {
		pos token.Pos
		msg string
	}
	seen := map[seenError]bool{}
	var first []types.Error
	more := false
	for _, e := range kept {
		if seen[seenError{e.Pos, e.Msg}] {
			continue
		}
		seen[seenError{e.Pos, e.Msg}] = true
		if len(first) == maxErrors {
			more = true
			break
		}
		first = append(first, e)
	}
	var last token.Pos
	if len(first) > 0 {
		last = first[len(first)-1].Pos
	}
	sort.SliceStable(first, func(i, j int) bool { return first[i].Pos < first[j].Pos })
	var msgs []string
	for _, e := range first {
		msg := internalNames.ReplaceAllString(e.Msg, "$1")
		msg = reassigned.ReplaceAllString(msg, "$1")
		msgs = append(msgs, s.explain(fmt.Sprintf("%s: %s", fset.Position(e.Pos), msg), memberAt(parts.file, e.Pos)))
	}
	if more {
		msgs = append(msgs, fmt.Sprintf("%s: too many errors", fset.Position(last)))
	}
	return msgs
}

// inferError places an error of a call whose type arguments cannot be
// inferred at the call's parenthesis, as the go command reports it, and
// leaves out where a type parameter of the shell's own source of a
// standard package (slices, maps, iter) is declared: "declared at
// _.go:20:31" named a file that is not there.
func inferError(e types.Error, f *ast.File) types.Error {
	if f != nil {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && call.Pos() == e.Pos {
				e.Pos = call.Lparen
				return false
			}
			return true
		})
	}
	if i := strings.Index(e.Msg, " (declared at _.go:"); i >= 0 && strings.HasSuffix(e.Msg, ")") {
		e.Msg = e.Msg[:i]
	}
	return e
}

// defineMessage words an error in a top-level x := f(), which the
// checker saw as var x = f(), as it words an error in a :=.
func defineMessage(e types.Error, parts *inputParts, info *types.Info) string {
	msg := strings.Replace(e.Msg, "in variable declaration", "in assignment", 1)
	if !strings.HasPrefix(msg, "multiple-value ") || !strings.HasSuffix(msg, " in single-value context") {
		return msg
	}
	for _, st := range parts.defined {
		if len(st.Lhs) != 1 || len(st.Rhs) != 1 || st.Rhs[0].Pos() != e.Pos {
			continue
		}
		call, ok := ast.Unparen(st.Rhs[0]).(*ast.CallExpr)
		if !ok {
			break
		}
		if tup, ok := info.Types[call].Type.(*types.Tuple); ok {
			return fmt.Sprintf("assignment mismatch: 1 variable but %s returns %d values", types.ExprString(call.Fun), tup.Len())
		}
	}
	return msg
}

// explain adds advice to a checker's message where the shell knows
// more: the import an undefined package name needs.
func (s *Session) explain(msg, member string) string {
	_, rest, ok := strings.Cut(msg, ": undefined: ")
	if !ok || !token.IsIdentifier(rest) {
		return msg
	}
	if path := s.packageWith(rest, member); path != "" {
		return fmt.Sprintf("%s; add import %q", msg, path)
	}
	return msg
}

// memberAt returns Sel of the selector X.Sel of f whose X is the
// identifier at pos, or "".
func memberAt(f *ast.File, pos token.Pos) string {
	member := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if member != "" || n == nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Pos() == pos {
				member = sel.Sel.Name
			}
		}
		return true
	})
	return member
}

// deepSelfTypes reports the types the input declares that the
// interpreter cannot use: a type whose underlying type is not a struct or
// an interface and that mentions itself two or more type constructors
// deep (type A [][]A, type L []map[int]L, type F func() []F). Any use of
// one overflows the interpreter's stack, which ends the process, so the
// declaration is refused with a way around it: a struct type may refer to
// itself at any depth (type A struct{ Kids [][]A }). So is a generic
// type with two or more type parameters that refers to itself (type
// node[K, V any] struct{ next *node[K, V] }), whose instantiation
// recursed without end; with one type parameter it works.
func (s *Session) deepSelfTypes(info *types.Info) []string {
	fset := s.in.FileSet()
	var msgs []string
	for ident, obj := range info.Defs {
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() || !ident.Pos().IsValid() || ident.Pos() == s.preludePos {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		u := n.Underlying()
		if tp := n.TypeParams(); tp.Len() >= 2 && selfDepth(u, n, 0) >= 0 {
			params := make([]string, tp.Len())
			for i := range tp.Len() {
				params[i] = tp.At(i).Obj().Name()
			}
			msgs = append(msgs, fmt.Sprintf("%s: type %s[%s] refers to itself and has %d type parameters, which the interpreter cannot instantiate "+
				"(its stack overflows); a generic type with one type parameter may refer to itself (type list[T any] struct{ v T; next *list[T] }), "+
				"and one with more may refer to its values by their index in a slice that holds them "+
				"(type %s[%s] struct{ ...; next int } in a []%s[%s])",
				fset.Position(ident.Pos()), tn.Name(), strings.Join(params, ", "), tp.Len(),
				tn.Name(), strings.Join(params, ", "), tn.Name(), strings.Join(params, ", ")))
			continue
		}
		switch u.(type) {
		case *types.Struct, *types.Interface:
			continue
		}
		if selfDepth(u, n, 0) >= 2 {
			qual := func(p *types.Package) string {
				if p == tn.Pkg() {
					return ""
				}
				return p.Name()
			}
			msgs = append(msgs, fmt.Sprintf("%s: type %s is %s: it contains itself two types deep, which the interpreter cannot use "+
				"(its stack overflows); a struct type may contain itself at any depth: type %s struct{ V %s }",
				fset.Position(ident.Pos()), tn.Name(), types.TypeString(u, qual), tn.Name(), types.TypeString(u, qual)))
		}
	}
	sort.Strings(msgs)
	return msgs
}

// selfDepth returns how many type constructors (slice, array, pointer,
// map, channel, function, struct) deep t, at depth, mentions the named
// type n, without looking into other named types, or -1.
func selfDepth(t types.Type, n *types.Named, depth int) int {
	best := -1
	keep := func(d int) {
		if d > best {
			best = d
		}
	}
	switch t := t.(type) {
	case *types.Named:
		if t.Origin() == n.Origin() {
			return depth
		}
	case *types.Alias:
		return selfDepth(types.Unalias(t), n, depth)
	case *types.Slice:
		keep(selfDepth(t.Elem(), n, depth+1))
	case *types.Array:
		keep(selfDepth(t.Elem(), n, depth+1))
	case *types.Pointer:
		keep(selfDepth(t.Elem(), n, depth+1))
	case *types.Chan:
		keep(selfDepth(t.Elem(), n, depth+1))
	case *types.Map:
		keep(selfDepth(t.Key(), n, depth+1))
		keep(selfDepth(t.Elem(), n, depth+1))
	case *types.Struct:
		for i := range t.NumFields() {
			keep(selfDepth(t.Field(i).Type(), n, depth+1))
		}
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tup.Len() {
				keep(selfDepth(tup.At(i).Type(), n, depth+1))
			}
		}
	}
	return best
}
