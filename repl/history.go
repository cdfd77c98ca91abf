package repl

import (
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// The line editor keeps one line per history entry, so an input of several
// lines goes into the history as one line of Go that means the same (see
// oneLine): Up recalls the whole input, ready to run again or to edit, as
// IPython recalls a cell.

// historyEntry is the history entry for src, an input or a command line.
func historyEntry(src string) string {
	src = strings.TrimRight(src, " \t\r\n")
	if !strings.Contains(src, "\n") {
		return src
	}
	return joinLines(src)
}

// joinLines writes Go source of several lines on one line: a line break
// where Go inserts a semicolon becomes "; ", any other becomes a space;
// a line comment becomes a /* */ comment (or goes, when it holds "*/");
// a raw string that spans lines becomes an interpreted string of the
// same value.
func joinLines(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var sc scanner.Scanner
	sc.Init(file, []byte(src), nil, scanner.ScanComments)
	var b strings.Builder
	last := 0 // src[:last] is written
	gap := func(off int) {
		g := src[last:off]
		switch {
		case strings.ContainsAny(g, "\r\n"):
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
		default:
			b.WriteString(g)
		}
	}
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		if tok == token.SEMICOLON && lit == "\n" {
			// A semicolon that Go inserts at a line break (or at the end).
			b.WriteString(";")
			last = off
			continue
		}
		gap(off)
		text, end := lit, off+len(lit)
		switch {
		case tok == token.COMMENT && strings.HasPrefix(lit, "//"):
			text = ""
			if body := strings.TrimRight(lit[2:], "\r"); !strings.Contains(body, "*/") {
				text = "/*" + body + " */"
			}
		case tok == token.COMMENT:
			text = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(lit)
		case tok == token.STRING && strings.HasPrefix(lit, "`"):
			if i := strings.IndexByte(src[off+1:], '`'); i >= 0 {
				end = off + 1 + i + 1
			}
			if strings.ContainsAny(lit, "\n") {
				text = strconv.Quote(strings.ReplaceAll(lit[1:len(lit)-1], "\r", ""))
			}
		case lit == "":
			text = tok.String()
			end = off + len(text)
		}
		b.WriteString(text)
		last = min(end, len(src))
	}
	return strings.TrimRight(strings.TrimSpace(b.String()), ";")
}
