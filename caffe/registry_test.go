package caffe

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func TestLayerTypes(t *testing.T) {
	names := LayerTypeNames()
	types := LayerTypes()
	if len(types) != len(names) {
		t.Fatalf("%d types, %d names", len(types), len(names))
	}
	for i, lt := range types {
		if lt.Name != names[i] || (i > 0 && names[i-1] >= names[i]) {
			t.Fatalf("types not sorted or names differ at %d: %q %q", i, lt.Name, names[i])
		}
	}
	// Every one of Caffe's 61 types is known; 54 of them run.
	caffeTypes := strings.Fields(`AbsVal Accuracy ArgMax BNLL BatchNorm BatchReindex Bias Clip Concat ContrastiveLoss
		Convolution Crop Data Deconvolution Dropout DummyData ELU Eltwise Embed EuclideanLoss Exp Filter Flatten
		HDF5Data HDF5Output HingeLoss Im2col ImageData InfogainLoss InnerProduct Input LRN LSTM LSTMUnit Log MVN
		MemoryData MultinomialLogisticLoss PReLU Parameter Pooling Power Python RNN ReLU Reduction Reshape SPP Scale
		Sigmoid SigmoidCrossEntropyLoss Silence Slice Softmax SoftmaxWithLoss Split Swish TanH Threshold Tile WindowData`)
	if len(caffeTypes) != 61 {
		t.Fatalf("the list has %d types", len(caffeTypes))
	}
	runs, loss := 0, 0
	for _, name := range caffeTypes {
		lt, err := LookupLayerType(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if lt.Runs() {
			runs++
		}
		if lt.Loss {
			loss++
		}
	}
	if runs != 54 || loss != 7 {
		t.Errorf("%d of Caffe's types run and %d are losses, want 54 and 7", runs, loss)
	}
	for _, name := range []string{"Python", "HDF5Data", "WindowData", "LSTM", "RNN", "LSTMUnit", "HDF5Output"} {
		if lt, _ := LookupLayerType(name); lt.Runs() {
			t.Errorf("%s runs", name)
		}
	}
	if lt, _ := LookupLayerType("Accuracy"); lt.Loss {
		t.Error("Accuracy is not a loss layer in Caffe")
	}
}

func TestLookupLayerTypeErrors(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Convolutoin", `unknown layer type "Convolutoin" (did you mean "Convolution"?); known types: AbsVal, Accuracy, ArgMax, BNLL,`},
		{"relu", `(did you mean "ReLU"?)`},
		{"CONVOLUTION", `(did you mean "Convolution"?)`},
		{"SomethingElse", `unknown layer type "SomethingElse"; known types:`},
	}
	for _, tt := range tests {
		_, err := LookupLayerType(tt.name)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LookupLayerType(%q): %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestRegisterLayerTypeErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		t    LayerType
		want string
	}{
		{"no name", LayerType{New: newReLU}, "needs a name"},
		{"sparknet's own", LayerType{Name: "ReLU", New: newReLU}, `"ReLU" is one of sparknet's and cannot be registered again`},
		{"twice", LayerType{Name: "TimesW", New: newTimesW}, `"TimesW" registered twice (ReplaceLayerType replaces it)`},
		{"bad range", LayerType{Name: "RegistryTestBadRange", Bottoms: Between(3, 1)}, "is not a range"},
	} {
		if err := RegisterLayerType(tt.t); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := ReplaceLayerType(LayerType{Name: "Convolution", New: newTimesW}); err == nil || !strings.Contains(err.Error(), "one of sparknet's") {
		t.Errorf("replacing Convolution: %v", err)
	}
	if err := RegisterLayer("RegistryTestNil", nil); err == nil {
		t.Error("a nil constructor was registered")
	}
	if (BlobCount{}).String() != "any number of" || !(BlobCount{}).Allows(7) || AtLeast(2).Allows(1) || !Between(1, 2).Allows(2) {
		t.Error("BlobCount")
	}
}

// timesW is a layer written outside the engine, as a program would: top =
// w·bottom with one learned scalar w (starting at 2), through the exported
// API only.
type timesW struct {
	w *Blob
}

func (l *timesW) Type() string { return "TimesW" }

func (l *timesW) Setup(bottom, top []*Blob) error {
	if len(bottom) != 1 || len(top) != 1 {
		return fmt.Errorf("TimesW takes one bottom and one top")
	}
	l.w = NewBlob()
	l.w.DataSlice()[0] = 2
	return l.Reshape(bottom, top)
}

func (l *timesW) Reshape(bottom, top []*Blob) error {
	top[0].ReshapeLike(bottom[0])
	return nil
}

func (l *timesW) Forward(bottom, top []*Blob) error {
	w := l.w.DataSlice()[0]
	y := top[0].DataSlice()
	for i, v := range bottom[0].DataSlice() {
		y[i] = w * v
	}
	return nil
}

func (l *timesW) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	w, x, dy := l.w.DataSlice()[0], bottom[0].DataSlice(), top[0].DiffSlice()
	var dw float32
	for i, g := range dy {
		dw += g * x[i]
	}
	l.w.DiffSlice()[0] += dw
	if len(propagateDown) > 0 && propagateDown[0] {
		dx := bottom[0].DiffSlice()
		for i, g := range dy {
			dx[i] = g * w
		}
	}
}

func (l *timesW) Params() []*Blob { return []*Blob{l.w} }

func newTimesW(*caffepb.LayerParameter, *LayerEnv) (Layer, error) { return &timesW{}, nil }

func init() {
	// Registered by name and constructor alone: no shape rule, any number
	// of blobs; its one parameter blob is found when it is set up.
	if err := RegisterLayer("TimesW", newTimesW); err != nil {
		panic(err)
	}
	// The same layer registered in full, with a shape rule.
	err := RegisterLayerType(LayerType{
		Name:    "TimesWRuled",
		Bottoms: Exactly(1), Tops: Exactly(1),
		New: newTimesW,
		Shape: func(c *ShapeContext) error {
			c.Params = []Shape{{}}
			c.SameShapes()
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	// A Go implementation of a pycaffe layer: Python layers naming
	// module "mylayers", layer "TimesW" run it.
	if err := RegisterLayer("mylayers.TimesW", newTimesW); err != nil {
		panic(err)
	}
}

// userNet is a net around a user layer of the given type: y = layer(x),
// loss = ‖y − target‖² / 2N.
func userNet(typ string) string {
	extra := ""
	if typ == "Python" {
		extra = `python_param { module: "mylayers" layer: "TimesW" param_str: "unused" }`
	} else if class, ok := strings.CutPrefix(typ, "Python:"); ok {
		module, layer, _ := strings.Cut(class, ".")
		typ, extra = "Python", fmt.Sprintf(`python_param { module: %q layer: %q }`, module, layer)
	}
	return input("x", 4, 3) + input("target", 4, 3) + fmt.Sprintf(`
layer { name: "user" type: %q bottom: "x" top: "y" %s }
layer { name: "loss" type: "EuclideanLoss" bottom: "y" bottom: "target" top: "loss" }`, typ, extra)
}

// A layer registered from user code works end to end: nets naming it
// process, summarise, build, run forward and backward, pass the gradient
// checker, train with a solver, and save and load their weights.
func TestUserLayerEndToEnd(t *testing.T) {
	for _, typ := range []string{"TimesW", "TimesWRuled", "Python"} {
		t.Run(typ, func(t *testing.T) {
			np := mustParseNet(t, userNet(typ))
			def, err := ProcessNet(np, NetState{Phase: Train})
			if err != nil {
				t.Fatal(err)
			}
			if known := def.Layer("user").ParamsKnown; known != (typ == "TimesWRuled") {
				t.Errorf("ParamsKnown %v before setup", known)
			}
			sum, err := Summarize(def, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !sum.ParamsKnown || sum.Params != 1 || !strings.Contains(strings.Join(strings.Fields(sum.String()), " "), "user "+typ+" y 4x3 1") {
				t.Errorf("summary (params %d, known %v):\n%s", sum.Params, sum.ParamsKnown, sum)
			}
			shapes, _ := InferShapes(def, nil)
			if got := shapes.Blobs["y"].String(); got != "4x3" {
				t.Errorf("y has shape %s", got)
			}

			net, err := NewNet(np, NetOptions{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := net.Def().Layer("user").Params; len(got) != 1 || len(net.LearnableParams()) != 1 {
				t.Fatalf("the net has %d parameters of the layer, %d learnable", len(got), len(net.LearnableParams()))
			}
			copy(net.Blob("x").DataSlice(), []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
			loss, err := net.ForwardBackward()
			if err != nil {
				t.Fatal(err)
			}
			// y = 2x, target 0: loss = Σ (2x)² / 2N = 4·650/8.
			if want := float32(4 * 650 / 8.0); loss != want {
				t.Errorf("loss %g, want %g", loss, want)
			}
			// dL/dw = Σ (w x)·x / N = 2·650/4.
			if got, want := net.Params("user")[0].DiffSlice()[0], float32(2*650/4.0); got != want {
				t.Errorf("dL/dw = %g, want %g", got, want)
			}

			l, _ := NewLayer(np.Layer[2], nil)
			x, y := randBlob(3, -1, 1, 2, 3), NewBlob()
			if err := l.Setup(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			if err := (GradientCheck{}).Run(l, blobs(x), blobs(y)); err != nil {
				t.Error(err)
			}

			path := filepath.Join(t.TempDir(), "user.caffemodel")
			net.Params("user")[0].DataSlice()[0] = 0.5
			if err := net.SaveWeights(path); err != nil {
				t.Fatal(err)
			}
			other, err := NewNet(np, NetOptions{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.LoadWeights(path); err != nil {
				t.Fatal(err)
			}
			if got := other.Params("user")[0].DataSlice()[0]; got != 0.5 {
				t.Errorf("loaded w = %g, want 0.5", got)
			}

			sp, err := ParseSolverParameter("solver.prototxt", []byte(`base_lr: 0.01 lr_policy: "fixed" type: "SGD"`))
			if err != nil {
				t.Fatal(err)
			}
			sp.NetParam = np
			s, err := NewSolver(sp, SolverOptions{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			copy(s.Net().Blob("x").DataSlice(), []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
			if err := s.Step(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			// w ← 2 − 0.01·325.
			if got := s.Net().Params("user")[0].DataSlice()[0]; got != 2-0.01*325 {
				t.Errorf("after one SGD step w = %g, want %g", got, 2-0.01*325)
			}
		})
	}
}

// ReplaceLayerType replaces a program's own type, as a shell cell that
// defines a layer does when it runs again: nets built after use the new
// constructor, under its old name and as a Python layer's.
func TestReplaceLayerType(t *testing.T) {
	build := func(typ string) Layer {
		t.Helper()
		net, err := NewNet(mustParseNet(t, userNet(typ)), NetOptions{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		return net.Layer("user")
	}
	if err := ReplaceLayerType(LayerType{Name: "RegistryTestReplaced", New: newTimesW}); err != nil {
		t.Fatal(err) // a new name: registered
	}
	if err := RegisterLayer("replaced.Layer", newTimesW); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"RegistryTestReplaced", "Python:replaced.Layer"} {
		if _, ok := build(typ).(*timesW); !ok {
			t.Fatalf("%s: not the first constructor's layer", typ)
		}
	}
	n := len(LayerTypeNames())
	newReLUAsUser := func(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) { return newReLU(def, env) }
	for _, name := range []string{"RegistryTestReplaced", "replaced.Layer"} {
		if err := ReplaceLayerType(LayerType{Name: name, New: newReLUAsUser}); err != nil {
			t.Fatal(err)
		}
	}
	if len(LayerTypeNames()) != n {
		t.Errorf("replacing added names: %d, then %d", n, len(LayerTypeNames()))
	}
	for _, typ := range []string{"RegistryTestReplaced", "Python:replaced.Layer"} {
		if l := build(typ); l.Type() != "ReLU" {
			t.Errorf("%s: the net has a %s layer, want the replacement's ReLU", typ, l.Type())
		}
	}
}

// A Python layer whose class has no Go implementation still processes
// and summarises; building the net says what to register.
func TestPythonLayerUnregistered(t *testing.T) {
	np := mustParseNet(t, input("x", 4, 3)+`
layer { name: "py" type: "Python" bottom: "x" top: "y" python_param { module: "losses" layer: "MyLoss" } }`)
	def, err := ProcessNet(np, NetState{Phase: Train})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Summarize(def, nil); err != nil || !strings.Contains(strings.Join(strings.Fields(s.String()), " "), "py Python y ? ?") {
		t.Errorf("summary %v:\n%s", err, s)
	}
	_, err = NewNet(np, NetOptions{})
	if err == nil || !strings.Contains(err.Error(), `register a Go layer under "losses.MyLoss" or "MyLoss"`) {
		t.Errorf("building: %v", err)
	}
}
