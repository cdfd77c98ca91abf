package tool

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func shared(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "caffe-models", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared Caffe files not available: %v", err)
	}
	return p
}

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestSummaryCommand(t *testing.T) {
	model := shared(t, "mnist/lenet_train_test.prototxt")
	weights := shared(t, "trained/lenet_v1_iter_10000.caffemodel")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr string
	}{
		{"train with input shape and weights",
			[]string{"summary", "--model=" + model, "--phase=TRAIN", "--input-shape=data=64,1,28,28", "--weights=" + weights}, 0,
			[]string{`Net "LeNet" (phase TRAIN)`, "conv1  Convolution      conv1   64x20x24x24  520", "Total params: 431,080", "loaded 4 layers (conv1, conv2, ip1, ip2)"}, ""},
		{"test phase without shapes", []string{"summary", "-model", model}, 0,
			[]string{`(phase TRAIN)`, `(phase TEST)`, "label_mnist_1_split", "conv2  Convolution      conv2   ?       25,050", "Total params: 30,060 and those of conv1, ip1, which depend on the shape of the data"}, ""},
		{"stage flag", []string{"summary", "--model=" + shared(t, "mnist/mnist_autoencoder.prototxt"), "--stage=test-on-test", "--input-shape=data=100,1,28,28"}, 0,
			[]string{"phase TEST, stages test-on-test", "Total params: 2,837,314"}, ""},
		{"missing model", []string{"summary"}, 2, nil, "--model is required"},
		{"bad phase", []string{"summary", "--model=" + model, "--phase=VAL"}, 2, nil, `unknown phase "VAL"`},
		{"bad input shape", []string{"summary", "--model=" + model, "--input-shape=data"}, 2, nil, "want BLOB=D1,D2,..."},
		{"positional argument", []string{"summary", "--model=" + model, "extra"}, 2, nil, `unexpected argument "extra"`},
		{"unknown flag", []string{"summary", "--modle=x"}, 2, nil, "flag provided but not defined: --modle"},
		{"missing file", []string{"summary", "--model=/no/such/net.prototxt"}, 1, nil, "no such file"},
		{"shape for a computed blob", []string{"summary", "--model=" + model, "--input-shape=conv1=1,2"}, 1, nil, `a shape is given for blob "conv1"`},
		{"weights that do not fit", []string{"summary", "--model=" + shared(t, "cifar10/cifar10_quick_train_test.prototxt"), "--input-shape=data=1,3,32,32", "--weights=" + weights}, 1, nil,
			`cannot copy blob 0 of layer "conv1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if tt.stderr != "" && !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errs)
			}
		})
	}
}

func TestUpgradeCommand(t *testing.T) {
	legacy := shared(t, "trained/lenet_v1_train_test.prototxt")
	current, err := os.ReadFile(shared(t, "mnist/lenet_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("upgrade", "--model="+legacy)
	if code != 0 || out != string(current) {
		t.Errorf("upgrade --model: code %d, stderr %s\n%s", code, errs, out)
	}

	dir := t.TempDir()
	dst := filepath.Join(dir, "lenet.caffemodel")
	if code, _, errs := run("upgrade", "--weights="+shared(t, "trained/lenet_v1_iter_10000.caffemodel"), "--output="+dst); code != 0 {
		t.Fatalf("upgrade --weights: %s", errs)
	}
	if code, out, errs := run("summary", "--model="+shared(t, "mnist/lenet_train_test.prototxt"), "--input-shape=data=1,1,28,28", "--weights="+dst); code != 0 || !strings.Contains(out, "loaded 4 layers") {
		t.Errorf("upgraded weights do not load: %s %s", out, errs)
	}

	solverOut := filepath.Join(dir, "solver.prototxt")
	if code, _, errs := run("upgrade", "--solver="+shared(t, "mnist/lenet_consolidated_solver.prototxt"), "--output="+solverOut); code != 0 {
		t.Fatalf("upgrade --solver: %s", errs)
	}
	text, _ := os.ReadFile(solverOut)
	if !strings.Contains(string(text), "net_param {\n  name: \"LeNet\"\n  layer {") || strings.Contains(string(text), "layers {") {
		t.Errorf("solver not upgraded:\n%s", text)
	}

	for _, args := range [][]string{{"upgrade"}, {"upgrade", "--model=a", "--solver=b"}, {"upgrade", "--weights=a"}} {
		if code, _, _ := run(args...); code != 2 {
			t.Errorf("%v: exit code %d, want 2", args, code)
		}
	}
}

func TestUsage(t *testing.T) {
	if code, _, errs := run(); code != 2 || !strings.Contains(errs, "usage: sparknet <command>") || !strings.Contains(errs, "summary") {
		t.Errorf("no arguments: %d %s", code, errs)
	}
	if code, out, _ := run("help"); code != 0 || !strings.Contains(out, "upgrade") {
		t.Errorf("help: %d %s", code, out)
	}
	if code, out, _ := run("help", "summary"); code != 0 || !strings.Contains(out, "--input-shape=BLOB=N,C,H,W") {
		t.Errorf("help summary: %d %s", code, out)
	}
	if code, _, errs := run("frobnicate"); code != 2 || !strings.Contains(errs, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: %d %s", code, errs)
	}
	if code, _, errs := run("summary", "-h"); code != 0 || !strings.Contains(errs, "-input-shape") {
		t.Errorf("summary -h: %d %s", code, errs)
	}
}
