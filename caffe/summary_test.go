package caffe

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// summarize loads a net, processes it for state and summarises it.
func summarize(t *testing.T, path string, state NetState, inputs map[string][]int) *Summary {
	t.Helper()
	np, err := LoadNetParameter(path)
	if err != nil {
		t.Fatal(err)
	}
	def, err := ProcessNet(np, state)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(def, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The summaries of the reference nets, with parameter totals checked
// against the published sizes of these models.
func TestSummaryGolden(t *testing.T) {
	imagenet := func(n, side int) map[string][]int { return map[string][]int{"data": {n, 3, side, side}} }
	tests := []struct {
		name   string
		path   string
		state  NetState
		inputs map[string][]int
		params int64 // 0: not checked
	}{
		{"lenet_train", "mnist/lenet_train_test.prototxt", NetState{Phase: Train}, mnistInput, 431080},
		{"lenet_test_unknown_input", "mnist/lenet_train_test.prototxt", NetState{Phase: Test}, nil, 0},
		{"cifar10_quick_test", "cifar10/cifar10_quick_train_test.prototxt", NetState{Phase: Test}, map[string][]int{"data": {100, 3, 32, 32}}, 145578},
		{"alexnet_deploy", "testdata/bvlc_alexnet/deploy.prototxt", NetState{Phase: Test}, nil, 60965224},
		{"alexnet_train_val", "testdata/bvlc_alexnet/train_val.prototxt", NetState{Phase: Train}, imagenet(256, 227), 60965224},
		{"caffenet_deploy", "testdata/bvlc_reference_caffenet/deploy.prototxt", NetState{Phase: Test}, nil, 60965224},
		{"caffenet_train_val", "testdata/bvlc_reference_caffenet/train_val.prototxt", NetState{Phase: Test}, imagenet(50, 227), 60965224},
		{"googlenet_deploy", "testdata/bvlc_googlenet/deploy.prototxt", NetState{Phase: Test}, nil, 6998552},
		{"googlenet_train_val", "testdata/bvlc_googlenet/train_val.prototxt", NetState{Phase: Test}, imagenet(50, 224), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if !strings.HasPrefix(path, "testdata/") {
				path = sharedFile(t, path)
			}
			s := summarize(t, path, tt.state, tt.inputs)
			if tt.params != 0 && (!s.ParamsKnown || s.Params != tt.params) {
				t.Errorf("%d parameters (known %v), want %d", s.Params, s.ParamsKnown, tt.params)
			}
			checkGolden(t, filepath.Join("testdata", "summary", tt.name+".golden"), s.String())
		})
	}
}

// GoogLeNet's training net: inception blocks concatenate four branches, and
// two auxiliary heads add their losses with weight 0.3.
func TestSummaryGoogLeNetStructure(t *testing.T) {
	s := summarize(t, "testdata/bvlc_googlenet/train_val.prototxt", NetState{Phase: Train}, map[string][]int{"data": {32, 3, 224, 224}})
	shapes := map[string]string{}
	types := map[string]string{}
	for _, r := range s.Rows {
		types[r.Layer] = r.Type
		for i, top := range r.Tops {
			shapes[top] = r.Shapes[i].String()
		}
	}
	want := map[string]string{
		"conv1/7x7_s2":        "32x64x112x112",
		"pool2/3x3_s2":        "32x192x28x28",
		"inception_3a/output": "32x256x28x28",
		"inception_3b/output": "32x480x28x28",
		"inception_4a/output": "32x512x14x14",
		"loss1/ave_pool":      "32x512x4x4",
		"inception_4e/output": "32x832x14x14",
		"inception_5b/output": "32x1024x7x7",
		"pool5/7x7_s1":        "32x1024x1x1",
		"loss1/loss1":         "scalar",
		"loss2/loss1":         "scalar",
		"loss3/loss3":         "scalar",
	}
	for blob, shape := range want {
		if shapes[blob] != shape {
			t.Errorf("%s: %s, want %s", blob, shapes[blob], shape)
		}
	}
	for layer, typ := range map[string]string{"inception_4a/output": "Concat", "pool1/norm1": "LRN", "loss1/drop_fc": "Dropout", "loss2/loss": "SoftmaxWithLoss"} {
		if types[layer] != typ {
			t.Errorf("layer %s has type %q, want %s", layer, types[layer], typ)
		}
	}
	// Deploy plus the two auxiliary heads.
	if want := int64(6998552 + 3188840 + 3190888); s.Params != want {
		t.Errorf("%d parameters, want %d", s.Params, want)
	}
	np, _ := LoadNetParameter("testdata/bvlc_googlenet/train_val.prototxt")
	def, _ := ProcessNet(np, NetState{Phase: Train})
	var weights []string
	for _, l := range def.Layers {
		if l.Type == "SoftmaxWithLoss" {
			weights = append(weights, strconv.FormatFloat(float64(l.LossWeights[0]), 'g', -1, 32))
		}
	}
	if got := strings.Join(weights, " "); got != "0.3 0.3 1" {
		t.Errorf("loss weights %s", got)
	}
}

// Every net under the shared folder summarises, in both phases and for
// every stage its rules name; data tops stay unknown without input shapes.
func TestSummariseSharedNets(t *testing.T) {
	for _, path := range sharedPrototxts(t) {
		if isSolver(path) {
			continue
		}
		np, err := LoadNetParameter(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, state := range statesOf(np) {
			def, err := ProcessNet(np, state)
			if err != nil {
				t.Errorf("%s (%v): %v", path, state, err)
				continue
			}
			s, err := Summarize(def, nil)
			if err != nil {
				t.Errorf("%s (%v): %v", path, state, err)
				continue
			}
			if len(s.Rows) == 0 || !strings.Contains(s.String(), "Total params: ") {
				t.Errorf("%s: empty summary", path)
			}
		}
	}
}

// statesOf returns the states to build a net in: each phase, or, where the
// net's include rules for a phase name stages, each of those stages.
func statesOf(np *caffepb.NetParameter) []NetState {
	var states []NetState
	for _, ph := range []Phase{Train, Test} {
		var stages []string
		seen := map[string]bool{}
		for _, l := range np.Layer {
			for _, r := range l.Include {
				if r.Phase != nil && Phase(r.GetPhase()) != ph {
					continue
				}
				for _, st := range r.Stage {
					if !seen[st] {
						seen[st] = true
						stages = append(stages, st)
					}
				}
			}
		}
		if len(stages) == 0 {
			states = append(states, NetState{Phase: ph})
		}
		for _, st := range stages {
			states = append(states, NetState{Phase: ph, Stages: []string{st}})
		}
	}
	return states
}

func BenchmarkSummarizeGoogLeNet(b *testing.B) {
	np, err := LoadNetParameter("testdata/bvlc_googlenet/train_val.prototxt")
	if err != nil {
		b.Fatal(err)
	}
	inputs := map[string][]int{"data": {32, 3, 224, 224}}
	b.ReportAllocs()
	for b.Loop() {
		def, err := ProcessNet(np, NetState{Phase: Train})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Summarize(def, inputs); err != nil {
			b.Fatal(err)
		}
	}
}
