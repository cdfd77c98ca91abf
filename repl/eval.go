package repl

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"log"
	"path/filepath"
	"reflect"
	"runtime/pprof"
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
func (s *Session) evalChunks(ctx context.Context, file, src string, first int, echo bool) error {
	if first <= 0 {
		first = 1
	}
	sp := splitUnits(src)
	if sp.open {
		line, col := lineCol(src, len(src))
		return s.mapErr(fmt.Errorf("%s:%d:%d: unexpected end of input: a bracket, string or comment is not closed", file, first+line-1, col))
	}
	chs := chunks(sp.units, len(src))
	files := make([]*ast.File, len(chs))
	kinds := make([]chunkKind, len(chs))
	own := map[string]string{}
	// Parse everything first, so that a syntax error anywhere runs nothing.
	for i, ch := range chs {
		f, err := s.parseChunk(file, src, ch, first)
		if err != nil {
			return s.mapErr(err)
		}
		files[i], kinds[i] = f, ch.kind
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			own[importName(imp, path)] = path
		}
	}
	if err := s.prepare(file, own); err != nil {
		return err
	}
	var c *checked
	if !s.unchecked {
		var err error
		if c, err = s.check(file, files, kinds, echo); err != nil {
			return s.mapErr(err)
		}
		s.renameTypes(c, files)
	}
	ran := 0
	s.reached = token.NoPos
	if c != nil {
		defer func() { s.scope.commit(c, ran, s.reached) }()
	}
	rw := newRewriter(s.globalInt)
	for i, ch := range chs {
		f := files[i]
		last := i == len(chs)-1
		var err error
		if c != nil {
			err = s.copyOlds(ctx, c, i)
		}
		switch {
		case err != nil:
		case ch.kind == stmtChunk:
			err = s.runStmts(ctx, f, rw, echo && last)
		default:
			err = s.runDecls(ctx, f, rw, ch.kind == fileChunk)
		}
		if err != nil {
			return s.mapErr(s.nameCalls(err, f))
		}
		ran = i + 1
	}
	return nil
}

// parseChunk parses src[ch.start:ch.end] as a file (declarations) or as
// a function body (statements), with positions as in the input.
func (s *Session) parseChunk(file, src string, ch chunk, first int) (*ast.File, error) {
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
		return nil, fmt.Errorf("%s:%d:%d: unexpected end of input (%s)", file, first+line-1, col, msg)
	}
	return f, err
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
	for _, ch := range chunks(sp.units, len(src)) {
		text := src[ch.start:ch.end]
		prefix, suffix := chunkWrap(ch.kind)
		_, err := parser.ParseFile(token.NewFileSet(), "", prefix+text+suffix, 0)
		var el scanner.ErrorList
		if errors.As(err, &el) && len(el) > 0 && el[0].Pos.Offset >= len(prefix)+len(strings.TrimRight(text, " \t\r\n")) {
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

// runDecls runs a chunk of declarations, or a whole file. A file's main
// function runs after its declarations, under another name, so that it
// does not run again with every later input.
func (s *Session) runDecls(ctx context.Context, f *ast.File, rw *rewriter, whole bool) error {
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
	}
	// Declarations get the same rewrites as top-level statements: a
	// goroutine started in a function must not take the process down.
	rw.rewrite(f)
	if err := s.run(ctx, f, rw); err != nil {
		return err
	}
	s.learnDecls(f.Decls)
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
	return errors.As(err, &pe) || errors.As(err, &ee) || errors.Is(err, ErrInterrupted)
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
func (s *Session) packageNamed(name string) string {
	var found []string
	for key := range s.exports {
		if i := strings.LastIndexByte(key, '/'); i > 0 && key[i+1:] == name {
			found = append(found, key[:i])
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found)
	return found[0]
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
			if rw != nil && len(rw.unsure) > 0 {
				rs := rw.unsure[0]
				ie.Hint = fmt.Sprintf("%s: the interpreter cannot range over an integer or a function here; "+
					"for an integer n write for i := 0; i < n; i++ { ... }, for an iterator seq call seq(func(v T) bool { ...; return true })",
					s.in.FileSet().Position(rs.For))
			}
			prog, err = nil, ie
		}
	}()
	return s.in.CompileAST(node)
}

// compileLog serializes compiles, which silence the standard logger.
var compileLog sync.Mutex

// execute runs prog. When ctx is canceled it returns ErrInterrupted
// after giving the interrupted code a moment to stop.
func (s *Session) execute(ctx context.Context, prog *interp.Program) (reflect.Value, error) {
	s.ctx.set(ctx)
	defer s.ctx.set(context.Background())
	defer display.EndLive()
	s.stderr.take()
	v, err := s.in.ExecuteWithContext(ctx, prog)
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		s.sc.CancelJobs()
		s.waitStopped(2 * time.Second)
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
		return reflect.Value{}, &PanicError{Value: p.Value, Trace: s.trace(frames, top)}
	}
	return reflect.Value{}, err
}

// waitStopped waits until no goroutine runs interpreted code of an
// interrupted input (it stops at its next interpreted statement, but not
// inside a compiled call that ignores ctx), or until timeout.
func (s *Session) waitStopped(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for evalRunning() {
		if time.Now().After(deadline) {
			fmt.Fprintln(s.stderr.w, "(the interrupted input is still running a call that does not watch ctx; it stops when that call returns)")
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// evalRunning reports whether some goroutine is inside the interpreter's
// Execute.
func evalRunning() bool {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return false
	}
	return strings.Contains(b.String(), "interp.(*Interpreter).Execute+")
}
