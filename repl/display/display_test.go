package display

import (
	"bytes"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/ndarray"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestTables(t *testing.T) {
	wc := ndarray.NewWeightCollection()
	wc.Set("conv1", ndarray.Ones(4, 1, 2, 2), ndarray.Zeros(4))
	wc.Set("ip", ndarray.Full(0.5, 10, 16), ndarray.Ones(10))
	mixed := NewTable("name", "count", "ratio", "shape")
	mixed.Title = "A title"
	mixed.Footer = "a footer"
	mixed.TextColumns = []string{"shape"}
	mixed.Add("first", 1, 0.25, []int{2, 3}).Add("second", 20, math.NaN(), []int{7}).Add("third", 300, 1e-9, []int{})
	tests := []struct {
		name  string
		table *Table
	}{
		{"weights", WeightTable(wc)},
		{"mixed", mixed},
		{"empty", NewTable("a", "b")},
	}
	for _, tc := range tests {
		golden(t, tc.name+".txt", tc.table.String())
		golden(t, tc.name+".md", tc.table.Markdown())
	}
}

func TestCell(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{"text", "text"},
		{3, "3"},
		{2.0 / 3, "0.666667"},
		{float32(0.5), "0.5"},
		{math.Inf(1), "+Inf"},
		{[]int{2, 3, 4}, "2×3×4"},
		{[]int{}, "scalar"},
		{time.Second, "1s"},
	}
	for _, tc := range tests {
		if got := Cell(tc.v); got != tc.want {
			t.Errorf("Cell(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		values []float64
		width  int
		want   string
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8}, 0, "▁▂▃▄▅▆▇█"},
		{[]float64{5, 5, 5}, 0, "▅▅▅"},
		{[]float64{0, math.NaN(), 1}, 0, "▁ █"},
		{[]float64{1, 1, 9, 9}, 2, "▁█"},
		{nil, 0, ""},
	}
	for _, tc := range tests {
		if got := SparklineWidth(tc.values, tc.width); got != tc.want {
			t.Errorf("SparklineWidth(%v, %d) = %q, want %q", tc.values, tc.width, got, tc.want)
		}
	}
}

func TestFigure(t *testing.T) {
	f := NewFigure("loss").Line("train", []float64{3, 2, 1}).LineXY("test", []float64{1, 3}, []float64{2.5, 1.5})
	f.Width, f.Height = 320, 200
	b, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if size := img.Bounds().Size(); size.X != 320 || size.Y != 200 {
		t.Errorf("image is %v, want 320×200", size)
	}
	path := filepath.Join(t.TempDir(), "f.png")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	if want := "loss\ntrain █▅▁  3 → 1 (min 1, max 3)\ntest  █▁  2.5 → 1.5 (min 1.5, max 2.5)\n"; f.String() != want {
		t.Errorf("String = %q, want %q", f.String(), want)
	}
	bad := NewFigure("bad").LineXY("s", []float64{1}, []float64{1, 2})
	if _, err := bad.PNG(); err == nil || !strings.Contains(err.Error(), "1 x values and 2 y values") {
		t.Errorf("mismatched series: error %v", err)
	}
}

// events is a training run of 3 rounds of 2 steps.
func events() []Event {
	var out []Event
	for r := 1; r <= 3; r++ {
		for s := 1; s <= 2; s++ {
			e := NewEvent(StepDone, r, 3, s, 2)
			e.Loss = float64(10 - r)
			e.Elapsed = time.Duration(r) * time.Second
			out = append(out, e)
		}
		e := NewEvent(RoundDone, r, 3, 2, 2)
		e.Loss, e.Accuracy, e.Elapsed = float64(10-r), 0.1*float64(r), time.Duration(r)*time.Second
		out = append(out, e)
	}
	e := NewEvent(Evaluated, 3, 3, 0, 0)
	e.Loss, e.Accuracy, e.Elapsed = 6.5, 0.35, 4*time.Second
	return append(out, e)
}

func TestProgressPipe(t *testing.T) {
	var b bytes.Buffer
	p := NewProgressTo(&b)
	if p.Live {
		t.Fatal("a buffer is not a terminal")
	}
	for _, e := range events() {
		p.Observe(e)
	}
	p.Finish()
	golden(t, "progress_pipe.txt", b.String())
}

func TestProgressLive(t *testing.T) {
	var b bytes.Buffer
	p := NewProgressTo(&b)
	p.Live = true
	p.Width = 10
	e := NewEvent(StepDone, 2, 4, 1, 2)
	e.Loss, e.Elapsed = 0.5, 3*time.Second
	p.Observe(e)
	got := b.String()
	for _, want := range []string{"\r\x1b[K", "[████······] round 2/4  step 1/2  loss 0.5000", "ETA 5.0s"} {
		if !strings.Contains(got, want) {
			t.Errorf("live line %q lacks %q", got, want)
		}
	}
	b.Reset()
	EndLive()
	if b.String() != "\r\x1b[K" {
		t.Errorf("EndLive wrote %q, want the line cleared", b.String())
	}
	b.Reset()
	p.Finish() // nothing drawn any more
	if b.Len() != 0 {
		t.Errorf("Finish after EndLive wrote %q", b.String())
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{950 * time.Millisecond, "950ms"},
		{12300 * time.Millisecond, "12.3s"},
		{4*time.Minute + 5*time.Second, "4m05s"},
		{time.Hour + 2*time.Minute, "1h02m"},
	}
	for _, tc := range tests {
		if got := FormatDuration(tc.d); got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestHistory(t *testing.T) {
	var h History
	for _, e := range events() {
		h.Observe(e)
	}
	f := h.Figure()
	var names []string
	for _, s := range f.Series {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "loss,accuracy,test loss,test accuracy" {
		t.Errorf("series %s", got)
	}
	if got := f.Series[0].Y; len(got) != 3 || got[0] != 9 || got[2] != 7 {
		t.Errorf("loss curve %v, want [9 8 7]", got)
	}
	golden(t, "history.txt", h.Table().String()+h.String())
}

func TestTrackSolver(t *testing.T) {
	s, err := caffe.LoadSolver("testdata/tiny_solver.prototxt")
	if err != nil {
		t.Fatal(err)
	}
	layer, err := s.Net().MemoryDataLayer("data")
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]float32, 16)
	for i := range labels {
		labels[i] = float32(i % 10)
	}
	if err := layer.Reset(ndarray.Rand(1, 16, 64).Data(), labels); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	prev := SetOutput(&out)
	defer SetOutput(prev)
	tr := TrackSolver(s, 25, 10) // rounds of 10, 10 and 5 iterations
	if err := s.Step(t.Context(), 25); err != nil {
		t.Fatal(err)
	}
	h := tr.History
	if len(h.Rounds) != 3 || h.Rounds[2] != 3 {
		t.Fatalf("rounds %v, want [1 2 3]", h.Rounds)
	}
	if !(h.Loss[2] < h.Loss[0]) {
		t.Errorf("the loss did not fall: %v", h.Loss)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "round 3/3  step 5/5  loss ") {
		t.Errorf("progress lines:\n%s", out.String())
	}
	table := NetTable(s.Net()).String()
	for _, want := range []string{`Net "tiny" (TRAIN), 3 layers`, "│ ip    │ InnerProduct    │ ip 16×10 ", "│    650 │", "650 parameter values (650 learnable)"} {
		if !strings.Contains(table, want) {
			t.Errorf("net table lacks %q:\n%s", want, table)
		}
	}
}

func TestShowHooks(t *testing.T) {
	var shown []any
	prev := SetShow(func(v any) { shown = append(shown, v) })
	Show(1, "two")
	SetShow(prev)
	if len(shown) != 2 || shown[0] != 1 || shown[1] != "two" {
		t.Errorf("shown %v", shown)
	}
	var b bytes.Buffer
	prevOut := SetOutput(&b)
	if Output() != &b {
		t.Error("Output is not the writer set")
	}
	SetOutput(prevOut)
}

func TestText(t *testing.T) {
	if got := Text(NewTable("x").Add(1)); !strings.HasPrefix(got, "┌───┐") {
		t.Errorf("Text(table) = %q", got)
	}
	if got := Text(3); got != "3" {
		t.Errorf("Text(3) = %q", got)
	}
	if AsTable(3) != nil || AsFigure(3) != nil {
		t.Error("3 has a table or figure form")
	}
	if AsFigure(&History{}) == nil || AsFigure(NewTraining()) == nil {
		t.Error("histories have figure forms")
	}
}

// TestClockSkipsIdleTime checks that a Training's elapsed time comes from
// the display clock, which starts with the first event.
func TestClockSkipsIdleTime(t *testing.T) {
	var reading time.Duration
	prev := SetClock(func() time.Duration { return reading })
	defer SetClock(prev)
	var b bytes.Buffer
	prevOut := SetOutput(&b)
	defer SetOutput(prevOut)
	tr := NewTraining()
	reading += time.Hour // the prompt waits before the run starts
	e := NewEvent(StepDone, 1, 2, 1, 10)
	tr.Observe(e)
	reading += 3 * time.Second
	e = NewEvent(RoundDone, 1, 2, 10, 10)
	e.Loss = 0.5
	tr.Observe(e)
	if got := b.String(); !strings.Contains(got, "round 1/2  step 10/10  loss 0.5000  3.0s") {
		t.Errorf("round line %q, want 3.0s elapsed", got)
	}
}
