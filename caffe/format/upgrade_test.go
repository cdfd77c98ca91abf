package format

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// checkGolden compares got with the golden file, or rewrites it with
// -update.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}

func loadTestNet(t *testing.T, name string) *caffepb.NetParameter {
	t.Helper()
	np, err := LoadNetParameter(filepath.Join("testdata", "upgrade", name))
	if err != nil {
		t.Fatal(err)
	}
	return np
}

func TestUpgradeGolden(t *testing.T) {
	for _, name := range []string{"v0_net", "v0_train", "v1_legacy"} {
		t.Run(name, func(t *testing.T) {
			np := loadTestNet(t, name+".prototxt")
			if NetNeedsUpgrade(np) {
				t.Error("still needs an upgrade after loading")
			}
			checkGolden(t, filepath.Join("testdata", "upgrade", name+".golden.prototxt"), FormatText(np))
		})
	}
}

func TestUpgradeV0(t *testing.T) {
	np := loadTestNet(t, "v0_net.prototxt")
	var names []string
	for _, l := range np.Layer {
		names = append(names, l.GetName()+":"+l.GetType())
	}
	want := "input:Input conv1:Convolution relu1:ReLU pool1:Pooling norm1:LRN fc:InnerProduct drop:Dropout prob:Softmax"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("layers %s\nwant   %s", got, want)
	}
	conv := np.Layer[1]
	if !intsEqualU(conv.GetConvolutionParam().Pad, 2) || conv.Bottom[0] != "data" {
		t.Errorf("padding not folded into conv1: pad %v, bottom %v", conv.GetConvolutionParam().Pad, conv.Bottom)
	}
	cp := conv.GetConvolutionParam()
	if cp.GetNumOutput() != 16 || !intsEqualU(cp.KernelSize, 5) || !intsEqualU(cp.Stride, 1) || cp.GetGroup() != 1 || cp.GetBiasTerm() {
		t.Errorf("convolution_param %v", cp)
	}
	if len(conv.Param) != 1 || conv.Param[0].GetLrMult() != 1 || conv.Param[0].GetDecayMult() != 1 {
		t.Errorf("conv1 params %v", conv.Param)
	}
	pool := np.Layer[3].GetPoolingParam()
	if pool.GetPool() != caffepb.PoolingParameter_AVE || pool.GetKernelSize() != 3 || pool.GetStride() != 2 || pool.Pad != nil {
		t.Errorf("pooling_param %v", pool)
	}
	lrn := np.Layer[4].GetLrnParam()
	if lrn.GetLocalSize() != 3 || lrn.GetAlpha() != 5e-5 || lrn.GetK() != 2 {
		t.Errorf("lrn_param %v", lrn)
	}
	fc := np.Layer[5]
	if fc.GetInnerProductParam().GetBiasFiller().GetValue() != 0.1 || len(fc.Param) != 2 || fc.Param[1].GetLrMult() != 2 || fc.Param[1].GetDecayMult() != 0 {
		t.Errorf("fc %v", fc)
	}
	if np.Layer[6].GetDropoutParam().GetDropoutRatio() != 0.3 {
		t.Errorf("dropout %v", np.Layer[6])
	}
	in := np.Layer[0].GetInputParam().GetShape()
	if len(in) != 1 || len(in[0].Dim) != 4 || in[0].Dim[1] != 3 {
		t.Errorf("input shape %v", in)
	}
}

func intsEqualU(got []uint32, want ...uint32) bool {
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

func TestUpgradeV0DataLayers(t *testing.T) {
	np := loadTestNet(t, "v0_train.prototxt")
	data := np.Layer[0]
	dp, tp := data.GetDataParam(), data.GetTransformParam()
	if dp.GetSource() != "train_db" || dp.GetBatchSize() != 64 || dp.GetRandSkip() != 10 || dp.CropSize != nil || dp.Scale != nil {
		t.Errorf("data_param %v", dp)
	}
	if tp.GetMeanFile() != "mean.binaryproto" || tp.GetCropSize() != 27 || !tp.GetMirror() || tp.GetScale() != 0.5 {
		t.Errorf("transform_param %v", tp)
	}
	img := np.Layer[1].GetImageDataParam()
	if np.Layer[1].GetType() != "ImageData" || img.GetSource() != "list.txt" || img.GetBatchSize() != 8 ||
		img.GetNewHeight() != 40 || img.GetNewWidth() != 30 || !img.GetShuffle() {
		t.Errorf("image data layer %v", np.Layer[1])
	}
	if got := np.Layer[2].GetType(); got != "" || np.Layer[2].Type == nil {
		t.Errorf("unknown V0 type became %q; want the empty type of V1's NONE", got)
	}
	if ip := np.Layer[3]; ip.GetConvolutionParam() != nil || ip.GetInnerProductParam().GetNumOutput() != 10 {
		t.Errorf("kernelsize of an innerproduct layer must be dropped: %v", ip)
	}
	if c := np.Layer[4].GetConcatParam(); c.ConcatDim == nil || c.GetConcatDim() != 1 {
		t.Errorf("concat_param %v", c)
	}
}

func TestUpgradeV1(t *testing.T) {
	np := loadTestNet(t, "v1_legacy.prototxt")
	data := np.Layer[0]
	if dp := data.GetDataParam(); dp.Scale != nil || dp.MeanFile != nil || dp.CropSize != nil || dp.Mirror != nil || dp.GetSource() != "db" {
		t.Errorf("data_param keeps deprecated fields: %v", dp)
	}
	if tp := data.GetTransformParam(); tp.GetScale() != 0.00390625 || tp.GetMeanFile() != "mean.binaryproto" || tp.GetCropSize() != 24 || !tp.GetMirror() {
		t.Errorf("transform_param %v", tp)
	}
	if len(data.Include) != 1 || data.Include[0].GetPhase() != caffepb.Phase_TRAIN {
		t.Errorf("include %v", data.Include)
	}
	a := np.Layer[1]
	want := []*caffepb.ParamSpec{
		{Name: proto.String("shared_w"), ShareMode: caffepb.ParamSpec_STRICT.Enum(), LrMult: proto.Float32(1), DecayMult: proto.Float32(1)},
		{Name: proto.String("shared_b"), ShareMode: caffepb.ParamSpec_PERMISSIVE.Enum(), LrMult: proto.Float32(2), DecayMult: proto.Float32(0)},
	}
	if len(a.Param) != 2 || !proto.Equal(a.Param[0], want[0]) || !proto.Equal(a.Param[1], want[1]) {
		t.Errorf("params %v", a.Param)
	}
	if loss := np.Layer[3]; loss.GetType() != "EuclideanLoss" || len(loss.LossWeight) != 1 || loss.LossWeight[0] != 2 {
		t.Errorf("loss layer %v", loss)
	}
}

// The legacy LeNet and CIFAR-10 definitions upgrade to exactly the files
// upstream Caffe ships in the current format.
func TestUpgradeMatchesUpstream(t *testing.T) {
	tests := []struct{ legacy, current string }{
		{"trained/lenet_v1_train_test.prototxt", "mnist/lenet_train_test.prototxt"},
	}
	for _, tt := range tests {
		np, err := LoadNetParameter(sharedFile(t, tt.legacy))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(sharedFile(t, tt.current))
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatText(np); got != string(want) {
			t.Errorf("%s upgraded:\n%s\nwant %s", tt.legacy, got, tt.current)
		}
	}
	// The CIFAR-10 V1 net differs from today's only in its LevelDB source.
	v1, err := LoadNetParameter(sharedFile(t, "trained/cifar10_quick_v1_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := LoadNetParameter(sharedFile(t, "cifar10/cifar10_quick_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cur.Layer {
		if i < 2 {
			v1.Layer[i].DataParam = cur.Layer[i].DataParam
		}
	}
	if !proto.Equal(v1, cur) {
		t.Errorf("upgraded CIFAR-10 quick net differs:\n%s", FormatText(v1))
	}
}

func TestUpgradeInputs(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    string // the input layer, formatted; "" for none
		wantErr string
	}{
		{"input_dim", `input: "a" input: "b" input_dim: 1 input_dim: 2 input_dim: 3 input_dim: 4 input_dim: 5 input_dim: 6 input_dim: 7 input_dim: 8`,
			"name: \"input\"\ntype: \"Input\"\ntop: \"a\"\ntop: \"b\"\ninput_param {\n  shape {\n    dim: 1\n    dim: 2\n    dim: 3\n    dim: 4\n  }\n  shape {\n    dim: 5\n    dim: 6\n    dim: 7\n    dim: 8\n  }\n}\n", ""},
		{"input_shape", `input: "a" input_shape { dim: 2 dim: 3 }`,
			"name: \"input\"\ntype: \"Input\"\ntop: \"a\"\ninput_param {\n  shape {\n    dim: 2\n    dim: 3\n  }\n}\n", ""},
		{"inputs without dimensions are dropped", `input: "a"`, "", ""},
		{"too few input_dim", `input: "a" input: "b" input_dim: 1 input_dim: 2 input_dim: 3 input_dim: 4`, "", "2 inputs but 4 input_dim values"},
		{"too few input_shape", `input: "a" input: "b" input_shape { dim: 1 }`, "", "2 inputs but 1 input_shape entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src + ` layer { name: "r" type: "ReLU" bottom: "a" top: "a" }`
			np, err := ParseNetParameter("in.prototxt", []byte(src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(np.Input)+len(np.InputDim)+len(np.InputShape) != 0 {
				t.Errorf("net-level inputs left: %v", np)
			}
			if tt.want == "" {
				if len(np.Layer) != 1 {
					t.Errorf("layers %v, want only the ReLU", np.Layer)
				}
				return
			}
			if got := FormatText(np.Layer[0]); got != tt.want || np.Layer[1].GetName() != "r" {
				t.Errorf("input layer\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestUpgradeBatchNorm(t *testing.T) {
	np := mustParseNet(t, `
layer { name: "bn3" type: "BatchNorm" param { lr_mult: 0 } param { lr_mult: 0 } param { lr_mult: 0 } }
layer { name: "bn2" type: "BatchNorm" param { lr_mult: 0 } param { lr_mult: 0 } }`)
	for _, p := range np.Layer[0].Param {
		if p.LrMult == nil || p.GetLrMult() != 0 || p.DecayMult == nil || p.GetDecayMult() != 0 {
			t.Errorf("three-param BatchNorm not upgraded: %v", p)
		}
	}
	for _, p := range np.Layer[1].Param {
		if p.DecayMult != nil {
			t.Errorf("two-param BatchNorm changed: %v", p)
		}
	}
	if NetNeedsUpgrade(np) {
		t.Error("an upgraded BatchNorm net still needs an upgrade")
	}
}

func TestUpgradeRefusesMixedFormats(t *testing.T) {
	_, err := ParseNetParameter("mixed.prototxt", []byte(`name: "m" layer { name: "a" } layers { name: "b" }`))
	if err == nil || !strings.Contains(err.Error(), `both current "layer" and legacy "layers"`) || !strings.Contains(err.Error(), "mixed.prototxt") {
		t.Errorf("error %v", err)
	}
}

func TestUpgradeSolverType(t *testing.T) {
	tests := []struct {
		src, want, err string
	}{
		{"solver_type: ADAM", "Adam", ""},
		{"solver_type: 1", "Nesterov", ""},
		{"solver_type: SGD", "SGD", ""},
		{"solver_type: RMSPROP", "RMSProp", ""},
		{"solver_type: ADADELTA", "AdaDelta", ""},
		{"solver_type: ADAGRAD", "AdaGrad", ""},
		{"type: \"Adam\"", "Adam", ""},
		{"solver_type: ADAM type: \"Adam\"", "", "both solver_type"},
	}
	for _, tt := range tests {
		sp, err := ParseSolverParameter("s.prototxt", []byte(tt.src))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.src, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if sp.GetType() != tt.want || sp.SolverType != nil {
			t.Errorf("%s: type %q, solver_type %v", tt.src, sp.GetType(), sp.SolverType)
		}
	}
}

// A binary V1 model is upgraded like text: types, params and legacy blob
// dims carried over.
func TestUpgradeBinaryV1(t *testing.T) {
	np, err := ReadCaffemodel(sharedFile(t, "trained/lenet_v1_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	conv := np.Layer[1]
	if conv.GetName() != "conv1" || conv.GetType() != "Convolution" || len(conv.Blobs) != 2 ||
		len(conv.Param) != 2 || conv.Param[1].GetLrMult() != 2 {
		t.Fatalf("conv1 %v", FormatText(&caffepb.LayerParameter{Name: conv.Name, Type: conv.Type, Param: conv.Param}))
	}
	if got := BlobShape(conv.Blobs[1]); !slices.Equal(got, []int{1, 1, 1, 20}) {
		t.Errorf("legacy bias shape %v", got)
	}
}

// Layers of a V0 net keep the file and line they were written at through
// the upgrade, and errors found while upgrading name them.
func TestUpgradeV0KeepsPositions(t *testing.T) {
	const net = `name: "n"
input: "data"
input_dim: 1 input_dim: 1 input_dim: 8 input_dim: 8
layers {
  layer { name: "conv1" type: "conv" num_output: 2 kernelsize: 3 }
  bottom: "data" top: "conv1"
}
layers {
  layer { name: "loss" type: "softmax_loss" }
  bottom: "conv1" bottom: "%s" top: "loss"
}
`
	np, err := ParseNetParameter("v0.prototxt", fmt.Appendf(nil, net, "conv1"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range map[int]int{1: 4, 2: 8} {
		if pos := LayerPos(np.Layer[i]); pos.File != "v0.prototxt" || pos.Line != line {
			t.Errorf("layer %q at %v, want v0.prototxt:%d", np.Layer[i].GetName(), pos, line)
		}
	}
	_, err = ParseNetParameter("v0.prototxt", fmt.Appendf(nil, net, "label"))
	if want := `caffe: v0.prototxt:8:1: layer "loss": upgrading a V0 net: unknown bottom blob "label"`; err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}
