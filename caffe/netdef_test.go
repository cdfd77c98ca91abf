package caffe

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// layerNames lists a processed net's layers as name:type.
func layerNames(def *NetDef) string {
	var s []string
	for _, l := range def.Layers {
		s = append(s, l.Name)
	}
	return strings.Join(s, " ")
}

func TestNetStateRules(t *testing.T) {
	net := `
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 1 } } }
layer { name: "train" type: "ReLU" bottom: "x" top: "x" include { phase: TRAIN } }
layer { name: "test" type: "ReLU" bottom: "x" top: "x" include { phase: TEST } }
layer { name: "lvl2" type: "ReLU" bottom: "x" top: "x" include { min_level: 2 } }
layer { name: "upto1" type: "ReLU" bottom: "x" top: "x" include { max_level: 1 } }
layer { name: "st_ab" type: "ReLU" bottom: "x" top: "x" include { stage: "a" stage: "b" } }
layer { name: "a_or_c" type: "ReLU" bottom: "x" top: "x" include { stage: "a" } include { stage: "c" } }
layer { name: "not_b" type: "ReLU" bottom: "x" top: "x" include { not_stage: "b" } }
layer { name: "ex_test" type: "ReLU" bottom: "x" top: "x" exclude { phase: TEST } }
layer { name: "ex_a_lvl" type: "ReLU" bottom: "x" top: "x" exclude { stage: "a" min_level: 1 } }
`
	tests := []struct {
		state NetState
		want  string
	}{
		{NetState{Phase: Train}, "in train upto1 not_b ex_test ex_a_lvl"},
		{NetState{Phase: Test}, "in test upto1 not_b ex_a_lvl"},
		{NetState{Phase: Train, Level: 2}, "in train lvl2 not_b ex_test ex_a_lvl"},
		{NetState{Phase: Test, Stages: []string{"a"}}, "in test upto1 a_or_c not_b ex_a_lvl"},
		{NetState{Phase: Test, Level: 1, Stages: []string{"a", "b"}}, "in test upto1 st_ab a_or_c"},
		{NetState{Phase: Train, Stages: []string{"c"}}, "in train upto1 a_or_c not_b ex_test ex_a_lvl"},
	}
	np := mustParseNet(t, net)
	for _, tt := range tests {
		def, err := ProcessNet(np, tt.state)
		if err != nil {
			t.Fatal(err)
		}
		if got := layerNames(def); got != tt.want {
			t.Errorf("%v: layers %s\nwant %s", tt.state, got, tt.want)
		}
		for _, l := range def.Layers {
			if l.Param.GetPhase() != caffepb.Phase(tt.state.Phase) {
				t.Errorf("%v: layer %s has phase %v", tt.state, l.Name, l.Param.GetPhase())
			}
		}
	}
}

func TestLayerKeepsItsOwnPhase(t *testing.T) {
	def := mustProcess(t, `
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 1 } } }
layer { name: "drop" type: "Dropout" bottom: "x" top: "x" phase: TEST }`, NetState{Phase: Train})
	if got := def.Layers[1].Param.GetPhase(); got != caffepb.Phase_TEST {
		t.Errorf("phase %v, want TEST", got)
	}
	if got := def.Layers[0].Param.GetPhase(); got != caffepb.Phase_TRAIN {
		t.Errorf("phase %v, want TRAIN", got)
	}
}

// The LeNet test net needs splits for the label and for ip2, named as Caffe
// names them.
func TestSplitInsertionLeNet(t *testing.T) {
	np, err := LoadNetParameter(sharedFile(t, "mnist/lenet_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	def, err := ProcessNet(np, NetState{Phase: Test})
	if err != nil {
		t.Fatal(err)
	}
	want := "mnist label_mnist_1_split conv1 pool1 conv2 pool2 ip1 relu1 ip2 ip2_ip2_0_split accuracy loss"
	if got := layerNames(def); got != want {
		t.Fatalf("layers %s\nwant   %s", got, want)
	}
	split := def.Layer("ip2_ip2_0_split")
	if split.Type != "Split" || split.Source != -1 || strings.Join(split.Bottoms, ",") != "ip2" ||
		strings.Join(split.Tops, ",") != "ip2_ip2_0_split_0,ip2_ip2_0_split_1" {
		t.Errorf("split %+v", split)
	}
	if acc := def.Layer("accuracy"); strings.Join(acc.Bottoms, ",") != "ip2_ip2_0_split_0,label_mnist_1_split_0" {
		t.Errorf("accuracy reads %v", acc.Bottoms)
	}
	if loss := def.Layer("loss"); strings.Join(loss.Bottoms, ",") != "ip2_ip2_0_split_1,label_mnist_1_split_1" {
		t.Errorf("loss reads %v", loss.Bottoms)
	}
	if got := strings.Join(def.Outputs, ","); got != "accuracy,loss" {
		t.Errorf("outputs %s", got)
	}
	if len(def.Inputs) != 0 {
		t.Errorf("inputs %v", def.Inputs)
	}
	// The source layers are not changed.
	if np.Layer[9].Bottom[0] != "ip2" {
		t.Error("ProcessNet changed its input")
	}
}

func TestSplitWithLossWeight(t *testing.T) {
	def := mustProcess(t, `
layer { name: "in" type: "Input" top: "x" top: "y" input_param { shape { dim: 2 dim: 3 } } }
layer { name: "sq" type: "EuclideanLoss" bottom: "x" bottom: "y" top: "l" }
layer { name: "p" type: "Power" bottom: "x" top: "px" loss_weight: 0.5 }
layer { name: "use" type: "ReLU" bottom: "px" top: "r" }
layer { name: "in_place" type: "ReLU" bottom: "r" top: "r" }`, NetState{Phase: Train})
	want := "in x_in_0_split sq p px_p_0_split use in_place"
	if got := layerNames(def); got != want {
		t.Fatalf("layers %s, want %s", got, want)
	}
	split := def.Layer("px_p_0_split")
	if !floatsEqual(split.LossWeights, 0.5, 0) || strings.Join(split.Tops, ",") != "px_p_0_split_0,px_p_0_split_1" {
		t.Errorf("split %v with weights %v", split.Tops, split.LossWeights)
	}
	if p := def.Layer("p"); !floatsEqual(p.LossWeights, 0) || len(p.Param.LossWeight) != 0 {
		t.Errorf("the split takes over p's loss weight; p has %v", p.LossWeights)
	}
	if got := def.Layer("use").Bottoms[0]; got != "px_p_0_split_1" {
		t.Errorf("use reads %s", got)
	}
	if sq := def.Layer("sq"); !floatsEqual(sq.LossWeights, 1) || sq.Param.LossWeight[0] != 1 {
		t.Errorf("loss layer weights %v", sq.LossWeights)
	}
	if got := strings.Join(def.Outputs, ","); got != "l,px_p_0_split_0,r" {
		t.Errorf("outputs %s", got)
	}
	if got := strings.Join(def.Inputs, ","); got != "x,y" {
		t.Errorf("inputs %s", got)
	}
}

func floatsEqual(got []float32, want ...float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestParamSharing(t *testing.T) {
	def := mustProcess(t, `
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 2 dim: 3 } } }
layer { name: "a" type: "InnerProduct" bottom: "x" top: "a" param { name: "w" } param { lr_mult: 2 decay_mult: 0 } inner_product_param { num_output: 4 } }
layer { name: "b" type: "InnerProduct" bottom: "x" top: "b" param { name: "w" lr_mult: 3 } inner_product_param { num_output: 4 bias_term: false } }
layer { name: "c" type: "InnerProduct" bottom: "x" top: "c" param { name: "w" lr_mult: 3 decay_mult: 5 } inner_product_param { num_output: 4 bias_term: false } }`, NetState{})
	if len(def.Params) != 4 {
		t.Fatalf("%d params, want 4", len(def.Params))
	}
	a0, a1, b0, c0 := def.Params[0], def.Params[1], def.Params[2], def.Params[3]
	if a0.Owner != -1 || a1.Owner != -1 || b0.Owner != 0 || c0.Owner != 0 {
		t.Errorf("owners %d %d %d %d", a0.Owner, a1.Owner, b0.Owner, c0.Owner)
	}
	if got := def.Learnable; len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("learnable %v", got)
	}
	// The owner left lr_mult and decay_mult unset, so the sharers set them.
	for _, p := range []*ParamDef{a0, b0, c0} {
		if p.LrMult != 3 || p.DecayMult != 5 || p.Learnable != 0 {
			t.Errorf("shared param of layer %d: lr %v decay %v learnable %d", p.Layer, p.LrMult, p.DecayMult, p.Learnable)
		}
	}
	if a1.LrMult != 2 || a1.DecayMult != 0 || a1.Name != "" {
		t.Errorf("a's bias %+v", a1)
	}
	if got := def.Layer("b").Params; len(got) != 1 || got[0] != 2 {
		t.Errorf("b's params %v", got)
	}
}

func TestBatchNormParams(t *testing.T) {
	net := `layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 2 dim: 3 } } }
layer { name: "bn" type: "BatchNorm" bottom: "x" top: "x" %s }`
	def := mustProcess(t, strings.Replace(net, "%s", "", 1), NetState{})
	bn := def.Layer("bn")
	if len(bn.Params) != 3 || len(bn.Param.Param) != 3 {
		t.Fatalf("BatchNorm params %v, specs %v", bn.Params, bn.Param.Param)
	}
	for _, id := range bn.Params {
		if p := def.Params[id]; p.LrMult != 0 || p.DecayMult != 1 {
			t.Errorf("BatchNorm param lr %v decay %v", p.LrMult, p.DecayMult)
		}
	}
	_, err := ProcessNet(mustParseNet(t, strings.Replace(net, "%s", "param { lr_mult: 1 }", 1)), NetState{})
	if err == nil || !strings.Contains(err.Error(), "BatchNorm statistics cannot be learned") {
		t.Errorf("error %v", err)
	}
}

func TestProcessNetErrors(t *testing.T) {
	const in = `layer { name: "in" type: "Input" top: "data" top: "label" input_param { shape { dim: 1 } } }` + "\n"
	tests := []struct {
		name  string
		src   string
		state NetState
		want  string
	}{
		{"unknown bottom", in + `layer { name: "ip" type: "InnerProduct" bottom: "dta" top: "ip" inner_product_param { num_output: 1 } }`, NetState{},
			`test.prototxt:2:1: layer "ip" (InnerProduct): unknown bottom blob "dta" (bottom 0) (did you mean "data"?); blobs produced before it: data, label`},
		{"bottom from an excluded layer", in + `layer { name: "r" type: "ReLU" bottom: "data" top: "x" include { phase: TRAIN } }
layer { name: "s" type: "ReLU" bottom: "x" top: "y" }`, NetState{Phase: Test},
			`test.prototxt:3:1: layer "s" (ReLU): bottom blob "x" is produced only by layers the net state (phase TEST) leaves out: r`},
		{"duplicate top", in + `layer { name: "a" type: "ReLU" bottom: "data" top: "label" }`, NetState{},
			`test.prototxt:2:1: layer "a" (ReLU): top blob "label" is produced by more than one layer`},
		{"include and exclude", in + `layer { name: "a" type: "ReLU" bottom: "data" top: "data" include { phase: TRAIN } exclude { phase: TEST } }`, NetState{},
			`test.prototxt:2:1: layer "a" (ReLU): has both include and exclude rules`},
		{"unknown type", in + "layer {\n  name: \"conv1\"\n  type: \"Convolutoin\"\n  bottom: \"data\"\n  top: \"c\"\n}", NetState{},
			`test.prototxt:2:1: layer "conv1" (Convolutoin): unknown layer type "Convolutoin" (did you mean "Convolution"?); known types: AbsVal, Accuracy,`},
		{"wrong bottom count", in + `layer { name: "e" type: "Eltwise" bottom: "data" top: "e" }`, NetState{},
			`layer "e" (Eltwise): takes at least 2 bottom blobs, has 1`},
		{"wrong top count", in + `layer { name: "r" type: "ReLU" bottom: "data" }`, NetState{},
			`layer "r" (ReLU): takes exactly 1 top blobs, has 0`},
		{"loss weights per top", in + `layer { name: "r" type: "ReLU" bottom: "data" top: "r" loss_weight: 1 loss_weight: 2 }`, NetState{},
			`loss_weight must be given 0 times or once per top (1 tops), not 2 times`},
		{"too many params", in + `layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" param {} param {} param {} inner_product_param { num_output: 1 } }`, NetState{},
			`layer "ip" (InnerProduct): has 3 param entries but only 2 parameter blobs`},
		{"shared lr mismatch", in + `layer { name: "a" type: "Bias" bottom: "data" top: "a" param { name: "p" lr_mult: 1 } }
layer { name: "b" type: "Bias" bottom: "data" top: "b" param { name: "p" lr_mult: 2 } }`, NetState{},
			`shared param "p" has lr_mult 2 here but 1 in layer "a"`},
		{"propagate_down count", in + `layer { name: "r" type: "ReLU" bottom: "data" top: "r" propagate_down: true propagate_down: false }`, NetState{},
			`propagate_down must be given 0 times or once per bottom (1), not 2 times`},
		{"conv tops per bottom", in + `layer { name: "c" type: "Convolution" bottom: "data" top: "c" top: "d" convolution_param { num_output: 1 kernel_size: 1 } }`, NetState{},
			`needs one top per bottom, has 1 bottoms and 2 tops`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ProcessNet(mustParseNet(t, tt.src), tt.state)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
		})
	}
}

// Layers built in code have no position; errors name them by index.
func TestProcessNetErrorWithoutPosition(t *testing.T) {
	np := &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{
		{Name: proto.String("r"), Type: proto.String("ReLU"), Bottom: []string{"nothing"}, Top: []string{"r"}},
	}}
	_, err := ProcessNet(np, NetState{})
	var pe *ParseError
	if err == nil || errors.As(err, &pe) || !strings.HasPrefix(err.Error(), `caffe: layer 0 "r" (ReLU): unknown bottom blob "nothing"`) {
		t.Errorf("error %v", err)
	}
	if _, err := ProcessNet(nil, NetState{}); err == nil {
		t.Error("nil net accepted")
	}
}

// A legacy definition given to ProcessNet directly is upgraded on a copy.
func TestProcessNetUpgradesLegacy(t *testing.T) {
	np := &caffepb.NetParameter{}
	src := `input: "x" input_dim: 1 input_dim: 1 input_dim: 2 input_dim: 2 layers { name: "r" type: RELU bottom: "x" top: "x" }`
	if err := ParseText("legacy", []byte(src), np); err != nil {
		t.Fatal(err)
	}
	def, err := ProcessNet(np, NetState{})
	if err != nil {
		t.Fatal(err)
	}
	if got := layerNames(def); got != "input r" || len(np.Layers) != 1 {
		t.Errorf("layers %s; source has %d legacy layers", got, len(np.Layers))
	}
}

func TestNetStateOfAndPhase(t *testing.T) {
	np := mustParseNet(t, `state { level: 3 stage: "x" }`)
	if s := NetStateOf(np); s.Phase != Test || s.Level != 3 || len(s.Stages) != 1 {
		t.Errorf("state %+v", s)
	}
	if s := NetStateOf(&caffepb.NetParameter{}); s.Phase != Test {
		t.Errorf("default phase %v, want TEST as in Caffe", s.Phase)
	}
	for in, want := range map[string]Phase{"TRAIN": Train, "test": Test} {
		if p, err := ParsePhase(in); err != nil || p != want {
			t.Errorf("ParsePhase(%q) = %v, %v", in, p, err)
		}
	}
	if _, err := ParsePhase("VALIDATE"); err == nil {
		t.Error("ParsePhase accepted VALIDATE")
	}
	if got := (NetState{Phase: Train, Level: 2, Stages: []string{"a", "b"}}).String(); got != "phase TRAIN, level 2, stages a,b" {
		t.Errorf("String() = %q", got)
	}
}

// A V0 layer type that Caffe's upgrade maps to NONE becomes the empty type,
// which processing refuses as unknown.
func TestProcessRefusesUnupgradableType(t *testing.T) {
	np, err := LoadNetParameter(filepath.Join("format", "testdata", "upgrade", "v0_train.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ProcessNet(np, NetState{Phase: Train}); err == nil || !strings.Contains(err.Error(), `unknown layer type ""`) {
		t.Errorf("processing a net with a type Caffe cannot upgrade: %v", err)
	}
}
