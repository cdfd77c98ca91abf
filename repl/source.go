package repl

import (
	"go/scanner"
	"go/token"
	"slices"
	"strings"
)

// An input is split into top-level units, each a statement or a
// declaration, and consecutive units of one kind into chunks. The
// interpreter compiles a chunk of declarations as a file and a chunk of
// statements as the body of a function whose variables outlive it, so an
// input may mix the two (`var m map[string]int; m["a"] = 1` as well as
// `func f() {}` followed by `f()`).

type chunkKind int

const (
	stmtChunk chunkKind = iota // statements, compiled as a block
	declChunk                  // func, method and import declarations, compiled as a file
	fileChunk                  // a whole file with a package clause
)

// unit is one top-level statement or declaration: src[start:end] holds
// it with the space and comments before it.
type unit struct {
	kind       chunkKind
	start, end int
	first      token.Token // its first token
}

// chunk is a run of units of one kind: src[start:end].
type chunk struct {
	kind       chunkKind
	start, end int
	units      int   // how many units it has
	unitEnd    []int // where each ends
}

// scanned is a token and its text.
type scanned struct {
	tok token.Token
	lit string
}

// splitResult is what splitUnits learns about an input.
type splitResult struct {
	units []unit
	// open reports brackets, a raw string or a comment left open at the
	// end: the input continues on the next line.
	open bool
}

// splitUnits scans src into top-level units.
func splitUnits(src string) splitResult {
	var res splitResult
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) {
		if msg == "raw string literal not terminated" || msg == "comment not terminated" {
			res.open = true
		}
	}, 0)

	var (
		depth int
		toks  []scanned // tokens of the current unit
		start int       // where the current unit starts
	)
	flush := func(end int) {
		if len(toks) > 0 {
			kind := stmtChunk
			switch toks[0].tok {
			case token.PACKAGE:
				kind = fileChunk
			case token.IMPORT:
				kind = declChunk
			case token.FUNC:
				if isFuncDecl(toks) {
					kind = declChunk
				}
			}
			res.units = append(res.units, unit{kind: kind, start: start, end: end, first: toks[0].tok})
		} else if n := len(res.units); n > 0 && res.units[n-1].end == start {
			// An empty statement (the second ; of for ;; {}) stays
			// with the unit before it, which the rest of the
			// statement continues.
			res.units[n-1].end = end
		}
		toks = toks[:0]
		start = end
	}
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		off := file.Offset(pos)
		switch t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		if t == token.SEMICOLON && depth <= 0 {
			end := off + len(lit)
			if lit == "\n" {
				end = off + 1
			}
			flush(min(end, len(src)))
			continue
		}
		toks = append(toks, scanned{t, lit})
	}
	if depth > 0 {
		res.open = true
	}
	flush(len(src))
	// Trailing space and comments belong to the last unit.
	if n := len(res.units); n > 0 {
		res.units[n-1].end = len(src)
	}
	return res
}

// isFuncDecl tells a function or method declaration from a statement
// that starts with a function literal, given the tokens of a unit that
// starts with "func": a declaration is "func Name" or
// "func (receiver) Name(".
func isFuncDecl(toks []scanned) bool {
	if len(toks) < 2 {
		return false
	}
	if toks[1].tok == token.IDENT {
		return true
	}
	if toks[1].tok != token.LPAREN {
		return false
	}
	depth := 0
	for i := 1; i < len(toks); i++ {
		switch toks[i].tok {
		case token.LPAREN:
			depth++
		case token.RPAREN:
			depth--
			if depth == 0 {
				return i+2 < len(toks) && toks[i+1].tok == token.IDENT && toks[i+2].tok == token.LPAREN
			}
		}
	}
	return false
}

// typesFirst moves the type and constant declarations of units (type T
// ..., const ( ... )) ahead of the other units but imports, each after
// those it refers to, where one comes after a function declaration or
// refers to one further down: a function or a type may use a type
// declared further down, as in a Go file (func newNode() *node {...}
// then type node struct{...}), but the chunks run in order, and the
// first failed to compile ("undefined: node"). Types and constants have
// no effects to keep in order. An input with a package clause, or that
// declares a name twice, is left as it is.
func typesFirst(src string, units []unit) []unit {
	names := make([][]string, len(units)) // what a type or const unit declares
	refs := make([]map[string]bool, len(units))
	seenFunc, needed := false, false
	isDecl := func(u unit) bool { return u.kind == stmtChunk && (u.first == token.TYPE || u.first == token.CONST) }
	isImport := func(u unit) bool { return u.kind == declChunk && u.first == token.IMPORT }
	declared := map[string]int{}
	generic := map[string]bool{} // generic types with methods in units
	for i, u := range units {
		if u.kind == fileChunk {
			return units
		}
		if u.kind == declChunk && u.first == token.FUNC {
			seenFunc = true
			if base := genericRecvName(src[u.start:u.end]); base != "" {
				generic[base] = true
			}
		}
		if !isDecl(u) {
			continue
		}
		names[i], refs[i] = unitNames(src[u.start:u.end])
		for _, n := range names[i] {
			if _, twice := declared[n]; twice {
				return units
			}
			declared[n] = i
		}
		needed = needed || seenFunc
	}
	for i := range units {
		for r := range refs[i] {
			if j, ok := declared[r]; ok && j > i {
				needed = true
			}
		}
	}
	if !needed {
		return units
	}
	// A declaration that uses an instance of a generic type with methods
	// (type IntStack = Stack[int]) stays where it is, after those
	// methods: the interpreter makes an instance once, with the methods
	// declared by then.
	instantiates := func(i int) bool {
		for g := range generic {
			if refs[i][g] && !slices.Contains(names[i], g) {
				return true
			}
		}
		return false
	}
	// The declarations in an order where each comes after the ones it
	// refers to (the first left where they refer to each other).
	dependsOn := func(i, j int) bool {
		for _, n := range names[j] {
			if refs[i][n] {
				return true
			}
		}
		return false
	}
	var decls, sorted []int
	for i, u := range units {
		if isDecl(u) && !instantiates(i) {
			decls = append(decls, i)
		}
	}
	placed := map[int]bool{}
	for len(sorted) < len(decls) {
		next := -1
		for _, i := range decls {
			if placed[i] {
				continue
			}
			ready := true
			for _, j := range decls {
				if j != i && !placed[j] && dependsOn(i, j) {
					ready = false
				}
			}
			if ready || next < 0 {
				next = i
				if ready {
					break
				}
			}
		}
		placed[next] = true
		sorted = append(sorted, next)
	}
	var out []unit
	for _, u := range units {
		if isImport(u) {
			out = append(out, u)
		}
	}
	for _, i := range sorted {
		out = append(out, units[i])
	}
	for i, u := range units {
		if !placed[i] && !isImport(u) {
			out = append(out, u)
		}
	}
	return out
}

// genericRecvName returns the name of the receiver's type of a method
// declaration whose receiver has type parameters (func (s *Stack[T])
// Push(v T)), or "".
func genericRecvName(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, 0)
	if _, t, _ := s.Scan(); t != token.FUNC {
		return ""
	}
	if _, t, _ := s.Scan(); t != token.LPAREN {
		return ""
	}
	last := ""
	for {
		_, t, lit := s.Scan()
		switch t {
		case token.IDENT:
			last = lit
		case token.LBRACK:
			return last
		case token.MUL:
		default:
			return ""
		}
	}
}

// unitNames returns the names that a unit of type or constant
// declarations declares (type T ..., const ( A = iota; B )) and the
// other identifiers it holds.
func unitNames(src string) (names []string, refs map[string]bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, 0)
	refs = map[string]bool{}
	var prev token.Token
	depth, group := 0, false
	for {
		_, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		switch t {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			if depth == 0 && t == token.LPAREN && (prev == token.TYPE || prev == token.CONST) {
				group = true
			}
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		case token.IDENT:
			// A spec's name: right after type or const, or first on
			// a line of the group.
			if (depth == 0 && (prev == token.TYPE || prev == token.CONST)) ||
				(group && depth == 1 && (prev == token.LPAREN || prev == token.SEMICOLON)) {
				names = append(names, lit)
			} else {
				refs[lit] = true
			}
		}
		prev = t
	}
	return names, refs
}

// chunks groups consecutive units of the same kind that lie one after
// the other in the source. A file unit makes
// the whole input one file chunk.
func chunks(units []unit, n int) []chunk {
	var out []chunk
	for _, u := range units {
		if u.kind == fileChunk {
			return []chunk{{kind: fileChunk, start: 0, end: n, units: len(units), unitEnd: []int{n}}}
		}
		if len(out) > 0 && out[len(out)-1].kind == u.kind && out[len(out)-1].end == u.start {
			c := &out[len(out)-1]
			c.end = u.end
			c.units++
			c.unitEnd = append(c.unitEnd, u.end)
			continue
		}
		out = append(out, chunk{kind: u.kind, start: u.start, end: u.end, units: 1, unitEnd: []int{u.end}})
	}
	return out
}

// blank reports whether src holds only space and comments.
func blank(src string) bool {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, 0)
	for {
		_, t, lit := s.Scan()
		switch {
		case t == token.EOF:
			return true
		case t == token.SEMICOLON && lit == "\n":
		default:
			return false
		}
	}
}

// lineCol returns the 1-based line and column of byte offset off in src.
func lineCol(src string, off int) (line, col int) {
	before := src[:off]
	line = strings.Count(before, "\n") + 1
	col = off - strings.LastIndexByte(before, '\n')
	return line, col
}
