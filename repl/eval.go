package repl

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"golang.org/x/tools/go/ast/astutil"
	"io"
	"log"
	"path/filepath"
	"reflect"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sparknet-go/sparknet/repl/display"
	"github.com/traefik/yaegi/interp"
)

// evalChunks compiles and runs src, compiled under the file name file
// with its first line numbered first, chunk by chunk. With echo, a final
// expression's value is echoed.
//
// An input that declares a top-level name twice (x := 1 ... x := "a")
// runs as segments, each up to the declaration that replaces an earlier
// one of the same input, as if they were typed one after the other.
// Every segment is checked before any of them runs.
func (s *Session) evalChunks(ctx context.Context, file, src string, first int, echo bool) error {
	if first <= 0 {
		first = 1
	}
	sp := splitUnits(src)
	if sp.open {
		if err := openInputError(file, src, sp, first); err != nil {
			return s.mapErr(err)
		}
		line, col := lineCol(src, len(src))
		return s.mapErr(fmt.Errorf("%s:%d:%d: unexpected end of input: a bracket, string or comment is not closed", file, first+line-1, col))
	}
	sp.units = typesFirst(src, sp.units)
	// Parse everything first, so that a syntax error anywhere runs nothing.
	whole, err := s.parseUnits(file, src, sp.units, first)
	if err != nil {
		return s.mapErr(err)
	}
	segs := []*parsedInput{whole}
	if cuts := s.redeclarations(whole); len(cuts) > 0 && !s.unchecked {
		segs = segs[:0]
		from := 0
		for _, cut := range append(cuts, len(sp.units)) {
			seg, err := s.parseUnits(file, src, sp.units[from:cut], first)
			if err != nil {
				return s.mapErr(err)
			}
			segs = append(segs, seg)
			from = cut
		}
	}
	if err := s.prepare(file, whole.imports); err != nil {
		return err
	}
	if s.unchecked {
		_, err := s.runParsed(ctx, whole, nil, echo)
		return err
	}
	// Check every segment, each against what the ones before it declare.
	saved := s.scope.save()
	cs := make([]*checked, len(segs))
	for i, seg := range segs {
		c, err := s.check(file, seg.files, seg.kinds, echo && i == len(segs)-1)
		if err != nil {
			s.scope.restore(saved)
			return s.mapErr(err)
		}
		s.scope.commit(c, len(seg.files), token.NoPos)
		cs[i] = c
	}
	s.generic = false
	s.before, s.reused = &saved, nil
	defer func() { s.before, s.reused = nil, nil }()
	for i, seg := range segs {
		s.instPending = nil
		var funcs map[string]*funcSource
		if file != promotedFile { // the promoted methods are made anew for each type
			funcs = s.declaredFuncs(src, seg, cs[i])
		}
		s.noteFromCompiled(seg, cs[i])
		err := s.rewriteChecked(cs[i], seg, file, echo && i == len(segs)-1)
		if err == nil {
			err = s.declareShadows()
		} else {
			s.shadows.pending = nil
		}
		if err != nil {
			s.scope.restore(saved)
			for j := range i {
				s.scope.commit(cs[j], len(segs[j].files), token.NoPos)
			}
			return s.mapErr(err)
		}
		s.dropInstances(seg)
		ran, err := s.runParsed(ctx, seg, cs[i], echo && i == len(segs)-1)
		s.pendingLater, s.laterChunks = nil, nil
		if err != nil {
			// The scope holds what ran.
			s.scope.restore(saved)
			for j := range i {
				s.scope.commit(cs[j], len(segs[j].files), token.NoPos)
			}
			s.scope.commit(cs[i], ran, s.reached)
			return err
		}
		s.scope.markForwarded(cs[i])
		s.keepInstances()
		s.refreshCallers(ctx, funcs)
		s.refreshTypeUsers(ctx, seg, cs[i], funcs)
		s.refreshVarUsers(ctx, cs[i], funcs)
		s.promoteMethods(ctx, seg, cs[i])
	}
	return nil
}

// parsedInput is an input, or a segment of one, parsed chunk by chunk.
type parsedInput struct {
	files   []*ast.File
	kinds   []chunkKind
	chunks  []chunk
	prefix  []int             // the length of the text around each chunk
	imports map[string]string // the imports it declares: name → path
}

// parseUnits parses units of src as chunks.
func (s *Session) parseUnits(file, src string, units []unit, first int) (*parsedInput, error) {
	chs := chunks(units, len(src))
	p := &parsedInput{files: make([]*ast.File, len(chs)), kinds: make([]chunkKind, len(chs)), chunks: chs, prefix: make([]int, len(chs)), imports: map[string]string{}}
	for i, ch := range chs {
		f, prefix, err := s.parseChunk(file, src, ch, first)
		if err != nil {
			return nil, err
		}
		p.files[i], p.kinds[i], p.prefix[i] = f, ch.kind, prefix
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			p.imports[importName(imp, path)] = path
		}
	}
	return p, nil
}

// redeclarations returns the indexes of the units of p that declare
// again a top-level name an earlier unit of p declared, where the
// input must be cut into segments; := with some new names on its left
// declares only those, as in Go.
func (s *Session) redeclarations(p *parsedInput) []int {
	fset := s.in.FileSet()
	declared := map[string]bool{}
	var cuts []int
	// unitOf returns the index of the unit that holds the node at pos
	// of chunk i.
	unitOf := func(i int, pos token.Pos) int {
		off := p.chunks[i].start + fset.PositionFor(pos, false).Offset - p.prefix[i]
		n := 0
		for _, f := range p.chunks[:i] {
			n += f.units
		}
		for j := range p.chunks[i].units {
			if off < p.chunks[i].unitEnd[j] {
				return n + j
			}
		}
		return n + p.chunks[i].units - 1
	}
	visit := func(i int, pos token.Pos, names []string, all bool) {
		again, fresh := false, false
		for _, n := range names {
			if n == "_" {
				continue
			}
			if declared[n] {
				again = true
			} else {
				fresh = true
			}
		}
		if again && (!all || !fresh) {
			if u := unitOf(i, pos); u > 0 && (len(cuts) == 0 || cuts[len(cuts)-1] < u) {
				cuts = append(cuts, u)
				clear(declared)
			}
		}
		for _, n := range names {
			declared[n] = true
		}
	}
	var promoted []int
	for i, f := range p.files {
		switch p.kinds[i] {
		case fileChunk:
			return nil
		case declChunk:
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
					visit(i, fd.Pos(), []string{fd.Name.Name}, false)
				}
			}
		case stmtChunk:
			for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
				switch st := st.(type) {
				case *ast.DeclStmt:
					var names []string
					for _, sp := range st.Decl.(*ast.GenDecl).Specs {
						switch sp := sp.(type) {
						case *ast.ValueSpec:
							for _, id := range sp.Names {
								names = append(names, id.Name)
							}
						case *ast.TypeSpec:
							names = append(names, sp.Name.Name)
							if embedsQualified(sp) {
								// promoteMethods declares the methods
								// promoted from it before the rest runs.
								promoted = append(promoted, unitOf(i, st.Pos())+1)
							}
						}
					}
					visit(i, st.Pos(), names, false)
				case *ast.AssignStmt:
					if st.Tok == token.DEFINE && allIdents(st.Lhs) {
						var names []string
						for _, l := range st.Lhs {
							names = append(names, l.(*ast.Ident).Name)
						}
						visit(i, st.Pos(), names, true)
					}
				}
			}
		}
	}
	units := 0
	for _, ch := range p.chunks {
		units += ch.units
	}
	for _, u := range promoted {
		if u < units && !slices.Contains(cuts, u) {
			cuts = append(cuts, u)
		}
	}
	slices.Sort(cuts)
	return cuts
}

// embedsQualified reports whether ts declares a struct type with an
// embedded field of another package's type (*ndarray.Array,
// bytes.Buffer): one whose promoted methods promoteMethods declares.
func embedsQualified(ts *ast.TypeSpec) bool {
	st, ok := ts.Type.(*ast.StructType)
	if !ok || ts.TypeParams != nil || st.Fields == nil {
		return false
	}
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 {
			continue
		}
		t := f.Type
		if star, ok := t.(*ast.StarExpr); ok {
			t = star.X
		}
		if _, ok := t.(*ast.SelectorExpr); ok {
			return true
		}
	}
	return false
}

// runParsed runs the chunks of p, checked as c (nil: unchecked), and
// returns how many ran to the end.
func (s *Session) runParsed(ctx context.Context, p *parsedInput, c *checked, echo bool) (int, error) {
	s.reached = token.NoPos
	rw := newRewriter(s.globalInt)
	rw.typed = c != nil
	for i, f := range p.files {
		last := i == len(p.files)-1
		var err error
		if c != nil {
			err = s.copyOlds(ctx, c, i)
		}
		switch {
		case err != nil:
		case p.kinds[i] == stmtChunk:
			// A checked input's echo is rewritten already (rewriteChecked).
			err = s.runStmts(ctx, f, rw, echo && last && c == nil)
			if err == nil && s.laterChunks[i] {
				s.registerPending(ctx)
			}
		default:
			var after func()
			if s.laterChunks[i] {
				after = func() { s.registerPending(ctx) }
			}
			err = s.runDecls(ctx, f, rw, p.kinds[i] == fileChunk, after)
		}
		if err != nil {
			return i, s.mapErr(s.nameCalls(err, f))
		}
	}
	return len(p.files), nil
}

// parseChunk parses src[ch.start:ch.end] as a file (declarations) or as
// a function body (statements), with positions as in the input.
// It returns the length of the text put before the chunk.
func (s *Session) parseChunk(file, src string, ch chunk, first int) (*ast.File, int, error) {
	text := src[ch.start:ch.end]
	line, col := lineCol(src, ch.start)
	// A relative file name in a line directive is taken relative to the
	// directory of the file being parsed: give the base name.
	directive := fmt.Sprintf("\n//line %s:%d:%d\n", filepath.Base(file), first+line-1, col)
	prefix, suffix := chunkWrap(ch.kind)
	prefix += directive
	if ch.kind == fileChunk {
		prefix = strings.TrimPrefix(directive, "\n")
	}
	f, err := parser.ParseFile(s.in.FileSet(), file, prefix+text+suffix, parser.ParseComments)
	var el scanner.ErrorList
	if errors.As(err, &el) && len(el) > 0 && el[0].Pos.Offset >= len(prefix)+len(strings.TrimRight(text, " \t\r\n")) {
		line, col := lineCol(src, len(strings.TrimRight(src, " \t\r\n")))
		// What the parser found there is the end of the wrapping, not
		// the user's text.
		msg, _, _ := strings.Cut(el[0].Msg, ", found ")
		return nil, 0, fmt.Errorf("%s:%d:%d: unexpected end of input (%s)", file, first+line-1, col, msg)
	}
	if len(el) > 1 {
		// Errors in the wrapping follow from an earlier one: the
		// parser recovering from it ran into the wrapping.
		end := len(prefix) + len(text)
		kept := el[:1]
		for _, e := range el[1:] {
			if e.Pos.Offset < end {
				kept = append(kept, e)
			}
		}
		err = kept
	}
	return f, len(prefix), err
}

// openInputError returns the syntax error that the parser finds before
// the end of src, an input that leaves a bracket, a string or a comment
// open (sp, its units: the last one is the open one), if any: a ) left
// out inside a block (fmt.Println("even", i and a newline) is reported
// where it is, not where the input ends.
func openInputError(file, src string, sp splitResult, first int) error {
	if len(sp.units) == 0 {
		return nil
	}
	u := sp.units[len(sp.units)-1]
	line, col := lineCol(src, u.start)
	prefix, _ := chunkWrap(u.kind)
	prefix += fmt.Sprintf("\n//line %s:%d:%d\n", filepath.Base(file), first+line-1, col)
	if u.kind == fileChunk {
		prefix = strings.TrimPrefix(prefix, "\n")
	}
	text := src[u.start:]
	_, err := parser.ParseFile(token.NewFileSet(), file, prefix+text, 0)
	var el scanner.ErrorList
	if !errors.As(err, &el) || len(el) == 0 || el[0].Pos.Offset-len(prefix) >= len(strings.TrimRight(text, " \t\r\n")) {
		return nil
	}
	return fmt.Errorf("%s:%d:%d: %s", file, el[0].Pos.Line, el[0].Pos.Column, el[0].Msg)
}

// chunkWrap returns the text around a chunk of kind k that makes it a
// file.
func chunkWrap(k chunkKind) (prefix, suffix string) {
	switch k {
	case stmtChunk:
		return "package main; func main() {", "\n}"
	case declChunk:
		return "package main;", ""
	}
	return "", ""
}

// needsMore reports whether src is the start of an input that continues
// on the next line: brackets, a raw string or a comment are open, or the
// parser fails at the end of src (after a trailing operator, say).
func needsMore(src string) bool {
	sp := splitUnits(src)
	if sp.open {
		return true
	}
	chs := chunks(sp.units, len(src))
	for i, ch := range chs {
		text := src[ch.start:ch.end]
		prefix, suffix := chunkWrap(ch.kind)
		f, err := parser.ParseFile(token.NewFileSet(), "", prefix+text+suffix, 0)
		var el scanner.ErrorList
		if errors.As(err, &el) && len(el) > 0 && el[0].Pos.Offset >= len(prefix)+len(strings.TrimRight(text, " \t\r\n")) {
			return true
		}
		if err == nil && i == len(chs)-1 && ch.kind == stmtChunk {
			// A label on a line of its own (gofmt's style): its
			// statement comes on the next line.
			body := f.Decls[0].(*ast.FuncDecl).Body.List
			if n := len(body); n > 0 {
				if ls, ok := body[n-1].(*ast.LabeledStmt); ok {
					if es, ok := ls.Stmt.(*ast.EmptyStmt); ok && es.Implicit {
						return true
					}
				}
			}
		}
	}
	return false
}

// syntaxInvalid reports whether src, complete (not needsMore), does not
// parse: a bracket closed too often, a missing operand (x := )), which
// no more lines would mend.
func syntaxInvalid(src string) bool {
	sp := splitUnits(src)
	for _, ch := range chunks(sp.units, len(src)) {
		prefix, suffix := chunkWrap(ch.kind)
		if _, err := parser.ParseFile(token.NewFileSet(), "", prefix+src[ch.start:ch.end]+suffix, 0); err != nil {
			return true
		}
	}
	return false
}

func importName(imp *ast.ImportSpec, path string) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	if strings.HasPrefix(name, "v") && len(path) > len(name) {
		if _, err := strconv.Atoi(name[1:]); err == nil { // math/rand/v2 is rand
			p := path[:len(path)-len(name)-1]
			name = p[strings.LastIndexByte(p, '/')+1:]
		}
	}
	return name
}

// runStmts runs a chunk of statements; with echo, a final expression
// statement is echoed.
func (s *Session) runStmts(ctx context.Context, f *ast.File, rw *rewriter, echo bool) error {
	body := f.Decls[0].(*ast.FuncDecl).Body
	if d := topLevelDefer(body.List); d != nil {
		return posErrorf(s.in.FileSet(), d.Pos(), "defer at the top level would run again after every later input; put it inside a function")
	}
	rw.rewrite(body)
	if err := s.topReturns(body); err != nil {
		return err
	}
	stmts := body.List
	var final ast.Expr
	if n := len(stmts); echo && n > 0 {
		if es, ok := stmts[n-1].(*ast.ExprStmt); ok {
			final, stmts = es.X, stmts[:n-1]
		}
	}
	if len(stmts) > 0 {
		run, wrapped := wrapCompound(stmts)
		block := &ast.BlockStmt{Lbrace: body.Lbrace, List: instrument(run), Rbrace: body.Rbrace}
		s.atPos, s.atWrapped = s.atPos[:0], wrapped
		for _, st := range stmts {
			s.atPos = append(s.atPos, s.in.FileSet().Position(st.Pos()).String())
		}
		err := s.run(ctx, block, rw)
		if err != nil && ranSome(err) {
			if i := int(s.at.Load()); i < len(stmts) {
				s.reached = stmts[i].Pos()
			}
		}
		s.atPos, s.atWrapped = s.atPos[:0], nil
		if err != nil {
			return err
		}
		s.learn(stmts)
	}
	if final == nil {
		return nil
	}
	s.reached = final.Pos()
	plain := &ast.BlockStmt{Lbrace: body.Lbrace, List: []ast.Stmt{&ast.ExprStmt{X: final}}, Rbrace: body.Rbrace}
	if isPrintCall(final) {
		s.atPos = append(s.atPos[:0], s.in.FileSet().Position(final.Pos()).String())
		s.at.Store(0)
		defer func() { s.atPos = s.atPos[:0] }()
		return s.run(ctx, plain, rw)
	}
	fn := "Echo"
	if _, isCall := final.(*ast.CallExpr); isCall {
		fn = "EchoCall"
	}
	pos := final.Pos()
	wrapped := &ast.BlockStmt{Lbrace: body.Lbrace, Rbrace: body.Rbrace, List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(fn, pos)},
		Lparen: pos, Args: []ast.Expr{final}, Rparen: pos,
	}}}}
	s.atPos = append(s.atPos[:0], s.in.FileSet().Position(pos).String())
	s.at.Store(0)
	defer func() { s.atPos = s.atPos[:0] }()
	prog, err := s.compile(wrapped, rw)
	if err != nil {
		// Not a value (a call of a function without results, say): run
		// it as a statement, which reports any real error.
		return s.run(ctx, plain, rw)
	}
	_, err = s.execute(ctx, prog)
	return err
}

// topReturns replaces the return statements among a chunk's top-level
// statements, outside function literals, by calls of the runtime's Return,
// which ends the goroutine that runs them: deferred calls of the enclosing
// statements run (recover returns nil in them, as after a return), and
// the rest of the input does not. The interpreter fails on a return
// outside a function.
func (s *Session) topReturns(body *ast.BlockStmt) error {
	var err error
	astutil.Apply(body, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) > 0 {
				if err == nil {
					err = posErrorf(s.in.FileSet(), n.Pos(), "too many return values: a return among top-level statements ends the input and takes no values")
				}
				return false
			}
			c.Replace(rtCall("Return", n.Pos()))
		}
		return true
	}, nil)
	return err
}

// runDecls runs a chunk of declarations, or a whole file. A file's main
// function runs after its declarations, under another name, so that it
// does not run again with every later input, and after after, if not
// nil.
func (s *Session) runDecls(ctx context.Context, f *ast.File, rw *rewriter, whole bool, after func()) error {
	s.dropImported(f)
	if len(f.Decls) == 0 {
		return nil
	}
	var mainName string
	if whole {
		if f.Name.Name != "main" {
			return posErrorf(s.in.FileSet(), f.Name.Pos(), "package %s: a script must be package main (or have no package clause)", f.Name.Name)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
				rw.n++
				mainName = fmt.Sprintf("%s_main%d", rtName, rw.n)
				fd.Name.Name = mainName
			}
		}
		if mainName != "" {
			// The file's own uses of main (mainRefs marked them).
			ast.Inspect(f, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && id.Name == mainRef {
					id.Name = mainName
				}
				return true
			})
		}
	}
	// Declarations get the same rewrites as top-level statements: a
	// goroutine started in a function must not take the process down.
	rw.rewrite(f)
	if err := s.run(ctx, f, rw); err != nil {
		return err
	}
	s.learnDecls(f.Decls)
	if after != nil {
		after() // before main runs
	}
	if mainName == "" {
		return nil
	}
	pos := f.Name.Pos()
	call := &ast.BlockStmt{Lbrace: f.Package, List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{Fun: ident(mainName, pos), Lparen: pos, Rparen: pos}}}}
	return s.run(ctx, call, rw)
}

// dropImported removes the import specs of f that the file has imported
// already under the same name, and declarations left empty.
func (s *Session) dropImported(f *ast.File) {
	have := s.imported[s.in.FileSet().Position(f.Package).Filename]
	if have == nil {
		return
	}
	decls := f.Decls[:0]
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			decls = append(decls, d)
			continue
		}
		specs := gd.Specs[:0]
		for _, sp := range gd.Specs {
			imp := sp.(*ast.ImportSpec)
			path, _ := strconv.Unquote(imp.Path.Value)
			if have[importName(imp, path)] != path {
				specs = append(specs, sp)
			}
		}
		gd.Specs = specs
		if len(specs) > 0 {
			decls = append(decls, gd)
		}
	}
	f.Decls = decls
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			for _, sp := range gd.Specs {
				imp := sp.(*ast.ImportSpec)
				path, _ := strconv.Unquote(imp.Path.Value)
				have[importName(imp, path)] = path
			}
		}
	}
}

// ranSome reports whether err ends an input that ran: a panic, an
// exit or an interrupt, not a failure to compile.
func ranSome(err error) bool {
	var pe *PanicError
	var ee *ExitError
	var de *DeadlockError
	return errors.As(err, &pe) || errors.As(err, &ee) || errors.As(err, &de) || errors.Is(err, ErrInterrupted) ||
		errors.Is(err, errReturned)
}

// run compiles and executes node.
func (s *Session) run(ctx context.Context, node ast.Node, rw *rewriter) error {
	prog, err := s.compile(node, rw)
	if err != nil {
		var ie *InterpreterError
		if errors.As(err, &ie) || strings.Contains(err.Error(), "constant definition loop") {
			// The interpreter fails this way on some undefined names,
			// such as a package that was not imported: name it.
			file := s.in.FileSet().Position(node.Pos()).Filename
			if id := undefinedName(node, func(name string) bool { return s.declared(name, "") || s.imported[file][name] != "" }); id != nil {
				if path := s.packageNamed(id.Name); path != "" {
					return posErrorf(s.in.FileSet(), id.Pos(), "undefined: %s; add import %q", id.Name, path)
				}
				return posErrorf(s.in.FileSet(), id.Pos(), "undefined: %s", id.Name)
			}
		}
		return err
	}
	_, err = s.execute(ctx, prog)
	return err
}

// packageNamed returns the import path of a package the interpreter knows
// whose name is name, or "". The interpreter's tables are keyed
// "import/path/name".
func (s *Session) packageNamed(name string) string { return s.packageWith(name, "") }

// packageWith returns the path of a package named name to import for
// name.member: of those that have member, where member is not "" and
// some have it, the one most programs mean (math/rand, text/template),
// else the shortest path.
func (s *Session) packageWith(name, member string) string {
	var found, with []string
	for key := range s.exports {
		if i := strings.LastIndexByte(key, '/'); i > 0 && key[i+1:] == name {
			path := key[:i]
			found = append(found, path)
			// As the checker sees the package: with the shell's
			// source members too (rand.N of math/rand/v2).
			if pkg, err := sharedImporter().Import(path); member != "" && err == nil && pkg.Scope().Lookup(member) != nil {
				with = append(with, path)
			}
		}
	}
	if len(with) > 0 {
		found = with
	}
	if len(found) == 0 {
		return ""
	}
	if p := usualPackage[name]; slices.Contains(found, p) {
		return p
	}
	sort.Slice(found, func(i, j int) bool {
		if len(found[i]) != len(found[j]) {
			return len(found[i]) < len(found[j])
		}
		return found[i] < found[j]
	})
	return found[0]
}

// usualPackage names, of the packages that share a name, the one that a
// program means more often.
var usualPackage = map[string]string{
	"rand":     "math/rand",
	"template": "text/template",
	"scanner":  "text/scanner",
}

// compile compiles node, turning a crash of the interpreter into an
// *InterpreterError.
func (s *Session) compile(node ast.Node, rw *rewriter) (prog *interp.Program, err error) {
	// The interpreter reports some of its failures through the standard
	// logger before it panics; the panic is reported, the log line is not.
	compileLog.Lock()
	prevLog := log.Writer()
	log.SetOutput(io.Discard)
	defer func() {
		log.SetOutput(prevLog)
		compileLog.Unlock()
	}()
	defer func() {
		if r := recover(); r != nil {
			ie := &InterpreterError{Msg: fmt.Sprint(r)}
			if s.generic || usesGenerics(node) {
				ie.Hint = genericsHint
			}
			if rw != nil && len(rw.unsure) > 0 {
				rs := rw.unsure[0]
				ie.Hint = fmt.Sprintf("%s: the interpreter cannot range over an integer or a function here; "+
					"for an integer n write for i := 0; i < n; i++ { ... }, for an iterator seq call seq(func(v T) bool { ...; return true })",
					s.in.FileSet().Position(rs.For))
			}
			prog, err = nil, ie
		}
	}()
	nilPointerVars(node)
	return s.in.CompileAST(node)
}

// genericsHint is the advice of an interpreter's failure on an input
// that declares or instantiates generic code.
const genericsHint = "the interpreter's generics fail on some forms, among them a method of a generic type that calls a generic function " +
	"with the type's parameters (for a declared type argument), slices.Clone and the other S ~[]E functions on a slice of instances " +
	"of a generic function's type parameters, and a generic type's override of a method of a generic type it embeds; " +
	"go doc github.com/sparknet-go/sparknet/repl lists them"

// usesGenerics reports whether node declares a generic function or type,
// or instantiates one explicitly.
func usesGenerics(node ast.Node) bool {
	found := false
	ast.Inspect(node, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			found = found || n.Type.TypeParams != nil
		case *ast.TypeSpec:
			found = found || n.TypeParams != nil
		case *ast.IndexListExpr:
			found = true
		}
		return !found
	})
	return found
}

// nilPointerVars gives a variable declared without a value, of a pointer
// to an instance of a generic type with two or more type arguments, the
// value nil: the interpreter's compiler failed on var c *Cache[string,
// int] ("CFG post-order panic"), and not on var c *Cache[string, int] =
// nil, which Go takes as the same. Top-level defines of such values
// become such declarations too (c := NewCache[string, int]()).
func nilPointerVars(node ast.Node) {
	ast.Inspect(node, func(n ast.Node) bool {
		gd, ok := n.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return true
		}
		var specs []ast.Spec
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if !nilPointerSpec(vs) {
				specs = append(specs, vs)
				continue
			}
			// One name a spec: var a, b *G[K, V] = nil, nil failed too.
			for i, name := range vs.Names {
				typ := vs.Type
				if i > 0 {
					typ = copyExpr(vs.Type)
				}
				specs = append(specs, &ast.ValueSpec{Names: []*ast.Ident{name}, Type: typ,
					Values: []ast.Expr{&ast.Ident{NamePos: name.Pos(), Name: "nil"}}})
			}
		}
		if len(specs) > 1 && !gd.Lparen.IsValid() {
			gd.Lparen, gd.Rparen = gd.Pos(), gd.End()
		}
		gd.Specs = specs
		return true
	})
}

// nilPointerSpec reports whether vs declares variables without values of
// a pointer to an instance of a generic type with two or more type
// arguments.
func nilPointerSpec(vs *ast.ValueSpec) bool {
	if len(vs.Values) > 0 || vs.Type == nil {
		return false
	}
	star, ok := ast.Unparen(vs.Type).(*ast.StarExpr)
	if !ok {
		return false
	}
	_, ok = ast.Unparen(star.X).(*ast.IndexListExpr)
	return ok
}

// compileLog serializes compiles, which silence the standard logger.
var compileLog sync.Mutex

// execute runs prog. When ctx is canceled it returns ErrInterrupted
// after giving the interrupted code a moment to stop.
func (s *Session) execute(ctx context.Context, prog *interp.Program) (reflect.Value, error) {
	ctx, done := s.guardContext(ctx)
	defer done()
	s.ctx.set(ctx)
	s.ctx.doneAsked.Store(false)
	defer s.ctx.set(context.Background())
	unwatch := make(chan struct{})
	go s.watchDeadlock(unwatch)
	defer close(unwatch)
	defer display.EndLive()
	defer s.collectReplaced()
	s.stderr.take()
	s.returned.Store(false)
	v, err := s.executeLabeled(ctx, prog)
	if err == nil {
		if s.returned.Load() {
			// The runtime's Return ended the goroutine that ran the
			// top-level statements, which the interpreter takes for
			// their normal end.
			return reflect.Value{}, errReturned
		}
		return v, nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		s.sc.CancelJobs()
		if ex, ok := context.Cause(ctx).(*ExitError); ok {
			return reflect.Value{}, ex // os.Exit: its goroutine waits for ever (osExit)
		}
		// The goroutines of a deadlock wait, and go on waiting where the
		// stop cannot reach them (see the BUGs): no use waiting for them.
		if _, dead := context.Cause(ctx).(*DeadlockError); !dead {
			s.waitStopped(2 * time.Second)
		}
		s.restoreRunID()
		if err := s.stopped(ctx); err != nil {
			return reflect.Value{}, err
		}
		return reflect.Value{}, ErrInterrupted
	}
	var p interp.Panic
	if errors.As(err, &p) {
		if ex, ok := p.Value.(exitRequest); ok {
			return reflect.Value{}, &ExitError{Code: ex.code}
		}
		top := ""
		frames := s.stderr.take()
		if i := int(s.at.Load()); i < len(s.atPos) {
			top = s.atPos[i]
			if i < len(s.atWrapped) && s.atWrapped[i] {
				frames = dropWrapper(frames)
			}
		}
		trace := s.trace(frames, top)
		// The interpreter's own panics (a failed type assertion) tell
		// where they happened: that goes first in the trace, the value
		// is Go's.
		if at := panicPosition(p.Value); at != "" && (len(trace) == 0 || trace[0] != "at "+at) {
			trace = append([]string{"at " + at}, trace...)
		}
		return reflect.Value{}, newPanicError(s.namedPanic(p.Value), trace, false)
	}
	return reflect.Value{}, err
}

// waitStopped waits until no goroutine runs interpreted code of an
// interrupted input (it stops at its next interpreted statement, but not
// inside a compiled call that ignores ctx), or until timeout.
func (s *Session) waitStopped(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for s.evalRunning() {
		if time.Now().After(deadline) {
			fmt.Fprintln(s.stderr.w, "(the interrupted input is still running a call that does not watch ctx; it stops when that call returns)")
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// evalRunning reports whether some goroutine of the session is inside
// the interpreter's Execute.
func (s *Session) evalRunning() bool {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return false
	}
	return strings.Contains(b.String(), s.execLabel())
}
