package format

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func TestParseTextSyntax(t *testing.T) {
	f32 := proto.Float32
	str := proto.String
	u32 := proto.Uint32
	tests := []struct {
		name string
		src  string
		want proto.Message
	}{
		{
			name: "comments, blank lines and fields on one line",
			src:  "# a net\n\nname: \"n\" # trailing comment\nforce_backward: true debug_info: false\n",
			want: &caffepb.NetParameter{Name: str("n"), ForceBackward: proto.Bool(true), DebugInfo: proto.Bool(false)},
		},
		{
			name: "blocks with and without colon, and angle brackets",
			src:  "layer { name: 'a' include: { phase: TRAIN } exclude < stage: \"s\" > }",
			want: &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{{
				Name:    str("a"),
				Include: []*caffepb.NetStateRule{{Phase: caffepb.Phase_TRAIN.Enum()}},
				Exclude: []*caffepb.NetStateRule{{Stage: []string{"s"}}},
			}}},
		},
		{
			name: "lists, separators and repeated fields",
			src:  "layer { top: [\"a\", 'b']; top: \"c\", bottom: [] loss_weight: [1, 0.5] param: [{lr_mult: 1}, <lr_mult: 2>] }",
			want: &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{{
				Top:        []string{"a", "b", "c"},
				LossWeight: []float32{1, 0.5},
				Param:      []*caffepb.ParamSpec{{LrMult: f32(1)}, {LrMult: f32(2)}},
			}}},
		},
		{
			name: "enums by name and by number",
			src:  "layer { phase: 1 pooling_param { pool: AVE } }",
			want: &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{{
				Phase:        caffepb.Phase_TEST.Enum(),
				PoolingParam: &caffepb.PoolingParameter{Pool: caffepb.PoolingParameter_AVE.Enum()},
			}}},
		},
		{
			name: "legacy layers with enum types",
			src:  "layers { type: CONVOLUTION blobs_lr: 1 blobs_lr: 2 }",
			want: &caffepb.NetParameter{Layers: []*caffepb.V1LayerParameter{{
				Type:    caffepb.V1LayerParameter_CONVOLUTION.Enum(),
				BlobsLr: []float32{1, 2},
			}}},
		},
		{
			name: "float forms",
			src:  "mean_value: 1. mean_value: .5 mean_value: 1e-4 mean_value: 2.5f mean_value: -3 mean_value: 5e-05 mean_value: 0.00390625 mean_value: 1E2 mean_value: inf mean_value: -Infinity",
			want: &caffepb.TransformationParameter{MeanValue: []float32{1, 0.5, 1e-4, 2.5, -3, 5e-5, 0.00390625, 100,
				float32(math.Inf(1)), float32(math.Inf(-1))}},
		},
		{
			// Caffe nets write learning rates and decays this way; protobuf's
			// tokenizer takes digits . digits* for every length of the
			// integer part.
			name: "floats with several integer digits",
			src:  "param { lr_mult: 10.5 decay_mult: 250. } param { lr_mult: 35.0 decay_mult: 100.25e1 } param { lr_mult: 12.f }",
			want: &caffepb.LayerParameter{Param: []*caffepb.ParamSpec{{LrMult: f32(10.5), DecayMult: f32(250)}, {LrMult: f32(35), DecayMult: f32(1002.5)}, {LrMult: f32(12)}}},
		},
		{
			name: "float overflow becomes infinity",
			src:  "scale: 1e39",
			want: &caffepb.TransformationParameter{Scale: f32(float32(math.Inf(1)))},
		},
		{
			name: "integer forms",
			src:  "num_output: 0x1F pad: 010 pad: 0 kernel_size: 4294967295 axis: -2",
			want: &caffepb.ConvolutionParameter{NumOutput: u32(31), Pad: []uint32{8, 0}, KernelSize: []uint32{4294967295}, Axis: proto.Int32(-2)},
		},
		{
			name: "int64 limits",
			src:  "random_seed: -9223372036854775808 test_iter: 2147483647 test_iter: -2147483648",
			want: &caffepb.SolverParameter{RandomSeed: proto.Int64(math.MinInt64), TestIter: []int32{math.MaxInt32, math.MinInt32}},
		},
		{
			name: "boolean forms",
			src:  "layer { propagate_down: true propagate_down: True propagate_down: t propagate_down: 1 propagate_down: false propagate_down: False propagate_down: f propagate_down: 0 }",
			want: &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{{
				PropagateDown: []bool{true, true, true, true, false, false, false, false},
			}}},
		},
		{
			name: "strings: escapes and adjacent literals",
			src:  `name: "a\"b\'c\\d\n\t\x41\101\u00e9" 'x' "y" type: ""`,
			want: &caffepb.LayerParameter{Name: str("a\"b'c\\d\n\tAAéxy"), Type: str("")},
		},
		{
			// As protobuf's C++ tokenizer: a lone surrogate is encoded as it
			// is, a \U head surrogate pairs with a \u trail, and code points
			// past U+10FFFF stay as their escape.
			name: "unicode escapes",
			src:  `data: "\ud800x\U0001F600\U0000d83d\ude00\U00110000"`,
			want: &caffepb.Datum{Data: []byte("\xed\xa0\x80x\U0001F600\U0001F600\\U00110000")},
		},
		{
			name: "bytes field",
			src:  `data: "\000\377abc"`,
			want: &caffepb.Datum{Data: []byte{0, 0xff, 'a', 'b', 'c'}},
		},
		{
			name: "empty input",
			src:  "  # nothing\n",
			want: &caffepb.NetParameter{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.want.ProtoReflect().New().Interface()
			if err := ParseText("test.prototxt", []byte(tt.src), got); err != nil {
				t.Fatalf("ParseText: %v", err)
			}
			if !proto.Equal(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestParseTextNaN(t *testing.T) {
	var tp caffepb.TransformationParameter
	if err := ParseText("t", []byte("scale: nan mean_value: -NaN"), &tp); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(tp.GetScale())) || !math.IsNaN(float64(tp.MeanValue[0])) {
		t.Errorf("got %v, %v; want NaN", tp.GetScale(), tp.MeanValue)
	}
}

func TestParseTextErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		msg  proto.Message
		want string // the whole error must contain this
	}{
		{"unknown field lists valid fields", "layer {\n  nmae: \"x\"\n}", &caffepb.NetParameter{},
			`test.prototxt:2:3: unknown field "nmae" in caffe.LayerParameter (did you mean "name"?); valid fields: accuracy_param, argmax_param,`},
		{"unclosed block", "layer {\n  name: \"a\"\n  convolution_param { num_output: 2 }\nlayer { name: \"b\" }", &caffepb.NetParameter{},
			`test.prototxt:4:1: unknown field "layer" in caffe.LayerParameter (is a "}" missing? "layer" is a field of caffe.NetParameter, and the caffe.LayerParameter opened at 1:7 is still open)`},
		{"unclosed nested block", "layer {\n  convolution_param {\n    num_output: 2\n  name: \"b\"\n}", &caffepb.NetParameter{},
			`test.prototxt:4:3: unknown field "name" in caffe.ConvolutionParameter (is a "}" missing? "name" is a field of caffe.LayerParameter, and the caffe.ConvolutionParameter opened at 2:21 is still open)`},
		{"unknown top-level field", "layer {}\nlayerz {}", &caffepb.NetParameter{},
			`test.prototxt:2:1: unknown field "layerz" in caffe.NetParameter`},
		{"current field in a legacy block", "layers { param { lr_mult: 1 } }", &caffepb.NetParameter{},
			`expected ":" after field "param"`},
		{"field of the current format in legacy layers", "layers { convolution_parm {} }", &caffepb.NetParameter{},
			`unknown field "convolution_parm" in caffe.V1LayerParameter (did you mean "convolution_param"?)`},
		{"missing colon before scalar", "name \"x\"", &caffepb.NetParameter{},
			`test.prototxt:1:6: expected ":" after field "name", found "x"`},
		{"unclosed block", "layer {\n  name: \"a\"\n", &caffepb.NetParameter{},
			`test.prototxt:3:1: unexpected end of file: missing "}" to close the caffe.LayerParameter opened at 1:7`},
		{"mismatched delimiter", "layer < name: \"a\" }", &caffepb.NetParameter{},
			`test.prototxt:1:19: expected ">" to close the caffe.LayerParameter opened at 1:7, found "}"`},
		{"stray closing brace", "name: \"a\" }", &caffepb.NetParameter{},
			`test.prototxt:1:11: unexpected "}": no message is open here`},
		{"unknown enum name", "layer { pooling_param { pool: MAXX } }", &caffepb.NetParameter{},
			`test.prototxt:1:31: unknown value MAXX for enum field "pool" (caffe.PoolingParameter.PoolMethod) (did you mean "MAX"?); valid values: MAX=0, AVE=1, STOCHASTIC=2`},
		{"unknown enum number", "layer { phase: 7 }", &caffepb.NetParameter{},
			`unknown value 7 for enum field "phase" (caffe.Phase); valid values: TRAIN=0, TEST=1`},
		{"enum given as string", `layer { phase: "TRAIN" }`, &caffepb.NetParameter{},
			`test.prototxt:1:16: expected a name or number for enum field "phase" (caffe.Phase), found "TRAIN"; write enum values without quotes`},
		{"uint32 out of range", "num_output: 4294967296", &caffepb.ConvolutionParameter{},
			`test.prototxt:1:13: integer 4294967296 out of range for field "num_output" (uint32)`},
		{"negative unsigned", "num_output: -1", &caffepb.ConvolutionParameter{},
			`expected a non-negative integer for field "num_output" (uint32), found "-"`},
		{"int32 out of range", "axis: 2147483648", &caffepb.ConvolutionParameter{},
			`integer 2147483648 out of range for field "axis" (int32)`},
		{"float for integer", "num_output: 1.5", &caffepb.ConvolutionParameter{},
			`expected a non-negative integer for field "num_output" (uint32), found "1.5"`},
		{"hex for float", "scale: 0x10", &caffepb.TransformationParameter{},
			`expected a decimal number for field "scale" (float), found "0x10"`},
		{"word for float", "scale: big", &caffepb.TransformationParameter{},
			`expected a number for field "scale" (float), found "big"`},
		{"legacy enum type in a current layer", "layer { type: CONVOLUTION }", &caffepb.NetParameter{},
			`test.prototxt:1:15: expected a quoted string for field "type", found "CONVOLUTION"; CONVOLUTION is a legacy "layers" type, write type: "Convolution"`},
		{"identifier for string", "name: conv1", &caffepb.LayerParameter{},
			`test.prototxt:1:7: expected a quoted string for field "name", found "conv1"`},
		{"bad boolean", "mirror: yes", &caffepb.TransformationParameter{},
			`invalid value "yes" for boolean field "mirror"; use true or false`},
		{"bad boolean number", "mirror: 2", &caffepb.TransformationParameter{},
			`invalid value 2 for boolean field "mirror"`},
		{"singular field twice", "name: \"a\"\nname: \"b\"", &caffepb.LayerParameter{},
			`test.prototxt:2:1: field "name" of caffe.LayerParameter is given more than once; it is not repeated`},
		{"singular message twice", "convolution_param {} convolution_param {}", &caffepb.LayerParameter{},
			`field "convolution_param" of caffe.LayerParameter is given more than once`},
		{"list for singular field", "name: [\"a\"]", &caffepb.LayerParameter{},
			`expected a quoted string for field "name", found "["`},
		{"bad list separator", "top: [\"a\" \"b\"; ]", &caffepb.LayerParameter{},
			`expected "," or "]" in the list of field "top", found ";"`},
		{"leading zero", "num_output: 08", &caffepb.ConvolutionParameter{},
			`test.prototxt:1:13: numbers starting with a leading zero must be octal`},
		{"number glued to a word", "kernel_size: 5stride: 1", &caffepb.ConvolutionParameter{},
			`test.prototxt:1:15: need a space between number and identifier`},
		{"two decimal points", "scale: 1.2.3", &caffepb.TransformationParameter{},
			`already saw a decimal point or exponent`},
		{"hex float", "scale: 0x1.5", &caffepb.TransformationParameter{},
			`hex and octal numbers must be integers`},
		{"byte order mark", "\xef\xbb\xbfname: \"n\"", &caffepb.NetParameter{},
			`test.prototxt:1:1: the file starts with a UTF-8 byte order mark, which Caffe cannot read`},
		{"NUL in a string", "name: \"a\x00b\"", &caffepb.NetParameter{},
			`test.prototxt:1:9: NUL character in string literal`},
		{"escape past U+10FFFF", `name: "\U00200000"`, &caffepb.NetParameter{},
			`test.prototxt:1:8: expected 8 hex digits up to 10ffff for \U escape sequence`},
		{"octal float", "scale: 017.5", &caffepb.TransformationParameter{},
			`test.prototxt:1:11: hex and octal numbers must be integers`},
		{"two decimal points after several digits", "scale: 10.5.1", &caffepb.TransformationParameter{},
			`test.prototxt:1:12: already saw a decimal point or exponent`},
		{"exponent without digits", "scale: 1e", &caffepb.TransformationParameter{},
			`"e" must be followed by an exponent`},
		{"unterminated string", "name: \"abc", &caffepb.LayerParameter{},
			`test.prototxt:1:7: unexpected end of file in string`},
		{"string across lines", "name: \"a\nb\"", &caffepb.LayerParameter{},
			`test.prototxt:1:9: string literals cannot cross line boundaries`},
		{"bad escape", `name: "a\qb"`, &caffepb.LayerParameter{},
			`test.prototxt:1:9: invalid escape sequence \q in string literal`},
		{"bad hex escape", `name: "\xg"`, &caffepb.LayerParameter{},
			`expected hex digits for \x escape sequence`},
		{"extension syntax", "[caffe.foo]: 1", &caffepb.LayerParameter{},
			`extension and Any fields ([...]) are not supported`},
		{"control character", "name: \"a\"\x01", &caffepb.LayerParameter{},
			`test.prototxt:1:10: invalid control character 0x01 in text`},
		{"non-ASCII outside strings", "name: \"a\" é", &caffepb.LayerParameter{},
			`test.prototxt:1:11: unexpected character 'é' outside a string or comment`},
		{"missing required field", "clip_param { min: 0 }", &caffepb.LayerParameter{},
			`test.prototxt: incomplete message: required field caffe.ClipParameter.max not set`},
		{"value missing at end", "name:", &caffepb.LayerParameter{},
			`test.prototxt:1:6: expected a quoted string for field "name", found end of file`},
		{"block for scalar", "name { }", &caffepb.LayerParameter{},
			`expected ":" after field "name", found "{"`},
		{"scalar for block", "convolution_param: 5", &caffepb.LayerParameter{},
			`expected "{" to begin the caffe.ConvolutionParameter of field "convolution_param", found "5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ParseText("test.prototxt", []byte(tt.src), tt.msg)
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "caffe: test.prototxt") {
				t.Errorf("error %q does not start with the package and file", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
		})
	}
}

// The shared files are real Caffe files: each must parse, and parse to the
// same message as protobuf's own text parser reads from it.
func TestParseSharedFilesAgreesWithPrototext(t *testing.T) {
	for _, path := range sharedPrototxts(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got, want proto.Message = &caffepb.NetParameter{}, &caffepb.NetParameter{}
		if isSolver(path) {
			got, want = &caffepb.SolverParameter{}, &caffepb.SolverParameter{}
		}
		if err := ParseText(path, src, got); err != nil {
			t.Errorf("%v", err)
			continue
		}
		if err := prototext.Unmarshal(src, want); err != nil {
			t.Fatalf("%s: prototext: %v", path, err)
		}
		if !proto.Equal(got, want) {
			t.Errorf("%s: ParseText and prototext disagree", path)
		}
	}
}

// FormatText's output must parse back to the same message, and the files
// Caffe's own printer wrote (its upgrade tool made them) must come out byte
// for byte.
func TestFormatTextRoundTrip(t *testing.T) {
	byCaffe := map[string]bool{
		"lenet_train_test.prototxt":         true,
		"cifar10_quick_train_test.prototxt": true,
		"cifar10_full_train_test.prototxt":  true,
	}
	for _, path := range sharedPrototxts(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m, back proto.Message = &caffepb.NetParameter{}, &caffepb.NetParameter{}
		if isSolver(path) {
			m, back = &caffepb.SolverParameter{}, &caffepb.SolverParameter{}
		}
		if err := ParseText(path, src, m); err != nil {
			t.Fatal(err)
		}
		out := FormatText(m)
		if err := ParseText(path+" (formatted)", []byte(out), back); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !proto.Equal(m, back) {
			t.Errorf("%s: formatted text parses to a different message", path)
		}
		if byCaffe[filepath.Base(path)] && out != string(src) {
			t.Errorf("%s: FormatText differs from Caffe's output:\n%s", path, out)
		}
	}
}

func TestFormatTextStyle(t *testing.T) {
	np := &caffepb.NetParameter{
		Name: proto.String("n"),
		Layer: []*caffepb.LayerParameter{{
			Name:  proto.String("conv"),
			Type:  proto.String("Convolution"),
			Phase: caffepb.Phase_TEST.Enum(),
			Param: []*caffepb.ParamSpec{{LrMult: proto.Float32(1)}},
			Top:   []string{"a"},
			ConvolutionParam: &caffepb.ConvolutionParameter{
				NumOutput:    proto.Uint32(20),
				KernelSize:   []uint32{5},
				WeightFiller: &caffepb.FillerParameter{Type: proto.String("gaussian"), Std: proto.Float32(0.01)},
			},
		}},
	}
	want := `name: "n"
layer {
  name: "conv"
  type: "Convolution"
  top: "a"
  param {
    lr_mult: 1
  }
  phase: TEST
  convolution_param {
    num_output: 20
    kernel_size: 5
    weight_filler {
      type: "gaussian"
      std: 0.01
    }
  }
}
`
	if got := FormatText(np); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormatScalars(t *testing.T) {
	floats := []struct {
		v    float32
		want string
	}{
		{1, "1"},
		{0.1, "0.1"},
		{1e-8, "1e-08"},
		{0.00390625, "0.00390625"},
		{100000, "100000"},
		{1e6, "1e+06"},
		{-2.5, "-2.5"},
		{1.0 / 255, "0.00392156886"}, // six digits do not read back
		{float32(math.Inf(1)), "inf"},
		{float32(math.Inf(-1)), "-inf"},
		{float32(math.NaN()), "nan"},
	}
	for _, tt := range floats {
		if got := formatFloat32(tt.v); got != tt.want {
			t.Errorf("formatFloat32(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	doubles := []struct {
		v    float64
		want string
	}{
		{0.1, "0.1"},
		{1.0 / 3, "0.33333333333333331"},
		{1e-300, "1e-300"},
	}
	for _, tt := range doubles {
		if got := formatFloat64(tt.v); got != tt.want {
			t.Errorf("formatFloat64(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if got, want := cEscape([]byte("a\"b'c\\\n\r\t\x01\xc3\xa9")), `a\"b\'c\\\n\r\t\001\303\251`; got != want {
		t.Errorf("cEscape = %s, want %s", got, want)
	}
}

func TestParseNetParameterUpgradesAndRemembersPositions(t *testing.T) {
	np := mustParseNet(t, "name: \"n\"\ninput: \"data\"\ninput_dim: 1\ninput_dim: 2\ninput_dim: 3\ninput_dim: 4\nlayers {\n  name: \"r\"\n  type: RELU\n  bottom: \"data\"\n  top: \"data\"\n}\n")
	if len(np.Layers) != 0 || len(np.Input) != 0 || len(np.Layer) != 2 {
		t.Fatalf("not upgraded:\n%s", FormatText(np))
	}
	if got := np.Layer[0].GetType(); got != "Input" {
		t.Errorf("first layer type %q, want Input", got)
	}
	if pos := LayerPos(np.Layer[1]); pos.Line != 7 || pos.Col != 1 {
		t.Errorf("upgraded layer position %v, want line 7 col 1", pos)
	}
}
