package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.go")
	if err := os.WriteFile(script, []byte("fmt.Println(\"args\", os.Args[1:])\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cells := filepath.Join(dir, "cells.go")
	if err := os.WriteFile(cells, []byte("x := 6\nx * 7\n// %% second\nfmt.Println(\"printed\")\nfloat64(x) / 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	training := `samples := &data.Samples{N: 64, C: 1, H: 8, W: 8, Pixels: make([]uint8, 64*64), Labels: make([]float32, 64)}
sp, _ := caffe.LoadSolverParameter("../tests/testdata/tiny_trainer_solver.prototxt")
t, _ := sparknet.Parallelize(sc, sp, sc.ParallelizeSamples(samples, 2).Cache(), sparknet.Options{Tau: 100})
t.Rounds(ctx, 2)
t.Round(ctx)
fmt.Println("trained")
`
	trainScript := filepath.Join(dir, "train.go")
	if err := os.WriteFile(trainScript, []byte(training), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.go")
	if err := os.WriteFile(bad, []byte("fmt.Println(\"before\")\n// %%\nnope()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   string // part of stdout
		err   string // part of stderr
	}{
		{"eval", []string{"--master", "local[2]", "-e", "x := 6", "-e", "x * 7"}, "", 0, "42 (int)", ""},
		{"eval error", []string{"-e", "nope"}, "", 1, "", "in[1]:1:1: undefined: nope"},
		{"eval exit", []string{"-e", "os.Exit(7)"}, "", 7, "", ""},
		{"script with args", []string{script, "a", "b"}, "", 0, "args [a b]", ""},
		{"failing script", []string{bad}, "", 1, "before", "bad.go:3:1: undefined: nope"},
		{"missing script", []string{filepath.Join(dir, "none.go")}, "", 1, "", "no such file"},
		{"endless script", []string{"/dev/zero"}, "", 1, "", "repl: open /dev/zero: is a character device, not a regular file"},
		{"folder as script", []string{dir}, "", 1, "", "repl: open " + dir + ": is a directory, not a regular file"},
		{":load shows values", nil, ":load " + cells + "\nx\n", 0, "42 (int)\nprinted\n1.5 (float64)\n6 (int)\n", ""},
		{"piped training shows progress", []string{"--master", "local[2]"}, training, 0, "round 1/2  step 100/100  loss ", ""},
		{"piped training: a line per round", []string{"--master", "local[2]"}, training, 0, "round 3  step 100/100", ""},
		{":load of a device", nil, ":load /dev/urandom\n", 1, "", "repl: open /dev/urandom: is a character device, not a regular file"},
		{"version", []string{"--version"}, "", 0, "sparknet-shell ", ""},
		{"bad master", []string{"--master", "yarn", "-e", "1"}, "", 1, "", "repl: master \"yarn\""},
		{"bad flag", []string{"--nosuch"}, "", 2, "", "usage:"},
		{"both -e and script", []string{"-e", "1", script}, "", 2, "", "either -e or a script"},
		{"piped input", []string{"--master", "local[2]"}, "x := 2\nfunc f(v int) int {\nreturn v * 10\n}\nf(x)\n:nosuch\n", 1, "20 (int)", "unknown command :nosuch"},
		{"piped :help", nil, ":help\n:quit\nnotrun\n", 0, "Commands:", ""},
	}
	t.Run("piped training writes no terminal escapes", func(t *testing.T) {
		var out, errb bytes.Buffer
		Main([]string{"--master", "local[2]"}, strings.NewReader(training), &out, &errb)
		if strings.Contains(out.String(), "\x1b") || strings.Contains(out.String(), "\r") || strings.Count(out.String(), "  step 100/100") != 3 {
			t.Errorf("piped training wrote %q, want three plain lines", out.String())
		}
	})
	t.Run("a script's training is silent", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := Main([]string{"--master", "local[2]", trainScript}, nil, &out, &errb); code != 0 || out.String() != "trained\n" {
			t.Errorf("exit status %d, output %q, want only %q; stderr: %s", code, out.String(), "trained\n", errb.String())
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(tc.args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.out)
			}
			if !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.err)
			}
		})
	}
}

func TestNotebook(t *testing.T) {
	dir := t.TempDir()
	nbFile := filepath.Join(dir, "nb.go")
	src := `//go:build ignore

// # A notebook
//
// Its prose is Markdown.

// %% Numbers
x := 21
fmt.Println("printed")
x * 2

// %% A table and a figure
t := display.NewTable("k", "v").Add("a", 1)
display.Show(t)
display.NewFigure("curve").Line("y", []float64{3, 1, 2})

// %% A failure
var m map[int]int
m[1] = 1

// %% After
fmt.Println("not run")
`
	if err := os.WriteFile(nbFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report.md")
	var log bytes.Buffer
	err := RunNotebook(t.Context(), nbFile, NotebookOptions{Session: Options{Master: "local[2]"}, Out: out, Log: &log})
	if err == nil || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Fatalf("error %v, want the failing cell's panic", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	wants := []string{
		"# A notebook\n\nIts prose is Markdown.",
		"## Numbers\n\n```go\nx := 21\nfmt.Println(\"printed\")\nx * 2\n```\n\n```text\nprinted\n42 (int)\n```",
		"| k | v |\n|:--|--:|\n| a | 1 |",
		"![curve](report-1.png)",
		"**Error** (the run stopped here):\n\n```text\npanic: assignment to entry in nil map\n\tat " + nbFile + ":19:1\n```",
		"## After\n\n```go\nfmt.Println(\"not run\")\n```\n\n_Not run: an earlier cell failed._",
	}
	for _, w := range wants {
		if !strings.Contains(report, w) {
			t.Errorf("report lacks %q:\n%s", w, report)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report-1.png")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(log.String(), "A failure: FAILED") {
		t.Errorf("log: %q", log.String())
	}
}
