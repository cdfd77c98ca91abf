package tool

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
)

// twoLayerNet has two layers with parameters, for weights files that have
// one of them, both or neither.
const twoLayerNet = `name: "two"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 4 dim: 1 dim: 28 dim: 28 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1" inner_product_param { num_output: 5 weight_filler { type: "xavier" } } }
layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
`

func ipLayer(name string, out, in int) *caffepb.LayerParameter {
	return &caffepb.LayerParameter{
		Name: proto.String(name), Type: proto.String("InnerProduct"),
		Blobs: []*caffepb.BlobProto{
			{Shape: &caffepb.BlobShape{Dim: []int64{int64(out), int64(in)}}, Data: make([]float32, out*in)},
			{Shape: &caffepb.BlobShape{Dim: []int64{int64(out)}}, Data: make([]float32, out)},
		},
	}
}

func writeModel(t *testing.T, path string, layers ...*caffepb.LayerParameter) string {
	t.Helper()
	if err := caffe.WriteCaffemodel(path, &caffepb.NetParameter{Name: proto.String("w"), Layer: layers}); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every bad input ends in one line naming the file and the problem, and a
// non-zero exit: usage errors 2, others 1.
func TestBadInputs(t *testing.T) {
	dir := writeFiles(t)
	net := filepath.Join(dir, "two.prototxt")
	if err := os.WriteFile(net, []byte(twoLayerNet), 0o644); err != nil {
		t.Fatal(err)
	}
	model := "--model=" + net
	mnist := fakeMNIST(t, 10)
	mnistFile := filepath.Join(mnist, "train-images-idx3-ubyte")
	none := writeModel(t, filepath.Join(dir, "none.caffemodel"), ipLayer("other", 5, 784))
	misfit := writeModel(t, filepath.Join(dir, "misfit.caffemodel"), ipLayer("ip1", 6, 784))
	softmax := "--model=" + filepath.Join(dir, "softmax_train_test.prototxt")
	unfit := writeModel(t, filepath.Join(dir, "unfit.caffemodel"), ipLayer("ip", 10, 1031)) // 1031 is no C×S×S
	outDir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of the one line on stderr
	}{
		{"endless model", []string{"summary", "--model=/dev/zero"}, 1, []string{"/dev/zero", "is a character device, not a regular file"}},
		{"endless weights", []string{"test", model, "--weights=/dev/urandom"}, 1, []string{"/dev/urandom", "is a character device"}},
		{"endless solver", []string{"train", "--solver=/dev/zero"}, 1, []string{"/dev/zero", "is a character device"}},
		{"endless snapshot", []string{"train", "--solver=" + filepath.Join(dir, "solver.prototxt"), "--snapshot=/dev/zero", "--data=mnist=" + mnist}, 1, []string{"/dev/zero", "is a character device"}},
		{"folder as model", []string{"summary", "--model=" + dir}, 1, []string{dir, "is a directory"}},
		{"folder as weights", []string{"test", model, "--weights=" + dir}, 1, []string{dir, "is a directory"}},
		{"enormous input shape", []string{"time", softmax, "--input-shape=data=100000,100000,28,28"}, 2, []string{"--input-shape", "more values than the 1073741824 a blob may hold"}},
		{"enormous shape in summary", []string{"summary", softmax, "--input-shape=data=100000,100000,28,28"}, 2, []string{"--input-shape", "more values than"}},
		{"negative threads", []string{"time", softmax, "--threads=-3"}, 2, []string{"--threads", "give 0 (all of them) or 1 to"}},
		{"too many threads", []string{"test", model, "--weights=x", "--threads=100000"}, 2, []string{"--threads", "give 0 (all of them) or 1 to"}},
		{"mean into a folder", []string{"mean", "--source=mnist:" + mnist, "--output=" + outDir}, 2, []string{outDir, "is a folder; name the file to write, such as " + filepath.Join(outDir, "mean.binaryproto")}},
		{"upgrade into a folder", []string{"upgrade", model, "--output=" + outDir}, 1, []string{outDir, "is a directory; name a file to write"}},
		{"MNIST file for a folder", []string{"test", softmax, "--weights=" + none, "--data=mnist=" + mnistFile}, 1, []string{mnistFile + " is a file, not a folder of MNIST files"}},
		{"missing MNIST folder", []string{"test", softmax, "--weights=" + none, "--data=mnist=" + filepath.Join(dir, "nope")}, 1, []string{"there is no MNIST folder " + filepath.Join(dir, "nope")}},
		{"weights for other layers", []string{"test", model, "--weights=" + none, "--iterations=1"}, 1, []string{none + " has no weights for this net: the net's layers with parameters are ip1, ip2; its layers with weights are other"}},
		{"weights for other layers in summary", []string{"summary", model, "--weights=" + none}, 1, []string{none + " has no weights for this net"}},
		{"weights of another shape", []string{"summary", model, "--weights=" + misfit}, 1, []string{`cannot copy blob 0 of layer "ip1"`, "(loading " + misfit + ")"}},
		{"weights for a net of unknown input shape", []string{"summary", softmax, "--weights=" + unfit}, 1, []string{"checking --weights=" + unfit + ": caffe: no input shape of up to 8 channels and 512×512 fits the weights for data layer mnist", "(or give --input-shape=BLOB=N,C,H,W to see the layers that differ)"}},
		{"weights of another shape in test", []string{"test", model, "--weights=" + misfit}, 1, []string{`cannot copy blob 0 of layer "ip1"`, "(loading " + misfit + ")"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(strings.Join(tc.args, " "), "/dev/") {
				if _, err := os.Stat("/dev/zero"); err != nil {
					t.Skip(err)
				}
			}
			out, errOut, code := runTool(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if n := strings.Count(errOut, "\n"); n != 1 || !strings.HasSuffix(errOut, "\n") {
				t.Errorf("stderr has %d lines, want one:\n%s", n, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// summary --weights checks the weights of a net whose data layer's
// database is absent against the sample shape they fit.
func TestSummaryWeightsFitTheData(t *testing.T) {
	dir := writeFiles(t)
	w := writeModel(t, filepath.Join(dir, "fit.caffemodel"), ipLayer("ip", 10, 3*32*32))
	out, errOut, code := runTool(t, "summary", "--model="+filepath.Join(dir, "softmax_train_test.prototxt"), "--weights="+w)
	if want := "Weights " + w + ": loaded 1 layers (ip) for samples of data 3x32x32, the shape the weights fit\n"; code != 0 || strings.Count(out, want) != 2 {
		t.Errorf("exit %d, want %q for both phases\nstdout: %s\nstderr: %s", code, want, out, errOut)
	}
}

// Weights for some of the layers load, and the layers left at their fillers
// are named.
func TestPartialWeights(t *testing.T) {
	dir := t.TempDir()
	net := filepath.Join(dir, "two.prototxt")
	if err := os.WriteFile(net, []byte(twoLayerNet), 0o644); err != nil {
		t.Fatal(err)
	}
	partial := writeModel(t, filepath.Join(dir, "partial.caffemodel"), ipLayer("ip1", 5, 784))
	out, errOut, code := runTool(t, "test", "--model="+net, "--weights="+partial, "--iterations=1", "--quiet")
	if code != 0 || !strings.Contains(errOut, "warning: "+partial+" has no weights for ip2; they keep the values their fillers gave") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// Two files that together have every layer: no warning.
	rest := writeModel(t, filepath.Join(dir, "rest.caffemodel"), ipLayer("ip2", 3, 5))
	out, errOut, code = runTool(t, "test", "--model="+net, "--weights="+partial+","+rest, "--iterations=1", "--quiet")
	if code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// A net whose loss layer names no top, as many older Caffe nets are
// written, trains: the loss is Caffe's automatic top.
func TestTrainNetWithoutLossTop(t *testing.T) {
	mnist := fakeMNIST(t, 50)
	dir := writeFiles(t)
	net := strings.Replace(softmaxNet, `bottom: "ip" bottom: "label" top: "loss" }`, `bottom: "ip" bottom: "label" }`, 1)
	if net == softmaxNet {
		t.Fatal("the net was not changed")
	}
	if err := os.WriteFile(filepath.Join(dir, "softmax_train_test.prototxt"), []byte(net), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runTool(t, "train", "--solver="+filepath.Join(dir, "solver.prototxt"), "--data=mnist="+mnist, "--threads=1")
	if code != 0 {
		t.Fatalf("train exited %d: %s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`Test net output #0: accuracy = ([0-9.]+)`).FindAllStringSubmatch(out, -1)
	if !strings.Contains(out, "Iteration 30 (") || !strings.Contains(out, "), loss = ") || len(m) == 0 || m[len(m)-1][1] < "0.9" {
		t.Errorf("training without a loss top:\n%s", out)
	}
}

// Without --phase, summary shows every state the net's rules tell apart,
// and counts the parameters the definition alone determines.
func TestSummaryEveryPhase(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		wants []string // in order
	}{
		{"autoencoder, whose TEST phase needs a stage", []string{"--model=" + shared(t, "mnist/mnist_autoencoder.prototxt")}, []string{
			`Net "MNISTAutoencoder" (phase TRAIN)`, "Total params: 2,052,314 and those of encode1, which depend on the shape of the data",
			`Net "MNISTAutoencoder" (phase TEST, stages test-on-train)`, "Total params: 2,052,314 and those of encode1",
			`Net "MNISTAutoencoder" (phase TEST, stages test-on-test)`, "Total params: 2,052,314 and those of encode1",
		}},
		{"autoencoder with shapes", []string{"--model=" + shared(t, "mnist/mnist_autoencoder.prototxt"), "--input-shape=data=100,1,28,28"}, []string{
			"(phase TRAIN)", "Total params: 2,837,314\n", "(phase TEST, stages test-on-train)", "Total params: 2,837,314\n",
			"(phase TEST, stages test-on-test)", "Total params: 2,837,314\n",
		}},
		{"AlexNet without its databases", []string{"--model=" + filepath.Join("..", "testdata", "bvlc_alexnet", "train_val.prototxt")}, []string{
			"(phase TRAIN)", "Total params: 60,930,280 and those of conv1, which depend on the shape of the data", "(phase TEST)",
		}},
		{"a deploy net has one state", []string{"--model=" + filepath.Join("..", "testdata", "bvlc_alexnet", "deploy.prototxt")}, []string{
			"(phase TEST)", "Total params: 60,965,224\n",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runTool(t, append([]string{"summary"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			rest := out
			for _, w := range tc.wants {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			if strings.Count(out, "Net \"") != strings.Count(strings.Join(tc.wants, " "), "(phase ") {
				t.Errorf("unexpected number of summaries:\n%s", out)
			}
		})
	}
	// A phase given is the one shown, and its errors are reported.
	_, errOut, code := runTool(t, "summary", "--model="+shared(t, "mnist/mnist_autoencoder.prototxt"), "--phase=TEST")
	if code != 1 || !strings.Contains(errOut, `bottom blob "data" is produced only by layers the net state (phase TEST) leaves out`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// predict runs a .npy of raw MNIST images through Caffe's trained LeNet
// from its train_test definition and writes the scores.
func TestPredictCommand(t *testing.T) {
	mnistDir, err := data.MNISTDir()
	if err != nil {
		t.Skip(err)
	}
	s, err := data.LoadMNIST(mnistDir, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	x := ndarray.New(n, 1, 28, 28)
	for i := range x.Data() {
		x.Data()[i] = float32(s.Pixels[i])
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	if err := ndarray.Save(in, x); err != nil {
		t.Fatal(err)
	}
	model := "--model=" + shared(t, "mnist/lenet_train_test.prototxt")
	weights := "--weights=" + shared(t, "trained/lenet_iter_10000.caffemodel")
	out := filepath.Join(dir, "y.npy")
	stdout, errOut, code := runTool(t, "predict", model, weights, "--input="+in, "--output="+out, "--transform", "--batch=64")
	if code != 0 || !strings.Contains(stdout, "ip2 200x10\npredicted 200 samples with LeNet; wrote "+out) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, errOut)
	}
	y, err := ndarray.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	pred := y.Argmax(1).Data()
	right := 0
	for i := 0; i < n; i++ {
		if pred[i] == s.Labels[i] {
			right++
		}
	}
	if right < n*98/100 {
		t.Errorf("%d of %d right", right, n)
	}
	npz := filepath.Join(dir, "y.npz")
	if _, errOut, code := runTool(t, "predict", model, weights, "--input="+in, "--output="+npz, "--transform", "--blobs=ip1,ip2"); code != 0 {
		t.Fatalf("npz: %s", errOut)
	}
	all, err := ndarray.LoadNpz(npz)
	if err != nil || len(all) != 2 || all["ip1"] == nil || caffe.Shape(all["ip1"].Shape()).String() != "200x500" {
		t.Errorf("npz holds %v (%v)", all, err)
	}

	narrow := filepath.Join(dir, "narrow.npy")
	if err := ndarray.Save(narrow, ndarray.New(3, 1, 20, 28)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no input", []string{"predict", model, weights, "--output=" + out}, 2, "--model, --input and --output are required"},
		{"text output", []string{"predict", model, weights, "--input=" + in, "--output=y.txt"}, 2, "--output=y.txt: name a .npy file (one blob) or an .npz file (several)"},
		{"two blobs into a .npy", []string{"predict", model, weights, "--input=" + in, "--output=" + out, "--blobs=ip1,ip2"}, 2, `net "LeNet" gives 2 blobs (ip1, ip2): name one with --blobs, or write them all to an .npz`},
		{"endless input", []string{"predict", model, weights, "--input=/dev/zero", "--output=" + out}, 1, "/dev/zero: is a character device"},
		{"folder as output", []string{"predict", model, weights, "--input=" + in, "--output=" + dir}, 2, "is a folder"},
		{"an .npz of several arrays as input", []string{"predict", model, weights, "--input=" + npz, "--output=" + out}, 1, "holds 2 arrays (ip1, ip2)"},
		{"samples of another shape", []string{"predict", model, weights, "--input=" + narrow, "--output=" + out}, 1,
			"predicting the samples of " + narrow + " with " + shared(t, "mnist/lenet_train_test.prototxt") + `: caffe: layer "ip1" (InnerProduct): input of shape [3 50 2 4] has 400 values from axis 1, the weights expect K = 800 (input "data" of net "LeNet" took samples of 1x28x28; these are 1x20x28)`},
		{"no weights", []string{"predict", model, "--input=" + in, "--output=" + out}, 2, "--weights is required: without trained weights the outputs of " + shared(t, "mnist/lenet_train_test.prototxt") + " come from its fillers' random values (layers with parameters: conv1, conv2, ip1, ip2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runTool(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and %q in one line", code, errOut, tc.code, tc.want)
			}
		})
	}
}
