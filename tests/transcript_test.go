//go:build linux

package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// Keys that are not printable.
const (
	enter = "\r"
	tab   = "\t"
	ctrlC = "\x03"
	ctrlD = "\x04"
	ctrlU = "\x15"
	up    = "\x1b[A"
)

// step types keys, then waits for the shell to print want ("" waits
// for nothing).
type step struct {
	keys string
	want string
}

// setupSolver loads a tiny solver fed from Go, for training transcripts.
var setupSolver = []step{
	{`s, err := caffe.LoadSolver("testdata/tiny_solver.prototxt"); err` + enter, "<nil>"},
	{`l, err := s.Net().MemoryDataLayer("data"); err` + enter, "<nil>"},
	{`x := ndarray.Rand(1, 16, 64); y := make([]float32, 16)` + enter, ">>> "},
	{`for i := range 16 { y[i] = float32(i % 10) }; l.Reset(x.Data(), y)` + enter, ">>> "},
}

func concat(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var transcripts = []struct {
	name  string
	steps []step
	exit  int // expected exit status after the last step, or -1 to not wait
}{
	{
		name: "new user",
		steps: []step{
			{"x := 40 + 2" + enter, ">>> "},
			{"x" + enter, "42 (int)"},
			{`fmt.Println("answer", x)` + enter, "answer 42"},
			{"func double(a int) int {" + enter, "... "},
			{"return 2 * a" + enter, "... "},
			{"}" + enter, ">>> "},
			{"double(x)" + enter, "84 (int)"},
			{`var m map[string]int; m["a"] = 1` + enter, "panic: assignment to entry in nil map"},
			{"", "at in[6]:1:23"},
			{":help" + enter, "Commands:"},
			{"", ":doc NAME"},
			{"sc" + enter, "rdd.Context{master: local[2], workers: 2} (*rdd.Context)"},
			{"x + 1" + enter, "43 (int)"},
			{":quit" + enter, ""},
		},
		exit: 0,
	},
	{
		name: "Go at the prompt",
		steps: []step{
			{`func f() (int, error) { return 7, fmt.Errorf("bad") }` + enter, ">>> "},
			{"x := f()" + enter, "in[2]:1:6: assignment mismatch: 1 variable but f returns 2 values"},
			{"f() + 1" + enter, "in[3]:1:1: multiple-value f() (value of type (int, error)) in single-value context"},
			{"x" + enter, "in[4]:1:1: undefined: x"},
			{"a?" + enter, "in[5]:1:2: illegal character U+003F '?'"},
			{"type F float64" + enter, ">>> "},
			{`fmt.Printf("%T %v\n", F(3), F(3))` + enter, "main.F 3"},
			{"type point struct{ X int }" + enter, ">>> "},
			{"type point struct{ X, Y int }" + enter, ">>> "},
			{"point{1, 2}" + enter, "{X:1 Y:2} (main.point)"},
			// Output that leaves its line open is not hidden by the prompt.
			{"func g() { for i := 0; i < 3; i++ { defer fmt.Print(i) } }; g()" + enter, "210\n>>> "},
			{`m := map[string]int{"a": 1}` + enter, ">>> "},
			{`v, ok := m["a"]` + enter, ">>> "},
			{`var x any = "s"; str, isStr := x.(string)` + enter, ">>> "},
			{"ch := make(chan int, 1); ch <- 5; w, open := <-ch" + enter, ">>> "},
			{"fmt.Println(v, ok, min(v, 0), max(v, 2), str, isStr, w, open)" + enter, "1 true 0 2 s true 5 true"},
			{"var s []int; s[3]" + enter, "panic: runtime error: index out of range [3] with length 0"},
			{"n := -1; make([]int, n)" + enter, "panic: runtime error: makeslice: len out of range"},
			{"bad := sc.Parallelize([]int{1, 2}, 2)" + enter, ">>> "},
			{"k := bad.Count()" + enter, "assignment mismatch: 1 variable but bad.Count returns 2 values"},
			{"xs := []int{3, 1, 2}; slices.Sort(xs); fmt.Println(xs, slices.Max(xs))" + enter, "[1 2 3] 3"},
			{`fmt.Println(slices.Sorted(maps.Keys(maps.Clone(map[string]int{"q": 1, "p": 2}))))` + enter, "[p q]"},
		},
		exit: -1,
	},
	{
		name: "continuation",
		steps: []step{
			{"func add(a, b int) int {" + enter, "... "},
			{"" + enter, "... "}, // a blank line inside brackets continues
			{"return a + b" + enter, "... "},
			{"}" + enter, ">>> "},
			{"add(1," + enter, "... "},
			{"2)" + enter, "3 (int)"},
			{"y := 1 +" + enter, "... "},
			{"2" + enter, ">>> "},
			{"y" + enter, "3 (int)"},
			{"s := `two" + enter, "... "},
			{"lines`" + enter, ">>> "},
			{"len(s)" + enter, "9 (int)"},
			{">>> z := y * 2" + enter, ">>> "}, // a pasted prompt is removed
			{"z" + enter, "6 (int)"},
			{"w := 1 +" + enter, "... "},
			{enter, "unexpected end of input"}, // an empty line ends an incomplete input
			{ctrlD, ""},
		},
		exit: 0,
	},
	{
		name: "recall a multi-line input",
		steps: []step{
			{"x := 0" + enter, ">>> "},
			{"for i := 0; i < 3; i++ {" + enter, "... "},
			{"x += i // add" + enter, "... "},
			{"}" + enter, ">>> "},
			{"x" + enter, "3 (int)"},
			{up + up, "for i := 0; i < 3; i++ { x += i /* add */; }"}, // the whole input, on one line
			{enter, ">>> "},
			{"x" + enter, "6 (int)"},
		},
		exit: -1,
	},
	{
		name: "completion",
		steps: []step{
			{"strings.ToUp" + tab, "strings.ToUpper"},
			{`("go")` + enter, `"GO" (string)`},
			{"a := ndarray.Ones(2, 3)" + enter, ">>> "},
			{"a.Resh" + tab, "a.Reshape"},
			{"(3, 2)" + enter, "Array[3 2] float32"},
			{"type point struct{ Name string; X int }" + enter, ">>> "},
			{`p := point{Name: "origin"}` + enter, ">>> "},
			{"p.Na" + tab, "p.Name"},
			{enter, `"origin" (string)`},
			{"doub" + tab, ""}, // nothing to complete yet
			{ctrlU + "func doubler(v int) int { return 2 * v }" + enter, ">>> "},
			{"doub" + tab, "doubler"},
			{"(4)" + enter, "8 (int)"},
			{":he" + tab, ":help"},
			{" keys" + enter, "Tab completes"},
			{`s, _ := caffe.LoadSolver("testdata/tiny_solver.prototxt"); net := s.Net()` + enter, ">>> "},
			{`net.Blob("data").ShapeS` + tab, `net.Blob("data").ShapeString`}, // after a call
			{"()" + enter, "(string)"},
		},
		exit: -1,
	},
	{
		name: "interrupt",
		steps: concat(setupSolver, []step{
			{"tr := display.TrackSolver(s, 100000000, 10000000)" + enter, ">>> "},
			{"s.Step(ctx, 100000000)" + enter, "round 1/10"}, // the live bar
			{ctrlC, "interrupted; the session goes on"},
			{"s.Iter() > 0" + enter, "true (bool)"},
			// The loop says when it has run (the typed line itself does
			// not contain the word), so that Ctrl-C comes after n++.
			{`n := 0; for { n++; if n == 1000 { fmt.Println("loop" + "ing") } }` + enter, "looping"},
			{ctrlC, "interrupted"},
			{"n > 0" + enter, "true (bool)"},
			{"not finished" + ctrlC, ">>> "}, // Ctrl-C at the prompt drops the line
			{"1 + 1" + enter, "2 (int)"},
		}),
		exit: -1,
	},
	{
		name: "panics",
		steps: []step{
			{"go func() { panic(\"in a goroutine\") }()" + enter, "panic: in a goroutine"},
			{"a := ndarray.Ones(2, 3); a.Add(ndarray.Ones(4))" + enter, "panic: ndarray: shapes [2 3] and [4] do not broadcast"},
			{`sc.Range(0, 10, 1, 2).Map(func(v any) any { panic("bad element") }).Count()` + enter, "error: rdd: Count"},
			{"", "Map function panicked"},
			{"for range 3 { fmt.Print(\"ok \") }" + enter, "ok ok ok "},
			{"defer fmt.Println(1)" + enter, "defer at the top level"},
			{":nosuch" + enter, "unknown command :nosuch; the commands are :doc :help"},
			{"a.Shape()" + enter, "[2 3] ([]int)"},
			{"os.Exit(3)" + enter, ""},
		},
		exit: 3,
	},
	{
		name: "a session that cannot die",
		steps: []step{
			{"func down(n int) int { return down(n+1) + 1 }" + enter, ">>> "},
			{"down(0)" + enter, "stack overflow: calls of down nest too deeply"},
			{"x := make([]float64, 1<<40)" + enter, "make([]float64, 1099511627776) needs 8 TiB, more than the session's memory budget"},
			{"ch := make(chan int); <-ch" + enter, "fatal error: all goroutines are asleep - deadlock!"},
			{"n := 0" + enter, ">>> "},
			// The echo of 1 shows that the input has ended: a Ctrl-C
			// sent while it runs interrupts it instead.
			{"go func() { for { n++ } }(); 1" + enter, "1 (int)"},
			{ctrlC, "stopped 1 goroutine started by earlier inputs"},
			{"a := n; time.Sleep(20 * time.Millisecond); a == n" + enter, "true (bool)"},
			{"go func() { for { n++ } }()" + enter, ">>> "},
			{":reset" + enter, "stopped 1 goroutine started by earlier inputs"},
			{":help limits" + enter, "concurrent map writes"},
			{"1 + 1" + enter, "2 (int)"},
		},
		exit: -1,
	},
	{
		name: "doc and time",
		steps: []step{
			{":doc ndarray.Zeros" + enter, "func Zeros(shape ...int) *Array"},
			{":doc strings.ToUpper" + enter, "func ToUpper(s string) string"},
			{"a := ndarray.Ones(2)" + enter, ">>> "},
			{":doc a.Reshape" + enter, "func (a *Array) Reshape(shape ...int) *Array"},
			{":doc nosuch.Thing" + enter, "not an imported package"},
			{":time 6 * 7" + enter, "42 (int)"},
			{"", "time: "},
			{":vars" + enter, "│ a "},
			{"", "*ndarray.Array"},
		},
		exit: -1,
	},
}

func TestTranscripts(t *testing.T) {
	dir := filepath.Join(repoRoot, "tests")
	for _, tc := range transcripts {
		t.Run(tc.name, func(t *testing.T) {
			term := startTerminal(t, dir, "--master", "local[2]")
			term.Expect("sc and ctx are ready")
			term.Prompt()
			for _, st := range tc.steps {
				term.Type(st.keys)
				if st.want != "" {
					term.Expect(st.want)
				}
			}
			if tc.exit >= 0 {
				if code := term.Wait(); code != tc.exit {
					t.Errorf("exit status %d, want %d", code, tc.exit)
				}
			}
		})
	}
}

// TestTrainingProgress checks that training shows its progress at the
// prompt unasked, a live bar and a line per round, and that the bar is
// cleared when the run ends.
func TestTrainingProgress(t *testing.T) {
	term := startTerminal(t, filepath.Join(repoRoot, "tests"), "--master", "local[2]")
	term.Prompt()
	for _, line := range []string{
		`samples := &data.Samples{N: 64, C: 1, H: 8, W: 8, Pixels: make([]uint8, 64*64), Labels: make([]float32, 64)}`,
		`sp, _ := caffe.LoadSolverParameter("testdata/tiny_trainer_solver.prototxt")`,
		`t, _ := sparknet.Parallelize(sc, sp, sc.ParallelizeSamples(samples, 2).Cache(), sparknet.Options{Tau: 30000})`,
	} {
		term.Type(line + enter)
		term.Prompt()
	}
	term.Type("t.Rounds(ctx, 2)" + enter)
	term.Expect("] round 1/2  step ") // the live bar
	term.Expect("round 1/2  step 30000/30000  loss ")
	term.Expect("round 2/2  step 30000/30000  loss ")
	term.Prompt()
	term.mu.Lock()
	raw := string(term.out)
	term.mu.Unlock()
	last := strings.LastIndex(raw, "round 2/2  step 30000/30000")
	end := strings.LastIndex(raw, ">>> ")
	if last < 0 || end < last {
		t.Fatalf("no last round line before the prompt: %q", raw)
	}
	// Whatever bar was drawn after the last round line is erased.
	seg := raw[last:end]
	if bar, cleared := strings.LastIndex(seg, "·"), strings.LastIndex(seg, "\r\x1b[K"); bar > cleared {
		t.Errorf("the live bar was not cleared after the run; the output ends %q", seg)
	}
}

// TestHistoryPersists checks that lines typed in one run come back with
// the Up arrow in the next.
func TestHistoryPersists(t *testing.T) {
	dir := filepath.Join(repoRoot, "tests")
	env := []string{"SPARKNET_SHELL_HISTORY=" + filepath.Join(t.TempDir(), "history")}
	term := startTerminalEnv(t, dir, env, "--master", "local[2]")
	term.Prompt()
	term.Type("777 + 1" + enter)
	term.Expect("778 (int)")
	term.Type(":history" + enter)
	term.Expect("in[1]: 777 + 1")
	term.Type(ctrlD)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit status %d", code)
	}

	term = startTerminalEnv(t, dir, env, "--master", "local[2]")
	term.Prompt()
	term.Type(up + up + enter) // the line before :history
	term.Expect("778 (int)")
}
