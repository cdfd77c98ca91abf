package display

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a table of text cells. String draws it with box lines for a
// terminal and Markdown as a Markdown table for reports; columns whose
// cells are all numbers are aligned right.
type Table struct {
	// Title, when set, is printed above the table.
	Title string
	// Header names the columns.
	Header []string
	// Rows holds the cells, one slice per row.
	Rows [][]string
	// Footer, when set, is printed below the table.
	Footer string
	// TextColumns names columns that hold text even where their cells
	// look like numbers (shapes, say): they stay aligned left.
	TextColumns []string
}

// NewTable returns an empty table with the given column names.
func NewTable(header ...string) *Table {
	return &Table{Header: header}
}

// Add appends a row, formatting each value with Cell.
func (t *Table) Add(values ...any) *Table {
	row := make([]string, len(values))
	for i, v := range values {
		row[i] = Cell(v)
	}
	t.Rows = append(t.Rows, row)
	return t
}

// Cell formats a value for a table cell: floats with up to 6 significant
// digits, int slices as shapes ("2×3"), everything else with fmt's %v.
func Cell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return formatFloat(x)
	case float32:
		return formatFloat(float64(x))
	case []int:
		return Shape(x)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// Shape formats a shape as "2×3×4", and an empty shape as "scalar".
func Shape(shape []int) string {
	if len(shape) == 0 {
		return "scalar"
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "×")
}

func formatFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// String draws the table with box-drawing lines.
func (t *Table) String() string {
	return t.render(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleLight)}), false)
}

// Markdown draws the table as a Markdown table.
func (t *Table) Markdown() string {
	return t.render(renderer.NewMarkdown(), true)
}

func (t *Table) render(r tw.Renderer, markdown bool) string {
	var b strings.Builder
	if t.Title != "" {
		if markdown {
			b.WriteString("**" + t.Title + "**\n\n")
		} else {
			b.WriteString(t.Title + "\n")
		}
	}
	align := make([]tw.Align, len(t.Header))
	for c := range align {
		align[c] = tw.AlignLeft
		if t.numeric(c) {
			align[c] = tw.AlignRight
		}
	}
	tbl := tablewriter.NewTable(&b,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	tbl.Header(toAny(t.Header)...)
	for _, row := range t.Rows {
		cells := make([]string, len(t.Header))
		copy(cells, row)
		if err := tbl.Append(cells); err != nil {
			return fmt.Sprintf("display: table: %v", err)
		}
	}
	if err := tbl.Render(); err != nil {
		return fmt.Sprintf("display: table: %v", err)
	}
	if t.Footer != "" {
		if markdown {
			b.WriteString("\n")
		}
		b.WriteString(t.Footer + "\n")
	}
	return b.String()
}

// numeric reports whether every non-empty cell of column c is a number.
func (t *Table) numeric(c int) bool {
	if c < len(t.Header) && slices.Contains(t.TextColumns, t.Header[c]) {
		return false
	}
	seen := false
	for _, row := range t.Rows {
		if c >= len(row) || row[c] == "" {
			continue
		}
		if _, err := strconv.ParseFloat(strings.TrimSuffix(row[c], "%"), 64); err != nil {
			return false
		}
		seen = true
	}
	return seen
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
