package repl

import (
	"go/scanner"
	"go/token"
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
			res.units = append(res.units, unit{kind: kind, start: start, end: end})
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

// chunks groups consecutive units of the same kind. A file unit makes
// the whole input one file chunk.
func chunks(units []unit, n int) []chunk {
	var out []chunk
	for _, u := range units {
		if u.kind == fileChunk {
			return []chunk{{kind: fileChunk, start: 0, end: n, units: len(units), unitEnd: []int{n}}}
		}
		if len(out) > 0 && out[len(out)-1].kind == u.kind {
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
