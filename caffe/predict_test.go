package caffe

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
)

// mnistTest returns the first n MNIST test images as raw pixels (N×1×28×28,
// 0 to 255) and their labels.
func mnistTest(t *testing.T, n int) (*ndarray.Array, []float32) {
	t.Helper()
	dir, err := data.MNISTDir()
	if err != nil {
		t.Skip(err)
	}
	s, err := data.LoadMNIST(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	x := ndarray.New(n, 1, 28, 28)
	for i := range x.Data() {
		x.Data()[i] = float32(s.Pixels[i])
	}
	return x, s.Labels[:n]
}

func accuracy(scores *ndarray.Array, labels []float32) float64 {
	pred := scores.Argmax(1).Data()
	right := 0
	for i, l := range labels {
		if pred[i] == l {
			right++
		}
	}
	return float64(right) / float64(len(labels))
}

func maxDiff(a, b *ndarray.Array) float64 {
	var d float64
	for i, v := range a.Data() {
		d = math.Max(d, math.Abs(float64(v-b.Data()[i])))
	}
	return d
}

// LoadNet and Predict run Caffe's trained LeNet from its train_test
// definition on MNIST test images: the data layer becomes an input of the
// shape the weights fit, the loss and accuracy are left out, and the
// predictions are right as often as Caffe's are.
func TestPredictLeNet(t *testing.T) {
	dir := sharedModels(t)
	weights := filepath.Join(dir, "trained", "lenet_iter_10000.caffemodel")
	net, err := LoadNet(filepath.Join(dir, "mnist", "lenet_train_test.prototxt"), weights)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(net.Inputs(), ","); got != "data" {
		t.Errorf("inputs %s", got)
	}
	if got := strings.Join(net.Outputs(), ","); got != "ip2" {
		t.Errorf("outputs %s, want ip2 (the loss and accuracy read labels)", got)
	}
	if got := Shape(net.Blob("data").Shape()).String(); got != "100x1x28x28" {
		t.Errorf("input shape %s, want the data layer's batch and MNIST's 1×28×28", got)
	}
	raw, labels := mnistTest(t, 500)
	out, err := net.PredictWith(raw, PredictOptions{Transform: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := Shape(out["ip2"].Shape()).String(); got != "500x10" {
		t.Fatalf("ip2 is %s, want 500x10", got)
	}
	if acc := accuracy(out["ip2"], labels); acc < 0.98 {
		t.Errorf("accuracy %g on 500 test images, want at least 0.98", acc)
	}

	// Without the transform the samples go in as they are: scaled by
	// hand as the data layer would, they give the same scores.
	scaled := raw.Copy()
	for i, v := range scaled.Data() {
		scaled.Data()[i] = v * 0.00390625
	}
	plain, err := net.Predict(scaled)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(plain["ip2"], out["ip2"]); d != 0 {
		t.Errorf("scaled by hand, the scores differ by %g", d)
	}
	// Any batch size: 7 at a time, and one sample without its batch axis.
	sevens, err := net.PredictWith(scaled, PredictOptions{Batch: 7})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(sevens["ip2"], out["ip2"]); d > 1e-4 {
		t.Errorf("7 samples at a time, the scores differ by %g", d)
	}
	one, err := net.Predict(ndarray.FromSlice(scaled.Data()[28*28*3:28*28*4], 1, 28, 28))
	if err != nil {
		t.Fatal(err)
	}
	if got := Shape(one["ip2"].Shape()).String(); got != "1x10" {
		t.Errorf("one sample gives %s", got)
	}
	for k := 0; k < 10; k++ {
		if d := math.Abs(float64(one["ip2"].Data()[k] - out["ip2"].Data()[30+k])); d > 1e-4 {
			t.Errorf("one sample's score %d differs by %g", k, d)
		}
	}
	// Other blobs by name: features of the layer before the classifier.
	feats, err := net.PredictWith(scaled, PredictOptions{Outputs: []string{"ip1", "ip2"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := Shape(feats["ip1"].Shape()).String(); got != "500x500" || len(feats) != 2 {
		t.Errorf("ip1 is %s, %d blobs", got, len(feats))
	}

	// The deploy definition with the same weights gives the softmax of
	// the same scores.
	deploy, err := LoadNet(filepath.Join(dir, "mnist", "lenet.prototxt"), weights)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := deploy.Predict(scaled)
	if err != nil {
		t.Fatal(err)
	}
	if got := Shape(prob["prob"].Shape()).String(); got != "500x10" {
		t.Fatalf("prob is %s", got)
	}
	for i := 0; i < 500; i++ {
		row := out["ip2"].Data()[i*10 : i*10+10]
		m := float64(row[0])
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(float64(v) - m)
		}
		for k, v := range row {
			want := math.Exp(float64(v)-m) / sum
			if d := math.Abs(want - float64(prob["prob"].Data()[i*10+k])); d > 1e-5 {
				t.Fatalf("sample %d class %d: prob %g, softmax of ip2 %g", i, k, prob["prob"].Data()[i*10+k], want)
			}
		}
	}
}

// A V1 train_test definition of three channels: the input shape found
// from the weights is CIFAR-10's, and the predictions equal those of the
// deploy definition.
func TestPredictCIFAR10FromTrainTest(t *testing.T) {
	dir := filepath.Join(sharedModels(t), "trained")
	weights := filepath.Join(dir, "cifar10_quick_v1_iter_4000.caffemodel")
	trainTest, err := LoadNet(filepath.Join(dir, "cifar10_quick_v1_train_test.prototxt"), weights)
	if err != nil {
		t.Fatal(err)
	}
	if got := Shape(trainTest.Blob("data").Shape()).String(); got != "100x3x32x32" {
		t.Errorf("input shape %s, want 100x3x32x32", got)
	}
	deploy, err := LoadNet(filepath.Join(dir, "cifar10_quick_v1.prototxt"), weights)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := ndarray.New(13, 3, 32, 32)
	for i := range x.Data() {
		x.Data()[i] = float32(rng.NormFloat64() * 50)
	}
	a, err := trainTest.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := deploy.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || len(b) != 1 || a["ip2"] == nil || b["prob"] == nil {
		t.Fatalf("outputs %v and %v", keys(a), keys(b))
	}
	pa, pb := a["ip2"].Argmax(1).Data(), b["prob"].Argmax(1).Data()
	for i := range pa {
		if pa[i] != pb[i] {
			t.Errorf("sample %d: class %g from the train_test definition, %g from the deploy one", i, pa[i], pb[i])
		}
	}
}

func keys(m map[string]*ndarray.Array) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

func TestPredictErrors(t *testing.T) {
	dir := sharedModels(t)
	lenet := filepath.Join(dir, "mnist", "lenet.prototxt")
	trainTest := filepath.Join(dir, "mnist", "lenet_train_test.prototxt")
	weights := filepath.Join(dir, "trained", "lenet_iter_10000.caffemodel")
	cifar := filepath.Join(dir, "trained", "cifar10_quick_v1_iter_4000.caffemodel")

	// Weights for some layers only: the others would predict with filler
	// values.
	m, err := ReadCaffemodel(weights)
	if err != nil {
		t.Fatal(err)
	}
	var kept = m.Layer[:0]
	for _, l := range m.Layer {
		if l.GetName() != "ip2" {
			kept = append(kept, l)
		}
	}
	m.Layer = kept
	partial := filepath.Join(t.TempDir(), "partial.caffemodel")
	if err := WriteCaffemodel(partial, m); err != nil {
		t.Fatal(err)
	}
	loads := []struct {
		name, model, weights, want string
	}{
		{"weights of another net", lenet, cifar, `cannot copy blob 0 of layer "conv1": the weights have shape [32 3 5 5]`},
		{"weights of another net for a data layer", trainTest, cifar, "no input shape of up to 8 channels and 512×512 fits the weights for data layer mnist"},
		{"partial weights", lenet, partial, partial + " has no weights for ip2 of " + lenet},
		{"endless weights", lenet, "/dev/zero", "is a character device"},
	}
	for _, tc := range loads {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.weights, "/dev/") {
				if _, err := os.Stat(tc.weights); err != nil {
					t.Skip(err)
				}
			}
			_, err := LoadNet(tc.model, tc.weights)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}

	net, err := LoadNet(lenet, weights)
	if err != nil {
		t.Fatal(err)
	}
	predicts := []struct {
		name string
		x    *ndarray.Array
		o    PredictOptions
		want string
	}{
		{"nil", nil, PredictOptions{}, "the input array is nil"},
		{"wrong rank", ndarray.New(2, 28, 28, 1, 1), PredictOptions{}, "the array is [2 28 28 1 1] but input \"data\" of net \"LeNet\" has 4 axes"},
		{"wrong size", ndarray.New(2, 1, 20, 20), PredictOptions{}, `layer "ip1" (InnerProduct): input of shape [2 50 2 2] has 200 values from axis 1, the weights expect K = 800 (input "data" of net "LeNet" took samples of 1x28x28; these are 1x20x20)`},
		{"no samples", ndarray.New(0, 1, 28, 28), PredictOptions{}, "the array [0 1 28 28] holds no samples"},
		{"transform of a deploy net", ndarray.New(2, 1, 28, 28), PredictOptions{Transform: true}, "has no transform_param"},
		{"unknown blob", ndarray.New(2, 1, 28, 28), PredictOptions{Outputs: []string{"ip3"}}, `has no blob "ip3" (did you mean "ip1"?)`},
	}
	for _, tc := range predicts {
		t.Run(tc.name, func(t *testing.T) {
			_, err := net.PredictWith(tc.x, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
