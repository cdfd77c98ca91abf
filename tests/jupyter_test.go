package tests

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/data"
)

// jupyterTool returns the path of a Jupyter command. Where it is missing
// the test is skipped, except under CI (CI=true), whose .ci/run installs
// Debian's Jupyter packages: there it fails.
func jupyterTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (.ci/run installs it): %v", name, err)
		}
		t.Skipf("%s is not installed: %v", name, err)
	}
	return p
}

// installKernel installs the kernelspec of the test binary under a
// temporary prefix and returns the environment that makes Jupyter find it
// (and only there keep its runtime files).
func installKernel(t *testing.T) []string {
	t.Helper()
	prefix := t.TempDir()
	res := runShell(t, prefix, "", time.Minute, "--install-kernel", "--prefix", prefix, "--master", "local[2]")
	if res.code != 0 {
		t.Fatalf("--install-kernel: exit status %d\n%s", res.code, res.out)
	}
	spec := filepath.Join(prefix, "share", "jupyter", "kernels", "sparknet")
	var ks struct {
		Argv          []string `json:"argv"`
		DisplayName   string   `json:"display_name"`
		Language      string   `json:"language"`
		InterruptMode string   `json:"interrupt_mode"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(spec, "kernel.json"))), &ks); err != nil {
		t.Fatal(err)
	}
	if ks.DisplayName != "SparkNet (Go)" || ks.Language != "go" || ks.InterruptMode == "" || ks.Argv[len(ks.Argv)-1] != "{connection_file}" {
		t.Errorf("kernel.json: %+v", ks)
	}
	for _, logo := range []string{"logo-32x32.png", "logo-64x64.png"} {
		f, err := os.Open(filepath.Join(spec, logo))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", logo, err)
		}
		f.Close()
	}
	return append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(prefix, "runtime"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(prefix, "config"),
		"PYDEVD_DISABLE_FILE_VALIDATION=1")
}

// TestKernelspecList checks that Jupyter lists the installed kernel.
func TestKernelspecList(t *testing.T) {
	jupyter := jupyterTool(t, "jupyter-kernelspec")
	env := installKernel(t)
	cmd := exec.Command(jupyter, "list", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jupyter kernelspec list: %v\n%s", err, out)
	}
	var list struct {
		Kernelspecs map[string]struct {
			Spec struct {
				DisplayName string `json:"display_name"`
			} `json:"spec"`
		} `json:"kernelspecs"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := list.Kernelspecs["sparknet"].Spec.DisplayName; got != "SparkNet (Go)" {
		t.Errorf("jupyter kernelspec list shows sparknet as %q:\n%s", got, out)
	}
}

// TestNotebooksWithJupyter runs every example notebook through
// jupyter nbconvert --to notebook --execute with the installed kernel, at
// small settings, and checks the outputs: the expected text in order,
// figures as image/png, tables as text/html, and no error.
func TestNotebooksWithJupyter(t *testing.T) {
	nbconvert := jupyterTool(t, "jupyter-nbconvert")
	env := installKernel(t)
	out := t.TempDir()
	env = append(env,
		"SPARKNET_EXAMPLE_ROUNDS=2", "SPARKNET_EXAMPLE_TAU=5", "SPARKNET_EXAMPLE_TEST=200",
		"SPARKNET_SPEEDUP_K=1,2", "SPARKNET_SPEEDUP_TAU=1,5", "SPARKNET_SPEEDUP_TARGET=0.9",
		"SPARKNET_SPEEDUP_BUDGET=200", "SPARKNET_SPEEDUP_TEST=500", "SPARKNET_SPEEDUP_EVERY=50",
		"SPARKNET_SPEEDUP_OUT="+out, "SPARKNET_EXAMPLE_ITERS=100")
	tests := []struct {
		name   string
		want   []string // in the outputs, in order
		images int      // image/png outputs, at least
		html   int      // text/html outputs, at least
		mnist  bool
	}{
		{"custom_layer", []string{"LearnedLeakyReLU: exactly 1 bottom, exactly 1 top, runs: true", "gradient check passed: 300 inputs and the slope",
			"agree on 300 of 300 outputs", "LearnedLeakyReLU", "2 rounds of 5 iterations in", "the learned slope: ", "the interpreted layer took", "the two runs' weights: 0\n", "lenet_leaky.caffemodel: slope "}, 0, 1, true},
		{"ndarray_basics", []string{"Array[2 3] float32", "column sums:", "true (bool)", "WeightCollection{2 layers"}, 0, 3, false},
		{"rdd_basics", []string{"rdd.Context{master: local[2], workers: 2}", "(4) Filter[4]", "1330 (int)", "cached partitions: 4",
			"total: 1900 elements seen: 20", "│ worker │ tasks │", "unlucky number"}, 0, 1, false},
		{"mnist_sparknet", []string{"2 workers, 2 rounds of 5 steps, 200 test images", "training images: 60000", `Net "LeNet" (TEST)`,
			"round 1/2  step 5/5", "round 2/2  step 5/5", "accuracy", "WeightCollection{4 layers"}, 1, 3, true},
		{"predict", []string{"trained ", "inputs: [data] shape [100 1 28 28]", "outputs: [ip2]", "test images right", "ip1: [10 500]", "x.npy holds [10 1 28 28]"}, 0, 1, true},
		{"paper_speedup", []string{"small study: K [1 2], τ [1 5]", "C = ", "K=2 τ=5", "speedup over the serial solver, S = 0",
			"speedup over the serial solver, S = 100C", "the small study took"}, 3, 4, true},
	}
	all, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "*.ipynb"))
	if len(all) != len(tests) {
		t.Errorf("examples/ has %d notebooks and this test checks %d: give the new one its expected outputs", len(all), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mnist {
				if _, err := data.MNISTDir(); err != nil {
					t.Skip("MNIST files unavailable:", err)
				}
			}
			src := filepath.Join(repoRoot, "examples", tc.name+".ipynb")
			cmd := exec.Command(nbconvert, "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=300",
				"--output-dir", out, "--output", tc.name+".out", src)
			cmd.Env = env
			start := time.Now()
			log, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("jupyter nbconvert --execute: %v\n%s", err, log)
			}
			t.Logf("%s ran in %s", tc.name, time.Since(start).Round(time.Millisecond))
			text, images, html, errs := notebookOutputs(t, filepath.Join(out, tc.name+".out.ipynb"))
			if len(errs) > 0 {
				t.Errorf("error outputs: %v", errs)
			}
			rest := text
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the outputs lack %q (after the earlier ones); outputs:\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			if images < tc.images || html < tc.html {
				t.Errorf("%d image/png and %d text/html outputs, want at least %d and %d", images, html, tc.images, tc.html)
			}
		})
	}
}

// notebookOutputs reads an executed notebook and returns the text of its
// outputs, the number of PNG images (each checked to decode) and HTML
// outputs, and its errors.
func notebookOutputs(t *testing.T, path string) (text string, images, html int, errs []string) {
	t.Helper()
	var nb struct {
		Cells []struct {
			CellType string `json:"cell_type"`
			Outputs  []struct {
				OutputType string         `json:"output_type"`
				Text       any            `json:"text"`
				Data       map[string]any `json:"data"`
				Ename      string         `json:"ename"`
				Evalue     string         `json:"evalue"`
				Traceback  []string       `json:"traceback"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &nb); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "stream":
				b.WriteString(joinText(o.Text))
			case "error":
				errs = append(errs, o.Ename+": "+o.Evalue)
				b.WriteString(strings.Join(o.Traceback, "\n") + "\n")
			default:
				b.WriteString(joinText(o.Data["text/plain"]) + "\n")
				if p, ok := o.Data["image/png"]; ok {
					raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(joinText(p), "\n", ""))
					if err == nil {
						_, err = png.Decode(strings.NewReader(string(raw)))
					}
					if err != nil {
						t.Errorf("an image/png output does not decode: %v", err)
					}
					images++
				}
				if _, ok := o.Data["text/html"]; ok {
					html++
				}
			}
		}
	}
	return b.String(), images, html, errs
}

// joinText joins nbformat's multiline strings.
func joinText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, s := range x {
			b.WriteString(fmt.Sprint(s))
		}
		return b.String()
	}
	return ""
}

// TestNotebookIPynb runs a notebook in Jupyter's format without Jupyter:
// to an executed .ipynb and to a Markdown report; converts a // %% file;
// and refuses a broken notebook with its position.
func TestNotebookIPynb(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "rdd.ipynb")
	res := runShell(t, repoRoot, "", 2*time.Minute, "--master", "local[2]", "--notebook", "examples/rdd_basics.ipynb", "--out", out)
	if res.code != 0 {
		t.Fatalf("exit status %d:\n%s", res.code, res.out)
	}
	text, _, html, errs := notebookOutputs(t, out)
	if len(errs) > 0 || html == 0 || !strings.Contains(text, "1330 (int)") || !strings.Contains(text, "total: 1900 elements seen: 20") {
		t.Errorf("executed notebook: errors %v, %d HTML outputs, text:\n%s", errs, html, text)
	}
	md := filepath.Join(dir, "rdd.md")
	if res := runShell(t, repoRoot, "", 2*time.Minute, "--master", "local[2]", "--notebook", "examples/rdd_basics.ipynb", "--out", md); res.code != 0 {
		t.Fatalf("exit status %d:\n%s", res.code, res.out)
	}
	if report := readFile(t, md); !strings.Contains(report, "# RDD basics") || !strings.Contains(report, "1330 (int)") {
		t.Errorf("report:\n%s", report)
	}

	// A // %% file converts; a cell that fails stops the run, with its
	// error among the outputs at cell[N]:line:col.
	src := filepath.Join(dir, "nb.go")
	os.WriteFile(src, []byte("// # A notebook\n\n// %% One\nx := 1\nx\n\n// %% Two\nvar m map[string]int\nm[\"a\"] = x\n\n// %% Three\nfmt.Println(\"never\")\n"), 0o644)
	if res := runShell(t, dir, "", time.Minute, "--to-ipynb", "nb.go"); res.code != 0 {
		t.Fatalf("--to-ipynb: exit status %d:\n%s", res.code, res.out)
	}
	res = runShell(t, dir, "", time.Minute, "--notebook", "nb.ipynb", "--out", "run.ipynb")
	if res.code == 0 {
		t.Errorf("a failing notebook exited 0:\n%s", res.out)
	}
	text, _, _, errs = notebookOutputs(t, filepath.Join(dir, "run.ipynb"))
	if len(errs) != 1 || !strings.Contains(text, "at cell[2]:2:1") || strings.Contains(text, "never") || !strings.Contains(text, "1 (int)") {
		t.Errorf("errors %v; text:\n%s", errs, text)
	}

	os.WriteFile(filepath.Join(dir, "bad.ipynb"), []byte("{\"cells\": [\n  {\"cell_type\": \"code\", \"source\": 3}\n], \"nbformat\": 4}"), 0o644)
	res = runShell(t, dir, "", time.Minute, "--notebook", "bad.ipynb", "--out", "x.ipynb")
	if res.code == 0 || !strings.Contains(res.out, "notebook bad.ipynb: cell 1: source: want a string or a list of strings") {
		t.Errorf("bad notebook: exit status %d:\n%s", res.code, res.out)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.ipynb")); err == nil {
		t.Errorf("a notebook was written for a notebook that could not be read")
	}
}
