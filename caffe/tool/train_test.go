package tool

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/data"
)

// fakeMNIST writes n 28×28 images whose label shows as a bright band, in
// MNIST's file layout (as both the training and the test set).
func fakeMNIST(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	pix := make([]uint8, n*28*28)
	labels := make([]uint8, n)
	for i := range labels {
		labels[i] = uint8(i % 10)
		for j := 0; j < 28*28; j++ {
			v := (i*31 + j*7) % 64
			if j/79 == int(labels[i]) {
				v += 150
			}
			pix[i*28*28+j] = uint8(v)
		}
	}
	for _, prefix := range []string{"train", "t10k"} {
		if err := data.WriteIDXFile(filepath.Join(dir, prefix+"-images-idx3-ubyte"), &data.IDX{Type: data.IDXUint8, Dims: []int{n, 28, 28}, Uint8: pix}); err != nil {
			t.Fatal(err)
		}
		if err := data.WriteIDXFile(filepath.Join(dir, prefix+"-labels-idx1-ubyte"), &data.IDX{Type: data.IDXUint8, Dims: []int{n}, Uint8: labels}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A softmax classifier over a Data layer whose source, like Caffe's
// examples, names an LMDB database that --data replaces.
const softmaxNet = `name: "softmax"
layer { name: "mnist" type: "Data" top: "data" top: "label" include { phase: TRAIN }
  transform_param { scale: 0.00390625 } data_param { source: "mnist_train_lmdb" batch_size: 10 backend: LMDB } }
layer { name: "mnist" type: "Data" top: "data" top: "label" include { phase: TEST }
  transform_param { scale: 0.00390625 } data_param { source: "mnist_test_lmdb" batch_size: 10 backend: LMDB } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 10 weight_filler { type: "xavier" } } }
layer { name: "accuracy" type: "Accuracy" bottom: "ip" bottom: "label" top: "accuracy" include { phase: TEST } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`

const softmaxSolver = `net: "examples/softmax_train_test.prototxt"
test_iter: 5 test_interval: 20 base_lr: 0.1 momentum: 0.9 lr_policy: "fixed"
display: 10 max_iter: 40 snapshot: 20 snapshot_prefix: "SNAP"
`

func runTool(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

func writeFiles(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	solver := strings.ReplaceAll(softmaxSolver, "SNAP", filepath.Join(dir, "snap", "softmax"))
	for name, src := range map[string]string{"softmax_train_test.prototxt": softmaxNet, "solver.prototxt": solver} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var accuracyLine = regexp.MustCompile(`(?m)^accuracy = ([0-9.]+)$`)

func TestTrainTestTime(t *testing.T) {
	mnist := fakeMNIST(t, 50)
	dir := writeFiles(t)
	out, errOut, code := runTool(t, "train", "--solver="+filepath.Join(dir, "solver.prototxt"), "--data=mnist="+mnist, "--threads=1")
	if code != 0 {
		t.Fatalf("train exited %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Solving softmax", "Iteration 0, Testing net (#0)", "Test net output #0: accuracy = ",
		"Test net output #1: loss = ", "Iteration 10 (", "Train net output #0: loss = ", "Iteration 10, lr = 0.1",
		"Snapshotting to binary proto file " + filepath.Join(dir, "snap", "softmax_iter_20.caffemodel"),
		"Iteration 40, Testing net (#0)", "Optimization Done.", "images/s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
	model := filepath.Join(dir, "snap", "softmax_iter_40.caffemodel")
	out, errOut, code = runTool(t, "test", "--model="+filepath.Join(dir, "softmax_train_test.prototxt"), "--weights="+model,
		"--iterations=5", "--data=mnist="+mnist, "--threads=1")
	if code != 0 {
		t.Fatalf("test exited %d: %s%s", code, out, errOut)
	}
	m := accuracyLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("test output has no accuracy line:\n%s", out)
	}
	if acc, _ := strconv.ParseFloat(m[1], 64); acc < 0.9 {
		t.Errorf("accuracy %g after training on the easy fake set, want >= 0.9", acc)
	}
	if !strings.Contains(out, "loss = ") || !strings.Contains(out, " loss)") || !strings.Contains(errOut, "Batch 4, accuracy = ") {
		t.Errorf("test output:\n%s\n%s", out, errOut)
	}

	// Resuming from the snapshot at 20 runs the last 20 iterations.
	out, errOut, code = runTool(t, "train", "--solver="+filepath.Join(dir, "solver.prototxt"), "--data=mnist="+mnist, "--threads=1",
		"--snapshot="+filepath.Join(dir, "snap", "softmax_iter_20.solverstate"), "--snapshot_prefix="+filepath.Join(dir, "resumed"))
	if code != 0 || !strings.Contains(out, "Resuming from "+filepath.Join(dir, "snap", "softmax_iter_20.solverstate")+" at iteration 20, weights "+filepath.Join(dir, "snap", "softmax_iter_20.caffemodel")) || strings.Contains(out, "Iteration 10 ") ||
		!strings.Contains(out, "Trained 20 iterations") {
		t.Errorf("resumed train exited %d:\n%s%s", code, out, errOut)
	}

	out, errOut, code = runTool(t, "time", "--model="+filepath.Join(dir, "softmax_train_test.prototxt"), "--iterations=3",
		"--input-shape=data=8,1,28,28", "--threads=1")
	if code != 0 {
		t.Fatalf("time exited %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"Iteration: 3 forward-backward time:", "        ip\tforward:", "      loss\tbackward:",
		"Average Forward pass:", "Average Backward pass:", "Average Forward-Backward:", "Batch 8:"} {
		if !strings.Contains(out, want) {
			t.Errorf("time output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := writeFiles(t)
	solver := "--solver=" + filepath.Join(dir, "solver.prototxt")
	model := "--model=" + filepath.Join(dir, "softmax_train_test.prototxt")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"train without solver", []string{"train"}, 2, "--solver is required"},
		{"weights and snapshot", []string{"train", solver, "--weights=a", "--snapshot=b"}, 2, "not both"},
		{"unknown data kind", []string{"train", solver, "--data=hdf5=/x"}, 2, `unknown data set kind "hdf5"`},
		{"single-split data kind", []string{"train", solver, "--data=lmdb=/x"}, 2, `lmdb data sets hold one split per path`},
		{"LMDB source", []string{"train", solver}, 1, "LMDB"},
		{"test without weights", []string{"test", model}, 2, "--weights is required"},
		{"time without model", []string{"time"}, 2, "--model is required"},
		{"time bad iterations", []string{"time", model, "--iterations=0"}, 2, "--iterations must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runTool(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q (stdout %q); want exit %d and %q", code, errOut, out, tc.code, tc.want)
			}
		})
	}
}

// TestMean computes the mean image of the LMDB fixture (pixel j of record
// i is (31i + 7j) mod 256) and reads it back as a mean file.
func TestMean(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mean.binaryproto")
	src := filepath.Join("..", "..", "data", "testdata", "lmdb", "small")
	stdout, errOut, code := runTool(t, "mean", "--source="+src, "--output="+out)
	if code != 0 || !strings.Contains(stdout, "mean of 200 images of 3×6×6") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	bp, err := caffe.ReadBlobProto(out)
	if err != nil {
		t.Fatal(err)
	}
	if bp.GetChannels() != 3 || bp.GetHeight() != 6 || bp.GetWidth() != 6 || len(bp.Data) != 108 {
		t.Fatalf("mean blob %d×%d×%d with %d values", bp.GetChannels(), bp.GetHeight(), bp.GetWidth(), len(bp.Data))
	}
	for j, got := range bp.Data {
		var sum float64
		for i := 0; i < 200; i++ {
			sum += float64((31*i + 7*j) % 256)
		}
		if want := float32(sum / 200); got != want {
			t.Fatalf("mean[%d] = %g, want %g", j, got, want)
		}
	}
	if _, errOut, code := runTool(t, "mean", "--source="+src, "--output="+out, "--split=dev"); code != 2 || !strings.Contains(errOut, "want train or test") {
		t.Errorf("bad split: exit %d, %q", code, errOut)
	}
}

// TestDeviceQuery checks that device_query names the kernels in use.
func TestDeviceQuery(t *testing.T) {
	out, errOut, code := runTool(t, "device_query")
	if code != 0 || !strings.Contains(out, "Device: CPU") || !strings.Contains(out, "Kernels: ") || !strings.Contains(out, "Cores: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
