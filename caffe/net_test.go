package caffe

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
)

func mustNet(t testing.TB, src string, opts NetOptions) *Net {
	t.Helper()
	np, err := ParseNetParameter("test.prototxt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNet(np, opts)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mlpNet is a two-layer classifier on Input blobs; act is read twice (by
// ip2 and by probe, whose outputs count in the loss with weight 0.5), so a
// Split is inserted.
const mlpNet = `
name: "mlp"
force_backward: true
layer { name: "in" type: "Input" top: "x" top: "label"
  input_param { shape { dim: 4 dim: 5 } shape { dim: 4 } } }
layer { name: "ip1" type: "InnerProduct" bottom: "x" top: "hidden"
  inner_product_param { num_output: 6 weight_filler { type: "gaussian" std: 0.5 } bias_filler { type: "gaussian" std: 0.5 } } }
layer { name: "act" type: "Sigmoid" bottom: "hidden" top: "act" }
layer { name: "ip2" type: "InnerProduct" bottom: "act" top: "score"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.5 } bias_filler { type: "gaussian" std: 0.5 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "score" bottom: "label" top: "loss" }
layer { name: "probe" type: "InnerProduct" bottom: "act" top: "probe" loss_weight: 0.5
  inner_product_param { num_output: 2 weight_filler { type: "gaussian" std: 0.5 } } }
`

func fillInputs(n *Net) {
	x := n.Blob("x").DataSlice()
	for i := range x {
		x[i] = float32(math.Sin(float64(i) * 1.7))
	}
	copy(n.Blob("label").DataSlice(), []float32{0, 2, 1, 2})
}

func TestNetStructure(t *testing.T) {
	const src = `
name: "wired"
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 2 dim: 3 } } }
layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y" inner_product_param { num_output: 4 } }
layer { name: "relu" type: "ReLU" bottom: "y" top: "y" }
layer { name: "a" type: "InnerProduct" bottom: "y" top: "a" param { name: "shared" } inner_product_param { num_output: 4 bias_term: false } }
layer { name: "b" type: "InnerProduct" bottom: "y" top: "b" param { name: "shared" } inner_product_param { num_output: 4 bias_term: false } }
layer { name: "test_only" type: "ReLU" bottom: "b" top: "c" include { phase: TEST } }
`
	n := mustNet(t, src, NetOptions{State: &NetState{Phase: Train}, Threads: 1})
	wantLayers := []string{"in", "ip", "relu", "y_relu_0_split", "a", "b"}
	if got := n.LayerNames(); !slices.Equal(got, wantLayers) {
		t.Errorf("LayerNames() = %v, want %v", got, wantLayers)
	}
	if got := n.Outputs(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Outputs() = %v", got)
	}
	if got := n.Inputs(); !slices.Equal(got, []string{"x"}) {
		t.Errorf("Inputs() = %v", got)
	}
	if n.Phase() != Train || n.Layer("test_only") != nil {
		t.Errorf("phase %v, test_only layer %v: want TRAIN without it", n.Phase(), n.Layer("test_only"))
	}
	w := n.Weights()
	if got := w.Layers(); !slices.Equal(got, []string{"ip", "a"}) {
		t.Errorf("Weights layers = %v, want ip and a (b shares a's weights)", got)
	}
	if len(n.LearnableParams()) != 3 {
		t.Errorf("%d learnable params, want 3", len(n.LearnableParams()))
	}
	// Shared parameters: b's weights are a's.
	n.Params("a")[0].DataSlice()[0] = 42
	if n.Params("b")[0].DataSlice()[0] != 42 {
		t.Error("b does not share a's weights")
	}
	// Weights are views.
	w.Get("ip")[1].Data()[2] = 7
	if n.Params("ip")[1].DataSlice()[2] != 7 {
		t.Error("Weights() arrays are not views of the parameters")
	}
	// Reshaping the input reshapes the rest at the next Forward.
	n.Blob("x").Reshape(5, 3)
	if _, err := n.Forward(); err != nil {
		t.Fatal(err)
	}
	if got := n.Blob("a").Shape(); !slices.Equal(got, []int{5, 4}) {
		t.Errorf("after reshaping x to 5×3, a has shape %v, want [5 4]", got)
	}
}

func TestNetSetWeights(t *testing.T) {
	n := mustNet(t, mlpNet, NetOptions{Threads: 1})
	good := n.Weights().Clone()
	good.Get("ip2")[1].Data()[0] = 3
	if err := n.SetWeights(good); err != nil {
		t.Fatal(err)
	}
	if n.Params("ip2")[1].DataSlice()[0] != 3 {
		t.Error("SetWeights did not copy")
	}
	missing := ndarray.NewWeightCollection()
	missing.Set("ip1", good.Get("ip1")...)
	wrongShape := good.Clone()
	wrongShape.Set("ip2", ndarray.New(3, 5), ndarray.New(3))
	extra := good.Clone()
	extra.Set("ip3", ndarray.New(1))
	tests := []struct {
		name string
		wc   *ndarray.WeightCollection
		want string
	}{
		{"missing layer", missing, `layer "ip2" is missing`},
		{"wrong shape", wrongShape, `layer "ip2" array 0 has shape [3 5], the net has [3 6]`},
		{"extra layer", extra, `layer "ip3" is not a layer`},
		{"nil", nil, "nil"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := n.Weights().Clone()
			err := n.SetWeights(tc.wc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("SetWeights error %v, want one containing %q", err, tc.want)
			}
			if d := before.MaxDiff(n.Weights()); d != 0 {
				t.Error("a failed SetWeights changed the weights")
			}
		})
	}
}

// TestNetGradient compares the net's gradients with central differences
// of its loss, for every parameter and the input.
func TestNetGradient(t *testing.T) {
	n := mustNet(t, mlpNet, NetOptions{Threads: 1, Seed: 3})
	fillInputs(n)
	loss := func() float64 {
		l, err := n.Forward()
		if err != nil {
			t.Fatal(err)
		}
		return float64(l)
	}
	for _, b := range n.LearnableParams() {
		b.ZeroDiff()
	}
	if _, err := n.ForwardBackward(); err != nil {
		t.Fatal(err)
	}
	type target struct {
		name string
		blob *Blob
	}
	targets := []target{{"x", n.Blob("x")}}
	for _, name := range []string{"ip1", "ip2", "probe"} {
		for i, b := range n.Params(name) {
			targets = append(targets, target{name + "[" + string(rune('0'+i)) + "]", b})
		}
	}
	const h = 1e-2
	for _, tg := range targets {
		analytic := slices.Clone(tg.blob.DiffSlice())
		vals := tg.blob.DataSlice()
		for i := range vals {
			v := vals[i]
			vals[i] = v + h
			up := loss()
			vals[i] = v - h
			down := loss()
			vals[i] = v
			numeric := (up - down) / (2 * h)
			if d := math.Abs(numeric - float64(analytic[i])); d > 1e-2*math.Max(1, math.Abs(numeric)) {
				t.Errorf("%s value %d: analytic gradient %g, numeric %g", tg.name, i, analytic[i], numeric)
			}
		}
	}
}

func TestNetBackwardPlan(t *testing.T) {
	const src = `
name: "plan"
layer { name: "in" type: "Input" top: "x" top: "label" input_param { shape { dim: 2 dim: 3 } shape { dim: 2 } } }
layer { name: "frozen" type: "InnerProduct" bottom: "x" top: "f" param { lr_mult: 0 } param { lr_mult: 0 }
  inner_product_param { num_output: 3 } }
layer { name: "ip" type: "InnerProduct" bottom: "f" top: "score" inner_product_param { num_output: 3 } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "score" bottom: "label" top: "loss" }
layer { name: "side" type: "InnerProduct" bottom: "x" top: "side" inner_product_param { num_output: 2 } }
`
	n := mustNet(t, src, NetOptions{Threads: 1})
	want := map[string]bool{"in": false, "frozen": false, "ip": true, "loss": true, "side": false, "x_in_0_split": false}
	for i, name := range n.LayerNames() {
		if w, ok := want[name]; ok && n.NeedsBackward(i) != w {
			t.Errorf("layer %q needs backward = %v, want %v", name, n.NeedsBackward(i), w)
		}
	}
}

func TestNetCopyFrom(t *testing.T) {
	dir := sharedModels(t)
	model, err := ReadCaffemodel(filepath.Join(dir, "trained", "lenet_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := LoadNetPhase(filepath.Join(dir, "mnist", "lenet.prototxt"), Test)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := n.CopyFrom(model)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Copied, []string{"conv1", "conv2", "ip1", "ip2"}) {
		t.Errorf("copied %v", rep.Copied)
	}
	// The V1 model (legacy 4-D blobs) loads into the same net.
	if _, err := n.LoadWeights(filepath.Join(dir, "trained", "lenet_v1_iter_10000.caffemodel")); err != nil {
		t.Fatal(err)
	}
	// A net whose conv1 has another shape refuses the weights, naming it.
	np, err := LoadNetParameter(filepath.Join(dir, "mnist", "lenet.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	np.Layer[1].ConvolutionParam.NumOutput = proto.Uint32(16)
	other, err := NewNet(np, NetOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	before := other.Weights().Clone()
	if _, err := other.CopyFrom(model); err == nil || !strings.Contains(err.Error(), `"conv1"`) {
		t.Errorf("mismatched weights gave %v, want an error naming conv1", err)
	}
	if before.MaxDiff(other.Weights()) != 0 {
		t.Error("a refused copy changed weights")
	}
	// A truncated file gives an error.
	raw, err := os.ReadFile(filepath.Join(dir, "trained", "lenet_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.caffemodel")
	if err := os.WriteFile(bad, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := n.LoadWeights(bad); err == nil {
		t.Error("a truncated caffemodel loaded")
	}
}

func TestNetSaveLoad(t *testing.T) {
	n := mustNet(t, mlpNet, NetOptions{Threads: 1, Seed: 1})
	path := filepath.Join(t.TempDir(), "mlp.caffemodel")
	if err := n.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	m := mustNet(t, mlpNet, NetOptions{Threads: 1, Seed: 2})
	if m.Weights().MaxDiff(n.Weights()) == 0 {
		t.Fatal("different seeds gave the same weights")
	}
	if _, err := m.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	if d := m.Weights().MaxDiff(n.Weights()); d != 0 {
		t.Errorf("weights after save and load differ by %g", d)
	}
}

// TestLeNetTrained runs Caffe's trained LeNet on the first 1,000 MNIST test
// images.
func TestLeNetTrained(t *testing.T) {
	dir := sharedModels(t)
	mnist, err := data.MNISTDir()
	if err != nil {
		t.Skip(err)
	}
	for _, model := range []string{"lenet_iter_10000.caffemodel", "lenet_v1_iter_10000.caffemodel"} {
		t.Run(model, func(t *testing.T) {
			np, err := LoadNetParameter(filepath.Join(dir, "mnist", "lenet_train_test.prototxt"))
			if err != nil {
				t.Fatal(err)
			}
			SetDataSources(np, "mnist:"+mnist)
			n, err := NewNet(np, NetOptions{State: &NetState{Phase: Test}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := n.LoadWeights(filepath.Join(dir, "trained", model)); err != nil {
				t.Fatal(err)
			}
			res, err := EvaluateNet(context.Background(), n, 10)
			if err != nil {
				t.Fatal(err)
			}
			acc, _ := res.Get("accuracy")
			if acc < 0.98 {
				t.Errorf("accuracy %g on 1,000 test images, want >= 0.98", acc)
			}
			if loss, _ := res.Get("loss"); loss > 0.1 {
				t.Errorf("loss %g, want < 0.1", loss)
			}
		})
	}
}
