package tests

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/data"
)

// TestExampleNotebooks runs the teaching notebooks in examples/ at small
// settings and checks their reports.
func TestExampleNotebooks(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		want   []string // in the report, in order
		images int      // PNG files beside the report
		mnist  bool
	}{
		{
			name: "ndarray",
			file: "ndarray_basics.go",
			want: []string{"# NDArray basics", "## Creating arrays", "Array[2 3] float32", "## Shape errors",
				"true (bool)", "| layer | blob | shape", "| conv1 |    0 | 20×1×5×5 |"},
		},
		{
			name: "rdd",
			file: "rdd_basics.go",
			want: []string{"# RDD basics", "rdd.Context{master: local[2], workers: 2}", "(4) Filter[4]",
				"1330 (int)", "cached partitions: 4", "total: 1900 elements seen: 20", "(caffe, 1) (go, 3) (net, 1)", "(caffe, (1, 5)) (go, (3, 2))", "| worker | tasks |", "unlucky number"},
		},
		{
			name: "predict",
			file: "predict.go",
			want: []string{"# Predicting with a trained Caffe net", "trained 100 iterations: lenet_iter_100.caffemodel", "inputs: [data] shape [100 1 28 28]",
				"outputs: [ip2]", "ip2: [1000 10] scores;", "| image | label | predicted | score", "ip1: [10 500]", "x.npy holds [10 1 28 28]"},
			mnist: true,
		},
		{
			name: "custom_layer",
			file: "custom_layer.go",
			want: []string{"# A layer written in the shell", "LearnedLeakyReLU: exactly 1 bottom, exactly 1 top, runs: true",
				"gradient check passed: 300 inputs and the slope", "agree on 300 of 300 outputs",
				"| leaky1 | LearnedLeakyReLU | leaky1 64x500", "431081 parameter values",
				"2 rounds of 5 iterations in", "the learned slope: ", "the interpreted layer took", "the two runs' weights: 0\n", "lenet_leaky.caffemodel: slope "},
			mnist: true,
		},
		{
			name:   "mnist",
			file:   "mnist_sparknet.go",
			want:   []string{"# SparkNet averaging on MNIST", "training images: 60000", "| Convolution ", "round 1/2", "round 2/2", "![training](mnist_sparknet-1.png)", "| ip2   |    1 | 10"},
			images: 1,
			mnist:  true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mnist {
				if _, err := data.MNISTDir(); err != nil {
					t.Skip("MNIST files unavailable:", err)
				}
			}
			out := filepath.Join(t.TempDir(), strings.TrimSuffix(tc.file, ".go")+".md")
			t.Setenv("SPARKNET_EXAMPLE_ROUNDS", "2")
			t.Setenv("SPARKNET_EXAMPLE_TAU", "5")
			t.Setenv("SPARKNET_EXAMPLE_TEST", "200")
			t.Setenv("SPARKNET_EXAMPLE_ITERS", "100")
			res := runShell(t, repoRoot, "", 3*time.Minute, "--master", "local[2]", "--notebook", filepath.Join("examples", tc.file), "--out", out)
			if res.code != 0 {
				t.Fatalf("exit status %d:\n%s", res.code, res.out)
			}
			report := readFile(t, out)
			if strings.Contains(report, "**Error**") {
				t.Errorf("the report has an error:\n%s", report)
			}
			rest := report
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the report lacks %q (after the earlier lines); report:\n%s", w, report)
				}
				rest = rest[i+len(w):]
			}
			pngs, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*.png"))
			if len(pngs) != tc.images {
				t.Errorf("%d PNG files beside the report, want %d", len(pngs), tc.images)
			}
			for _, p := range pngs {
				if _, err := png.Decode(bytes.NewReader([]byte(readFile(t, p)))); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
		})
	}
}

// TestFailingNotebook checks that a failing cell stops the run, that its
// error is in the report, and that the exit status says so.
func TestFailingNotebook(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.md")
	res := runShell(t, filepath.Join(repoRoot, "tests"), "", time.Minute, "--master", "local[2]", "--notebook", "testdata/failing_notebook.go", "--out", out)
	if res.code == 0 {
		t.Errorf("exit status 0 for a failing notebook; output:\n%s", res.out)
	}
	report := readFile(t, out)
	for _, want := range []string{"first cell output", "**Error** (the run stopped here)", "panic: assignment to entry in nil map", "testdata/failing_notebook.go:12:1", "## Third"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "never printed\n```") || strings.Contains(report, "```text\nnever printed") {
		t.Errorf("the cell after the failure ran:\n%s", report)
	}
}

// TestNotebookOut checks --out before the first cell runs: a missing
// folder is made, and a report that cannot be written fails at once.
func TestNotebookOut(t *testing.T) {
	dir := t.TempDir()
	nb := filepath.Join(dir, "nb.go")
	if err := os.WriteFile(nb, []byte("// %% one\nfmt.Println(\"cell one ran\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "missing", "deeper", "report.md")
	res := runShell(t, dir, "", time.Minute, "--master", "local[1]", "--notebook", nb, "--out", out)
	if res.code != 0 {
		t.Fatalf("--out in a missing folder: exit status %d:\n%s", res.code, res.out)
	}
	if report := readFile(t, out); !strings.Contains(report, "cell one ran") {
		t.Errorf("the report lacks the cell's output:\n%s", report)
	}
	if err := os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ out, want string }{
		{filepath.Join(dir, "missing"), "is a folder, not a file"},
		{filepath.Join(dir, "afile", "report.md"), "cannot make its folder"},
	} {
		res := runShell(t, dir, "", time.Minute, "--master", "local[1]", "--notebook", nb, "--out", bad.out)
		if res.code == 0 || !strings.Contains(res.out, bad.want) {
			t.Errorf("--out %s: exit status %d, output:\n%s\nwant an error with %q", bad.out, res.code, res.out, bad.want)
		}
		if strings.Contains(res.out, "[1/1]") {
			t.Errorf("--out %s: a cell ran before the report was checked:\n%s", bad.out, res.out)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
