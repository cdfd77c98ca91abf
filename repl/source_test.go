package repl

import (
	"slices"
	"testing"
)

func TestSplitUnits(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		kinds []chunkKind // of the chunks
		open  bool
	}{
		{"expression", "x + 1", []chunkKind{stmtChunk}, false},
		{"statements", "x := 1; y := 2\nz := x + y", []chunkKind{stmtChunk}, false},
		{"var then statement", `var m map[string]int; m["a"] = 1`, []chunkKind{stmtChunk}, false},
		{"function", "func f() int { return 1 }", []chunkKind{declChunk}, false},
		{"method", "func (p P) Get() int { return p.x }", []chunkKind{declChunk}, false},
		{"function literal call", "func() { fmt.Println(1) }()", []chunkKind{stmtChunk}, false},
		{"literal with results", "func(a int) (int, error) { return a, nil }(1)", []chunkKind{stmtChunk}, false},
		{"declaration then call", "func f() int { return 1 }\nf()", []chunkKind{declChunk, stmtChunk}, false},
		{"import then use", "import \"math/rand\"\nrand.Intn(3)", []chunkKind{declChunk, stmtChunk}, false},
		{"two functions", "func a() { b() }\nfunc b() {}", []chunkKind{declChunk}, false},
		{"package file", "package main\nfunc main() {}", []chunkKind{fileChunk}, false},
		{"open brace", "func f() {", []chunkKind{declChunk}, true},
		{"open call", "fmt.Println(1,", []chunkKind{stmtChunk}, true},
		{"raw string", "s := `a", []chunkKind{stmtChunk}, true},
		{"comment", "x := 1 /* note", []chunkKind{stmtChunk}, true},
		{"only a comment", "// nothing", nil, false},
		{"for without a condition", "n := 0\nfor i := 0; ; i++ { break }\nfor ;; { break }", []chunkKind{stmtChunk}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := splitUnits(tc.src)
			var kinds []chunkKind
			for _, c := range chunks(sp.units, len(tc.src)) {
				kinds = append(kinds, c.kind)
			}
			if !slices.Equal(kinds, tc.kinds) {
				t.Errorf("chunk kinds %v, want %v", kinds, tc.kinds)
			}
			if sp.open != tc.open {
				t.Errorf("open = %v, want %v", sp.open, tc.open)
			}
		})
	}
}

func TestNeedsMore(t *testing.T) {
	tests := []struct {
		src  string
		more bool
	}{
		{"x := 1\n", false},
		{"x := 1 +\n", true},
		{"func f() {\n", true},
		{"func f() {\n}\n", false},
		{"fmt.Println(\"a\",\n", true},
		{"if x {\n} else {\n", true},
		{"x := )\n", false}, // a syntax error, not an unfinished input
		{"s := `one\n", true},
		{"m := map[string]int{\n\"a\": 1,\n}\n", false},
		{"var x =\n", true},
		{"outer:\n", true}, // a label, its statement on the next line
		{"outer:\nfor {\nbreak outer\n}\n", false},
		{"x := 1\ndone:\n", true},
	}
	for _, tc := range tests {
		if got := needsMore(tc.src); got != tc.more {
			t.Errorf("needsMore(%q) = %v, want %v", tc.src, got, tc.more)
		}
	}
}

func TestStripPrompt(t *testing.T) {
	tests := []struct{ in, want string }{
		{">>> x := 1", "x := 1"},
		{"... }", "}"},
		{"...", ""},
		{"x := 1", "x := 1"},
		{"  >>> x", "  >>> x"},
	}
	for _, tc := range tests {
		if got := StripPrompt(tc.in); got != tc.want {
			t.Errorf("StripPrompt(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitCells(t *testing.T) {
	src := `//go:build ignore

// # Title
//
// Intro.

// %% First cell
// Some prose.
x := 1

// %%
// Only prose.

// %% Third
y := 2
// a comment that is code
`
	cells := SplitCells(src)
	want := []Cell{
		{Prose: "# Title\n\nIntro."},
		{Title: "First cell", Prose: "Some prose.", Code: "x := 1\n", Line: 9},
		{Prose: "Only prose.", Line: 14},
		{Title: "Third", Code: "y := 2\n// a comment that is code\n", Line: 15},
	}
	if len(cells) != len(want) {
		t.Fatalf("%d cells, want %d: %+v", len(cells), len(want), cells)
	}
	for i, c := range cells {
		w := want[i]
		if c.Title != w.Title || c.Prose != w.Prose || c.Code != w.Code || (w.Code != "" && c.Line != w.Line) {
			t.Errorf("cell %d = %+v, want %+v", i, c, w)
		}
	}
}
