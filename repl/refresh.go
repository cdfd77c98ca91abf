package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// The interpreter binds a call of a function to the function as it was
// compiled: declared again in a later input (a notebook's cell run again
// with a fix), a function is not what the functions of earlier inputs
// call. Methods go through function variables that a new declaration
// sets (forwardMethods); a function's callers are declared again instead,
// from their source, after the input that declared it again, and theirs
// in turn.

// funcSource is a function or method of the session as an input
// declared it: its source, the session's functions it calls, and the
// order of its declaration. A method is known as T.M.
type funcSource struct {
	text  string
	calls []string
	order int
	// vars are the session's variables and constants it uses.
	vars []string
}

// declaredFuncs returns the functions and methods that the chunks of
// declarations of p (an input's segment, checked into c, from src)
// declare, by name, with their source (not the methods of generic
// types).
func (s *Session) declaredFuncs(src string, p *parsedInput, c *checked) map[string]*funcSource {
	fset := s.in.FileSet()
	out := map[string]*funcSource{}
	for i, f := range p.files {
		if p.kinds[i] != declChunk {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Name.Name == "init" || fd.Name.Name == "_" {
				continue
			}
			key := fd.Name.Name
			if fd.Recv != nil {
				// A method, by its receiver's type: T.M.
				fn, ok := c.info.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				rt := fn.Signature().Recv().Type()
				if pt, ok := rt.(*types.Pointer); ok {
					rt = pt.Elem()
				}
				n, ok := types.Unalias(rt).(*types.Named)
				if !ok || n.TypeParams().Len() > 0 {
					continue
				}
				key = n.Obj().Name() + "." + key
			}
			lo := p.chunks[i].start + fset.PositionFor(fd.Pos(), false).Offset - p.prefix[i]
			hi := p.chunks[i].start + fset.PositionFor(fd.End(), false).Offset - p.prefix[i]
			if fd.Doc != nil {
				// Its comment, unless that is the chunk's line directive.
				if d := p.chunks[i].start + fset.PositionFor(fd.Doc.Pos(), false).Offset - p.prefix[i]; d >= p.chunks[i].start {
					lo = d
				}
			}
			if lo < 0 || hi > len(src) || lo >= hi {
				continue
			}
			fs := &funcSource{text: src[lo:hi]}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				switch o := c.info.Uses[id].(type) {
				case *types.Var, *types.Const:
					if v, isVar := o.(*types.Var); (!isVar || !v.IsField()) && o.Parent() == c.pkg.Scope() && !slices.Contains(fs.vars, o.Name()) {
						fs.vars = append(fs.vars, o.Name())
					}
				}
				fn, ok := c.info.Uses[id].(*types.Func)
				if ok {
					fn = fn.Origin() // a generic function's, not its instance's
				}
				if ok && fn.Pkg() == c.pkg && fn.Parent() == c.pkg.Scope() && !slices.Contains(fs.calls, fn.Name()) {
					fs.calls = append(fs.calls, fn.Name())
				}
				return true
			})
			out[key] = fs
		}
	}
	return out
}

// refreshCallers records the functions that a segment declared (see
// declaredFuncs), and declares again, from their source and in the order
// they were declared, the functions of earlier inputs that call one that
// it declared again, and those that call those.
func (s *Session) refreshCallers(ctx context.Context, declared map[string]*funcSource) {
	if len(declared) == 0 {
		return
	}
	if s.funcSrc == nil {
		s.funcSrc = map[string]*funcSource{}
	}
	changed := map[string]bool{}
	var again []string
	for _, name := range sortedKeys(declared) {
		if _, ok := s.funcSrc[name]; ok && !strings.Contains(name, ".") {
			changed[name] = true // methods go through variables already
			again = append(again, name)
		}
		s.funcOrder++
		declared[name].order = s.funcOrder
		s.funcSrc[name] = declared[name]
	}
	if len(changed) == 0 || s.refreshing {
		return
	}
	callers := s.callersOf(changed, declared)
	if len(callers) == 0 {
		return
	}
	if err := s.redeclare(ctx, callers); err != nil {
		fmt.Fprintf(s.stderr, "note: kept the earlier declaration of %s, which calls %s as declared before: declared again, it failed: %v\n",
			strings.Join(callers, ", "), strings.Join(again, ", "), err)
	}
}

// callersOf returns the session's functions that call one in changed,
// or call those, and so on, less those that declared holds; it adds
// them to changed.
func (s *Session) callersOf(changed map[string]bool, declared map[string]*funcSource) []string {
	var callers []string
	for grew := true; grew; {
		grew = false
		for name, fs := range s.funcSrc {
			if changed[name] || declared[name] != nil {
				continue
			}
			for _, c := range fs.calls {
				if changed[c] {
					changed[name] = true
					callers = append(callers, name)
					grew = true
					break
				}
			}
		}
	}
	return callers
}

// redeclare declares the session's functions and methods names (keys of
// funcSrc) again from their source, in the order they were declared
// (names is sorted so), as one input.
func (s *Session) redeclare(ctx context.Context, names []string) error {
	slices.SortFunc(names, func(a, b string) int { return s.funcSrc[a].order - s.funcSrc[b].order })
	var b strings.Builder
	for _, name := range names {
		b.WriteString(s.funcSrc[name].text)
		b.WriteString("\n\n")
	}
	s.refreshing = true
	defer func() { s.refreshing = false }()
	return s.evalChunks(ctx, refreshFile, b.String(), 1, false)
}

// refreshFile names the source of the functions that refreshCallers
// declares again.
const refreshFile = "sparknet-callers"

// refreshTypeUsers declares again, after an input (seg, checked into c)
// that declared one of the session's types again, the methods of that
// type and the functions that name it which earlier inputs declared and
// this one did not, from their source and in the order they were
// declared: the interpreter's new type has none of the old one's
// methods (a notebook's cell of a type run again lost its String
// method), and a function of the old type takes none of the new one's
// values. A declaration that no longer fits the type (a field it uses is
// gone) stays out, with a note.
func (s *Session) refreshTypeUsers(ctx context.Context, seg *parsedInput, c *checked, declared map[string]*funcSource) {
	if s.refreshing || len(s.funcSrc) == 0 {
		return
	}
	retyped := map[string]bool{}
	for _, tn := range declaredTypes(seg, c) {
		retyped[tn.Name()] = true
	}
	if len(retyped) == 0 {
		return
	}
	var users []string
	for name, fs := range s.funcSrc {
		if declared[name] != nil {
			continue
		}
		if recv, _, isMethod := strings.Cut(name, "."); isMethod && retyped[recv] || namesAny(fs.text, retyped) {
			users = append(users, name)
		}
	}
	if len(users) == 0 {
		return
	}
	s.redeclareFitting(ctx, users, retyped)
}

// redeclareFitting declares users again (see redeclare), all at once,
// else one at a time: those that no longer fit the names declared
// again (changed) stay as they were, with a note.
func (s *Session) redeclareFitting(ctx context.Context, users []string, changed map[string]bool) {
	if err := s.redeclare(ctx, users); err == nil {
		return
	}
	var left []string
	var first error
	for _, name := range users {
		if err := s.redeclare(ctx, []string{name}); err != nil {
			left = append(left, name)
			if first == nil {
				first = err
			}
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(s.stderr, "note: %s, declared before %s was declared again, do not fit it and were left as they were: %v\n",
			strings.Join(left, ", "), strings.Join(sortedKeys(changed), ", "), first)
	}
}

// refreshVarUsers declares again, after an input (seg, checked into c)
// that declared variables or constants of the session's names again
// (x := 5 after x := 1, r, q := 3, 4 after p, q := 1, 2), the functions
// and methods of earlier inputs that use those names, and those that
// call them, from their source: the interpreter bound them to the
// variable they were compiled with, so that they went on reading the
// old one, even after q = 7 set the new one. A declaration that no
// longer fits (the variable's type changed) stays as it was, with a
// note.
func (s *Session) refreshVarUsers(ctx context.Context, c *checked, declared map[string]*funcSource) {
	if s.refreshing || len(s.funcSrc) == 0 {
		return
	}
	names := map[string]bool{}
	for _, defs := range c.defs {
		for _, o := range defs {
			switch o.(type) {
			case *types.Var, *types.Const:
				if !s.reused[o.Name()] { // assigned, not declared again
					names[o.Name()] = true
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	changed := map[string]bool{}
	var users []string
	for name, fs := range s.funcSrc {
		if declared[name] != nil {
			continue
		}
		for _, v := range fs.vars {
			if names[v] {
				changed[name] = true
				users = append(users, name)
				break
			}
		}
	}
	if len(users) == 0 {
		return
	}
	users = append(users, s.callersOf(changed, declared)...)
	s.redeclareFitting(ctx, users, names)
}

// namesAny reports whether the Go source src holds one of names as an
// identifier.
func namesAny(src string, names map[string]bool) bool {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	for {
		_, t, lit := sc.Scan()
		if t == token.EOF {
			return false
		}
		if t == token.IDENT && names[lit] {
			return true
		}
	}
}

// declaredTypes returns the types that the top-level declarations of seg
// (checked into c) declare, in their order: those of its chunks of
// declarations and of its top-level statements.
func declaredTypes(seg *parsedInput, c *checked) []*types.TypeName {
	var out []*types.TypeName
	eachTypeSpec(seg, false, func(sp *ast.TypeSpec) {
		// (sp.Name is the interpreter's name by now; the object has
		// the input's.)
		if tn, ok := c.info.Defs[sp.Name].(*types.TypeName); ok {
			out = append(out, tn)
		}
	})
	return out
}

// eachTypeSpec calls fn with each type spec of the top-level
// declarations of seg: its chunks of declarations and of statements,
// and, with files, the files of scripts.
func eachTypeSpec(seg *parsedInput, files bool, fn func(*ast.TypeSpec)) {
	specs := func(gd *ast.GenDecl) {
		if gd.Tok == token.TYPE {
			for _, sp := range gd.Specs {
				fn(sp.(*ast.TypeSpec))
			}
		}
	}
	for i, f := range seg.files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if seg.kinds[i] == declChunk || files && seg.kinds[i] == fileChunk {
					specs(d)
				}
			case *ast.FuncDecl:
				if seg.kinds[i] == stmtChunk && d.Body != nil {
					for _, st := range d.Body.List {
						if ds, ok := st.(*ast.DeclStmt); ok {
							specs(ds.Decl.(*ast.GenDecl))
						}
					}
				}
			}
		}
	}
}

// The interpreter keeps the functions it instantiated from a generic
// function by the function's name and type arguments ("Chunk[int]"), and
// a call that names them again takes the one it made first: declared
// again, a generic function kept its first body for the type arguments
// that calls had used. dropInstances forgets the instances of the
// generic functions that a segment is about to declare, so that calls
// instantiate the new declaration; callers of earlier inputs are declared
// again after it (refreshCallers), as for other functions.

// dropInstances removes from the interpreter's cache of instances those
// of the generic functions (not methods) that the declarations of p
// declare.
func (s *Session) dropInstances(p *parsedInput) {
	var names []string
	for i, f := range p.files {
		if p.kinds[i] != declChunk {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Type.TypeParams != nil {
				names = append(names, fd.Name.Name+"[")
			}
		}
	}
	if len(names) == 0 {
		return
	}
	cache := instanceCacheOf(s.in)
	if !cache.IsValid() {
		return
	}
	for _, k := range cache.MapKeys() {
		for _, prefix := range names {
			if strings.HasPrefix(k.String(), prefix) {
				cache.SetMapIndex(k, reflect.Value{})
				break
			}
		}
	}
}

// instanceCacheOf returns the interpreter's map of generic instances by
// name, settable, or the zero Value if it has no such field.
func instanceCacheOf(in *interp.Interpreter) reflect.Value {
	v := reflect.ValueOf(in).Elem().FieldByName("generic")
	if !v.IsValid() || v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
		return reflect.Value{}
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// reuseVars makes a top-level := that declares again a variable of the
// session of the same type (one made of no type of the session's) an
// assignment to it, as Go's := assigns a variable that the same scope
// declared (r, q := 3, 4 after p, q := 1, 2; a notebook's cell x := 5
// run again): the functions of earlier inputs go on using that variable,
// which the interpreter bound them to (refreshVarUsers declares them
// again after the input, for another type):
//
//	r, q := 3, 4  →  var r int; r, q = 3, 4
func (r *typedRewriter) reuseVars(body *ast.BlockStmt) {
	var list []ast.Stmt
	for _, st := range body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			list = append(list, st)
			continue
		}
		var fresh []*ast.Ident
		reused := 0
		for _, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				reused = -1
				break
			}
			if id.Name == "_" {
				continue
			}
			v, ok := r.info.Defs[id].(*types.Var)
			if !ok {
				reused = -1 // assigned, not declared
				break
			}
			if r.reusable(v) {
				reused++
				if r.s.reused == nil {
					r.s.reused = map[string]bool{}
				}
				r.s.reused[v.Name()] = true
			} else {
				fresh = append(fresh, id)
			}
		}
		if reused <= 0 {
			list = append(list, st)
			continue
		}
		pos := as.Pos()
		for _, id := range fresh {
			tx := r.typeExpr(r.info.Defs[id].Type(), pos)
			if tx == nil {
				list = nil
				return
			}
			list = append(list, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{ident(id.Name, id.Pos())}, Type: tx}}}})
		}
		as.Tok = token.ASSIGN
		list = append(list, as)
	}
	body.List = list
}

// reusable reports whether the session has a variable named as v, of
// v's type, made of no type of the session's, that v may be instead.
func (r *typedRewriter) reusable(v *types.Var) bool {
	if refersToSession(v.Type()) || shadowsUniverse(v) {
		return false
	}
	if r.s.before == nil {
		return false
	}
	var e *entry
	for i := range r.s.before.entries {
		if b := &r.s.before.entries[i]; b.live && b.name == v.Name() {
			e = b
		}
	}
	if e == nil {
		return false
	}
	old, ok := e.obj.(*types.Var)
	return ok && old != v && old.Parent() != nil && old.Parent() == old.Pkg().Scope() && types.Identical(old.Type(), v.Type())
}
