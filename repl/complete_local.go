package repl

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/repl/typecheck"
)

// Completion within an input that is still being typed (a notebook
// cell's lines above the cursor, or the lines of a multi-line input at
// the prompt) sees the names that those lines declare: a cell's
// variables, a function's parameters and locals, a loop's variables. The
// text before the cursor is checked as Go, nothing run: its top-level
// declarations (functions, methods, types, imports) at the file's level,
// its statements in a function, and the brackets it leaves open closed,
// so that the checker gives the type of the expression before the dot, or
// the scope at the cursor.

// cellLayout is text laid out as a file that the checker takes.
type cellLayout struct {
	src string
	end int // the offset in src at which text ends
}

// layoutCell lays out text, the input before the cursor, after header (a
// package clause and imports): the top-level declarations that text
// makes, then its statements in the body of a function, the part that
// holds the cursor last, followed by what closes the brackets it leaves
// open.
func layoutCell(header, text string) cellLayout {
	toks := scanOffsets(text)
	if n := len(toks); n > 0 && toks[n-1].t == token.SEMICOLON && toks[n-1].lit == "\n" && toks[n-1].off == len(text) {
		// The semicolon the scanner adds at the end of the text does
		// not end the statement: the cursor is in it.
		toks = toks[:n-1]
	}
	// match returns the index of the token that closes the bracket at i,
	// or len(toks).
	match := func(i int) int {
		depth := 0
		for j := i; j < len(toks); j++ {
			switch toks[j].t {
			case token.LPAREN, token.LBRACK, token.LBRACE:
				depth++
			case token.RPAREN, token.RBRACK, token.RBRACE:
				depth--
				if depth == 0 {
					return j
				}
			}
		}
		return len(toks)
	}
	// funcDecl reports whether the func at i declares a function or a
	// method, not a literal.
	funcDecl := func(i int) bool {
		if i+1 < len(toks) && toks[i+1].t == token.IDENT {
			return true
		}
		if i+1 >= len(toks) || toks[i+1].t != token.LPAREN {
			return false
		}
		j := match(i + 1)
		return j+2 < len(toks) && toks[j+1].t == token.IDENT && (toks[j+2].t == token.LPAREN || toks[j+2].t == token.LBRACK)
	}
	type segment struct {
		lo, hi     int
		decl, imp  bool
		terminated bool
	}
	var segs []segment
	var open []token.Token
	inSeg := false
	for i, tk := range toks {
		if len(open) == 0 && !inSeg && tk.t != token.SEMICOLON {
			s := segment{lo: tk.off, hi: len(text)}
			switch tk.t {
			case token.IMPORT:
				s.decl, s.imp = true, true
			case token.TYPE:
				s.decl = true
			case token.FUNC:
				s.decl = funcDecl(i)
			}
			segs = append(segs, s)
			inSeg = true
		}
		switch tk.t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			open = append(open, tk.t)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case token.SEMICOLON:
			if len(open) == 0 && inSeg {
				segs[len(segs)-1].hi, segs[len(segs)-1].terminated = tk.off, true
				inSeg = false
			}
		}
	}
	var closers strings.Builder
	for i := len(open) - 1; i >= 0; i-- {
		switch open[i] {
		case token.LPAREN:
			closers.WriteString(")")
		case token.LBRACK:
			closers.WriteString("]")
		default:
			closers.WriteString("\n}")
		}
	}
	// The segment that holds the cursor: the last, unless text ends
	// after a complete statement (then the cursor starts a new one).
	var cur *segment
	if n := len(segs); n > 0 && !segs[n-1].terminated {
		cur = &segs[n-1]
		segs = segs[:n-1]
	}
	var b strings.Builder
	b.WriteString(header)
	for _, s := range segs {
		if s.imp {
			b.WriteString(text[s.lo:s.hi] + "\n")
		}
	}
	writeDecls := func() {
		for _, s := range segs {
			if s.decl && !s.imp {
				b.WriteString(text[s.lo:s.hi] + "\n")
			}
		}
	}
	writeStmts := func() {
		for _, s := range segs {
			if !s.decl {
				b.WriteString(text[s.lo:s.hi] + "\n")
			}
		}
	}
	if cur != nil && cur.decl {
		b.WriteString("func _() {\n")
		writeStmts()
		b.WriteString("}\n")
		writeDecls()
		b.WriteString(text[cur.lo:cur.hi])
		end := b.Len()
		b.WriteString(closers.String() + "\n")
		return cellLayout{b.String(), end}
	}
	writeDecls()
	b.WriteString("func _() {\n")
	writeStmts()
	if cur != nil {
		b.WriteString(text[cur.lo:cur.hi])
	}
	end := b.Len()
	b.WriteString(closers.String() + "\n}\n")
	return cellLayout{b.String(), end}
}

// localCheck is text before a cursor checked as laid out by layoutCell.
type localCheck struct {
	fset *token.FileSet
	pkg  *types.Package
	info *types.Info
	file *ast.File
	tf   *token.File
	end  int // the offset of the cursor in the laid-out source
}

// pos returns the position of offset off of the laid-out source.
func (lc *localCheck) pos(off int) token.Pos { return lc.tf.Pos(off) }

// checkLocal checks text, the input before a cursor, in the session's
// scope. The caller holds s.mu.
func (s *Session) checkLocal(text string) (*localCheck, bool) {
	if s.scope == nil {
		return nil, false
	}
	fset := s.in.FileSet()
	lay := layoutCell(s.checkHeader(), text)
	f, _ := parser.ParseFile(fset, "completion", lay.src, parser.SkipObjectResolution|parser.AllErrors)
	if f == nil {
		return nil, false
	}
	imp := sharedImporter()
	pkg := types.NewPackage("main", "main")
	prelude := s.scope.prelude(imp, pkg, s.preludePos, nil, nil, nil)
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Scopes: map[ast.Node]*types.Scope{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp, GoVersion: typecheck.GoVersion, Sizes: imp.Sizes(), Error: func(error) {}}
	types.NewChecker(&conf, fset, pkg, info).Files([]*ast.File{prelude.file, f})
	return &localCheck{fset: fset, pkg: pkg, info: info, file: f, tf: fset.File(f.Pos()), end: lay.end}, true
}

// checkHeader returns the package clause and the imports of the session
// that its checked inputs start with.
func (s *Session) checkHeader() string {
	imported := map[string]string{}
	for name, path := range s.imported[inputFile] {
		imported[name] = path
	}
	for name, path := range s.scope.imports[inputFile] {
		imported[name] = path
	}
	var src strings.Builder
	src.WriteString("package main\n")
	for _, name := range sortedKeys(imported) {
		if name == rtName || s.scope.lookup(name) != nil {
			continue
		}
		src.WriteString("import " + name + " " + strconv.Quote(imported[name]) + "\n")
	}
	return src.String()
}

// localMembers lists the fields and methods of the type of the
// expression that text ends with (head, the text before a dot), as the
// checker sees it with the declarations of text above it; false where
// it cannot tell. The caller holds s.mu.
func (s *Session) localMembers(text, head string) ([]string, bool) {
	tv, pkg, target, ok := s.localExpr(text, head)
	if !ok {
		return nil, false
	}
	_, isCall := ast.Unparen(target).(*ast.CallExpr)
	return typeMemberNames(tv.Type, pkg, !isCall), true
}

// localExpr is typedExpr for the expression expr that text, the input
// before a cursor, ends with: its type as the checker sees it with the
// declarations of text above it, the package it is checked in and its
// syntax; false where the checker cannot tell a value's type. The caller
// holds s.mu.
func (s *Session) localExpr(text, expr string) (types.TypeAndValue, *types.Package, ast.Expr, bool) {
	lc, ok := s.checkLocal(text)
	if !ok {
		return types.TypeAndValue{}, nil, nil, false
	}
	lo := lc.end - len(expr)
	var target ast.Expr
	ast.Inspect(lc.file, func(n ast.Node) bool {
		if target != nil || n == nil {
			return false
		}
		if lc.tf.Offset(n.Pos()) > lc.end || lc.tf.Offset(n.End()) < lo {
			return false
		}
		if e, ok := n.(ast.Expr); ok && lc.tf.Offset(e.Pos()) == lo && lc.tf.Offset(e.End()) == lc.end {
			target = e
		}
		return true
	})
	if target == nil {
		return types.TypeAndValue{}, nil, nil, false
	}
	tv, ok := lc.info.Types[target]
	if !ok || tv.Type == nil || tv.IsType() || tv.IsBuiltin() {
		return types.TypeAndValue{}, nil, nil, false
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Kind() == types.Invalid {
		return types.TypeAndValue{}, nil, nil, false
	}
	return tv, lc.pkg, target, true
}

// localNames lists the names that text, the input before a cursor,
// declares in the scopes open at its end: a cell's variables, a
// function's parameters and locals. The caller holds s.mu.
func (s *Session) localNames(text string) []string {
	lc, ok := s.checkLocal(text)
	if !ok {
		return nil
	}
	pos := lc.pos(lc.end)
	var names []string
	for sc := lc.pkg.Scope().Innermost(pos); sc != nil && sc != types.Universe; sc = sc.Parent() {
		for _, name := range sc.Names() {
			obj := sc.Lookup(name)
			if name == "_" || strings.HasPrefix(name, rtName) || obj.Pos() >= pos && sc != lc.pkg.Scope() {
				continue
			}
			if obj.Pos().IsValid() && lc.fset.File(obj.Pos()) == lc.tf || sc == lc.pkg.Scope() {
				names = append(names, name)
			}
		}
	}
	return names
}
