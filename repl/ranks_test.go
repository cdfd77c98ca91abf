package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/rdd"
)

// rankRun is what one rank of an SPMD job printed and returned.
type rankRun struct {
	out, err string
	code     int
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runRanks runs f on n ranks that are goroutines of this process, each
// given session options whose sc runs on an SPMD engine over in-process
// communicators, as under mpirun with --master mpi.
func runRanks(t *testing.T, n int, f func(r int, opts Options) int) []rankRun {
	t.Helper()
	comms, err := rdd.NewLocalComms(n)
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]rankRun, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errb lockedBuffer
			code := f(r, Options{Engine: rdd.NewSPMDEngine(comms[r]), Stdout: &out, Stderr: &errb})
			runs[r] = rankRun{out: out.String(), err: errb.String(), code: code}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the ranks hung")
	}
	return runs
}

// checkRanks checks that every rank exited with code, that rank 0 wrote
// each of out and errs exactly once, that no rank wrote notOut, and that
// the other ranks wrote nothing.
func checkRanks(t *testing.T, runs []rankRun, code int, out, errs, notOut []string) {
	t.Helper()
	for r, run := range runs {
		if run.code != code {
			t.Errorf("rank %d: exit status %d, want %d; stderr:\n%s", r, run.code, code, run.err)
		}
		if r > 0 && (run.out != "" || run.err != "") {
			t.Errorf("rank %d printed\n%s\nand\n%s\nbut only rank 0 prints", r, run.out, run.err)
		}
		for _, w := range notOut {
			if strings.Contains(run.out+run.err, w) {
				t.Errorf("rank %d printed %q:\n%s%s", r, w, run.out, run.err)
			}
		}
	}
	for _, w := range out {
		if n := strings.Count(runs[0].out, w); n != 1 {
			t.Errorf("rank 0's output has %q %d times, want once:\n%s", w, n, runs[0].out)
		}
	}
	for _, w := range errs {
		if n := strings.Count(runs[0].err, w); n != 1 {
			t.Errorf("rank 0's error output has %q %d times, want once:\n%s", w, n, runs[0].err)
		}
	}
}

func TestShellRanks(t *testing.T) {
	tests := []struct {
		name   string
		stdin  string
		code   int
		out    []string // rank 0's output has each once
		errs   []string // rank 0's error output has each once
		notOut []string // no rank prints these
	}{
		{name: "inputs run on every rank",
			stdin: "x := 6\nx * 7\nn, err := sc.Range(0, 8, 1, 4).Count()\nn\nfunc f(v int) int {\nreturn v * 10\n}\nf(sc.Workers())\n",
			out:   []string{"42 (int)", "8 (int)", "20 (int)"}},
		{name: "an error on every rank shows once",
			stdin: "nope\n1 + 1\n", code: 1,
			out: []string{"2 (int)"}, errs: []string{"in[1]:1:1: undefined: nope"}, notOut: []string{"rank "}},
		{name: "different errors name their ranks",
			stdin: "panic(fmt.Sprint(\"on rank \", sc.Rank()))\n2 + 2\n", code: 1,
			out: []string{"4 (int)"}, errs: []string{"rank 0: panic: on rank 0", "rank 1: panic: on rank 1"}},
		{name: "an error on one rank ends the job",
			stdin: "if sc.Rank() == 1 {\npanic(\"only here\")\n}\nfmt.Println(\"not run\")\n", code: 1,
			errs:   []string{"rank 1: panic: only here", "(no error on rank 0)", "the job ends"},
			notOut: []string{"not run"}},
		{name: ":quit ends every rank",
			stdin: "1\n:quit\nfmt.Println(\"not run\")\n",
			out:   []string{"1 (int)"}, notOut: []string{"not run"}},
		{name: "os.Exit ends every rank with its code",
			stdin: "os.Exit(3)\nfmt.Println(\"not run\")\n", code: 3,
			notOut: []string{"not run", "exit status"}},
		{name: ":reset keeps sc",
			stdin: "x := 1\n:reset\nsc.Workers()\n",
			out:   []string{"session reset", "2 (int)"}},
		{name: ":paste reads on rank 0",
			stdin: ":paste\na := 2\nb := 3\n:end\na * b\n",
			out:   []string{"paste mode", "6 (int)"}},
		{name: ":load of a missing file",
			stdin: ":load nonexistent.go\n", code: 1,
			errs: []string{"no such file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := runRanks(t, 2, func(_ int, o Options) int {
				return RunShell(ShellOptions{Session: o, Stdin: strings.NewReader(tc.stdin)})
			})
			checkRanks(t, runs, tc.code, tc.out, tc.errs, tc.notOut)
		})
	}
}

func TestShellAllRanksOutput(t *testing.T) {
	runs := runRanks(t, 2, func(_ int, o Options) int {
		o.AllRanksOutput = true
		return RunShell(ShellOptions{Session: o, Stdin: strings.NewReader("fmt.Println(\"rank\", sc.Rank())\n")})
	})
	for r, run := range runs {
		if want := "rank " + string(rune('0'+r)) + "\n"; run.out != want || run.code != 0 {
			t.Errorf("rank %d: printed %q and exited %d, want %q and 0", r, run.out, run.code, want)
		}
	}
}

func TestMainRanks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	count := write("count.go", "r := sc.Parallelize([]any{1, 2, 3, 4, 5, 6, 7, 8}, 4)\nn, err := r.Count()\nif err != nil {\n\tpanic(err)\n}\nfmt.Println(\"count\", n)\n")
	oneRank := write("one.go", "fmt.Println(\"before\")\n// %%\nif sc.Rank() == 1 {\n\tpanic(\"only on rank 1\")\n}\n// %%\nfmt.Println(\"after\")\n")
	exit := write("exit.go", "if sc.Rank() == 0 {\n\tos.Exit(4)\n}\n")
	// Rank 1 leaves the input while rank 0 goes on to an action.
	midPanic := write("mid_panic.go", "r := sc.Parallelize([]any{1, 2, 3, 4}, 2)\nif sc.Rank() == 1 {\n\tpanic(\"only on rank 1\")\n}\nn, _ := r.Count()\nfmt.Println(n)\n")
	midExit := write("mid_exit.go", "r := sc.Parallelize([]any{1, 2, 3, 4}, 2)\nif sc.Rank() == 1 {\n\tos.Exit(3)\n}\nn, _ := r.Count()\nfmt.Println(n)\n")
	nb := write("nb.go", "// %% First\nx := 21\nx * 2\n")
	report := filepath.Join(dir, "nb.md")
	tests := []struct {
		name   string
		args   []string
		code   int
		out    []string
		errs   []string
		notOut []string
	}{
		{"script", []string{count}, 0, []string{"count 8\n"}, nil, nil},
		{"error on one rank", []string{oneRank}, 1, []string{"before"}, []string{"rank 1: panic: only on rank 1\n\tat " + oneRank + ":3:1\n(no error on rank 0)"}, []string{"after"}},
		{"os.Exit on rank 0 only", []string{exit}, 4, nil, []string{"rank 0: exit status 4\n(no error on rank 1)"}, nil},
		{"panic on one rank while the other runs an action", []string{midPanic}, 1, nil, []string{"rank 1: the end of an input (panic: only on rank 1 at " + midPanic + ":2:1)"}, nil},
		{"os.Exit on one rank while the other runs an action", []string{midExit}, 1, nil, []string{"rank 1: the end of an input (exit status 3)"}, nil},
		{"missing script", []string{filepath.Join(dir, "none.go")}, 1, nil, []string{"no such file"}, nil},
		{"-e", []string{"-e", "x := sc.Workers()", "-e", "x * 21"}, 0, []string{"42 (int)"}, nil, nil},
		{"notebook", []string{"--notebook", nb, "--out", report}, 0, nil, []string{"[1/1] First: ok"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := runRanks(t, 2, func(_ int, o Options) int {
				return mainWith(tc.args, o)
			})
			checkRanks(t, runs, tc.code, tc.out, tc.errs, tc.notOut)
		})
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "```text\n42 (int)\n```") {
		t.Errorf("the notebook's report lacks the cell's result:\n%s", b)
	}
}
