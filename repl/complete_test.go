package repl

import (
	"context"
	"slices"
	"testing"
)

func TestComplete(t *testing.T) {
	s, _, _ := newTestSession(t)
	for _, in := range []string{"alpha := ndarray.Ones(2)", "type pt struct{ Name string; X int }", "p := pt{}", "func tidyUp() {}", "func mk(n int) pt { return pt{X: n} }", "ps := []pt{{}}", "calls := 0", "func bump() pt { calls++; return pt{} }", "func (p pt) Norm() int { return p.X }", "func (p *pt) Grow() { p.X++ }"} {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		before string
		word   string
		has    []string // among the candidates
		not    []string
	}{
		{"fmt.Spri", "Spri", []string{"Sprint", "Sprintf", "Sprintln"}, []string{"Println"}},
		{"x := strings.ToU", "ToU", []string{"ToUpper"}, nil},
		{"alp", "alp", []string{"alpha"}, nil},
		{"alpha.Resh", "Resh", []string{"Reshape"}, nil},
		{"alpha.", "", []string{"Add", "Sum", "Shape", "T"}, []string{"data"}},
		{"p.N", "N", []string{"Name"}, nil},
		{"tid", "tid", []string{"tidyUp"}, nil},
		{"ret", "ret", []string{"return"}, nil},
		{"nd", "nd", []string{"ndarray"}, nil},
		{":he", ":he", []string{":help"}, nil},
		{":help ke", "ke", []string{"keys"}, nil},
		{":doc ndarray.Ze", "Ze", []string{"Zeros"}, nil},
		{"rdd.New", "New", []string{"NewContext"}, nil},
		{"slices.So", "So", []string{"Sort", "SortFunc", "Sorted"}, nil},
		{"maps.Ke", "Ke", []string{"Keys"}, nil},
		{"errors.A", "A", []string{"As", "AsType"}, nil},
		{"iter.", "", []string{"Seq", "Seq2", "Pull"}, nil},
		{"_s", "_s", nil, []string{rtName}},
		// After calls and indexes, from the signatures: nothing is called.
		{`alpha.Reshape(1, 2).Resh`, "Resh", []string{"Reshape"}, nil},
		{`x := alpha.Reshape(2, 1).T().`, "", []string{"Add", "Sum", "T"}, nil},
		{`sc.Range(0, 10, 1, 2).Ma`, "Ma", []string{"Map", "MapPartitions"}, nil},
		{`mk(3).N`, "N", []string{"Name"}, nil},
		{`ps[0].`, "", []string{"Name", "X"}, nil},
		{`fmt.Sprint(strings.Fields("a b")[0]).`, "", nil, []string{"Name"}},
		{`(alpha.Reshape(2, 1)).Sh`, "Sh", []string{"Shape"}, nil},
		// Methods declared in the session, from the type checker.
		{"p.", "", []string{"Grow", "Name", "Norm", "X"}, nil},
		{"mk(1).", "", []string{"Name", "Norm"}, []string{"Grow"}}, // not addressable
		{"ps[0].Gr", "Gr", []string{"Grow"}, nil},
	}
	defer func() {
		if v, err := s.value("calls"); err != nil || v.Int() != 0 {
			t.Errorf("completion called a function: calls = %v, %v", v, err)
		}
	}()
	tests = append(tests, struct {
		before, word string
		has, not     []string
	}{"bump().Na", "Na", []string{"Name"}, nil})
	for _, tc := range tests {
		word, cands := s.Complete(tc.before)
		if word != tc.word {
			t.Errorf("Complete(%q): word %q, want %q", tc.before, word, tc.word)
		}
		for _, h := range tc.has {
			if !slices.Contains(cands, h) {
				t.Errorf("Complete(%q) = %v, lacks %q", tc.before, cands, h)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(cands, n) {
				t.Errorf("Complete(%q) offers %q", tc.before, n)
			}
		}
	}
}

func TestCompleterIndents(t *testing.T) {
	c := completer{}
	got, n := c.Do([]rune("  "), 2)
	if n != 0 || len(got) != 1 || string(got[0]) != "\t" {
		t.Errorf("Tab at the start of a line: %q, %d; want a tab", got, n)
	}
}

// TestCompleteInCell completes on a line of an input whose lines above
// declare the names: a notebook cell's variables and functions, a
// function's parameters and locals, a loop's variables. Nothing runs.
func TestCompleteInCell(t *testing.T) {
	s, _, _ := newTestSession(t)
	for _, in := range []string{"type pt struct{ Name string; X int }", "func (p pt) Norm() int { return p.X }", "ran := 0", "shadow := 1"} {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		above, before string
		word          string
		has, not      []string
	}{
		// A cell's variable, from the lines above.
		{"grid := ndarray.Zeros(2, 3)\nran++\n", "grid.Sh", "Sh", []string{"Shape"}, nil},
		{"grid := ndarray.Zeros(2, 3)\n", "gr", "gr", []string{"grid"}, nil},
		// Shadowing a session name with another type.
		{"shadow := pt{}\n", "shadow.", "", []string{"Name", "Norm"}, nil},
		// A function being written: its parameters and locals, within
		// open blocks.
		{"func scale(ps []pt, by int) {\n\tfor i, p := range ps {\n", "\t\tp.N", "N", []string{"Name", "Norm"}, nil},
		{"func scale(ps []pt, by int) {\n\tfor i, p := range ps {\n", "\t\tb", "b", []string{"by", "break"}, nil},
		{"func scale(ps []pt, by int) {\n\ttotal := 0\n\tfor i, p := range ps {\n", "\t\tfmt.Println(to", "to", []string{"total"}, nil},
		// A method being written, after a declaration above it.
		{"type box struct{ W, H float64 }\n\nfunc (b box) Area() float64 {\n", "\treturn b.", "", []string{"W", "H", "Area"}, nil},
		// A literal called at once is a statement, not a declaration.
		{"func() {\n\tq := pt{}\n", "\tq.", "", []string{"X"}, nil},
		// Names declared after the cursor's scope or in a closed block
		// are not offered.
		{"{\n\tinner := 1\n\t_ = inner\n}\n", "inn", "inn", nil, []string{"inner"}},
		// A line that opens a block on its own.
		{"", "for _, p := range []pt{} { p.", "", []string{"Name"}, nil},
	}
	for _, tc := range tests {
		word, cands := s.CompleteIn(tc.above, tc.before)
		if word != tc.word {
			t.Errorf("CompleteIn(%q, %q): word %q, want %q", tc.above, tc.before, word, tc.word)
		}
		for _, h := range tc.has {
			if !slices.Contains(cands, h) {
				t.Errorf("CompleteIn(%q, %q) = %v, lacks %q", tc.above, tc.before, cands, h)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(cands, n) {
				t.Errorf("CompleteIn(%q, %q) offers %q", tc.above, tc.before, n)
			}
		}
	}
	if v, err := s.value("ran"); err != nil || v.Int() != 0 {
		t.Errorf("completion ran the lines above: ran = %v, %v", v, err)
	}
}
