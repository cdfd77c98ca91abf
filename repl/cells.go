package repl

import (
	"regexp"
	"strings"
)

// A Cell is one cell of a notebook-style Go file: cells are separated by
// lines "// %%" (with an optional title after the marker), and a cell's
// leading comment lines are prose, Markdown in a report. Directives such
// as "//go:build ignore" (which keeps the go command from compiling a
// file of top-level statements) are neither.
type Cell struct {
	// Title is the text after the "// %%" marker.
	Title string
	// Prose is the cell's leading comment lines without their "//".
	Prose string
	// Code is the rest of the cell.
	Code string
	// Line is the line of the file where Code starts.
	Line int
}

var cellMarker = regexp.MustCompile(`^\s*//\s*%%(.*)$`)

// SplitCells splits a notebook-style file into cells. A file without
// markers is one cell. Cells without prose or code are dropped.
func SplitCells(src string) []Cell {
	lines := strings.SplitAfter(src, "\n")
	var cells []Cell
	start, title := 0, ""
	flush := func(end int) {
		if c, ok := makeCell(lines[start:end], start+1, title); ok {
			cells = append(cells, c)
		}
	}
	for i, line := range lines {
		if m := cellMarker.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			flush(i)
			start, title = i+1, strings.TrimSpace(m[1])
		}
	}
	flush(len(lines))
	return cells
}

// makeCell builds a cell from its lines, the first of which is line
// first of the file.
func makeCell(lines []string, first int, title string) (Cell, bool) {
	c := Cell{Title: title}
	var prose []string
	i := 0
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			prose = append(prose, "")
			continue
		}
		rest, ok := strings.CutPrefix(t, "//")
		if !ok || strings.HasPrefix(rest, "line ") {
			break
		}
		if strings.HasPrefix(rest, "go:") {
			continue // a directive, such as the //go:build ignore that keeps the go command away
		}
		prose = append(prose, strings.TrimPrefix(rest, " "))
	}
	c.Prose = strings.TrimSpace(strings.Join(prose, "\n"))
	code := strings.Join(lines[i:], "")
	c.Code = strings.TrimRight(code, " \t\r\n")
	if c.Code != "" {
		c.Code += "\n"
	}
	c.Line = first + i
	return c, c.Prose != "" || c.Code != "" || c.Title != ""
}

// hasPackageClause reports whether src is a whole file: its first token
// is "package".
func hasPackageClause(src string) bool {
	units := splitUnits(src).units
	return len(units) > 0 && units[0].kind == fileChunk
}
