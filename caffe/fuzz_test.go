package caffe

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
)

// FuzzParseText feeds arbitrary text to the net and solver parsers and
// processes what parses: errors are fine, panics and hangs are not, and
// whatever parses prints and parses back to the same message.
func FuzzParseText(f *testing.F) {
	f.Add([]byte(`name: "n" layer { name: "a" type: "Input" top: "x" input_param { shape: { dim: 1 dim: 2 } } }`))
	f.Add([]byte("layers { type: CONVOLUTION bottom: 'x' top: \"y\" blobs_lr: 1. } input: \"x\" input_dim: 1 input_dim: 1 input_dim: 2 input_dim: 2"))
	f.Add([]byte("# c\nnet_param < layer [ ] > test_iter: [1, 0x2, 07] base_lr: -1e-4f ; solver_type: 3, type: 'x\\n\\101'"))
	f.Add([]byte(`layers { layer { name: "p" type: "padding" pad: 1 } bottom: "d" top: "p" } layers { layer { type: "conv" kernelsize: 3 } bottom: "p" top: "c" } input: "d"`))
	f.Add([]byte(`layer { name: "c" type: "Convolution" bottom: "x" top: "c" param { name: "w" } convolution_param { num_output: 2 kernel_size: 3 group: 1 } include { phase: TRAIN stage: "s" } }
layer { name: "p" type: "Pooling" bottom: "c" top: "p" pooling_param { pool: MAX kernel_size: 2 stride: 2 pad: 1 } }
layer { name: "l" type: "SoftmaxWithLoss" bottom: "p" bottom: "x" top: "l" loss_weight: 0.5 }`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if np, err := ParseNetParameter("fuzz", src); err == nil {
			checkTextRoundTrip(t, np)
			for _, ph := range []Phase{Train, Test} {
				if def, err := ProcessNet(np, NetState{Phase: ph}); err == nil {
					if s, err := Summarize(def, nil); err == nil {
						_ = s.String()
					}
				}
			}
		}
		if sp, err := ParseSolverParameter("fuzz", src); err == nil {
			checkTextRoundTrip(t, sp)
			// Nets named by path would be read from disk; keep to inline ones.
			if sp.Net == nil && sp.TrainNet == nil && len(sp.TestNet) == 0 {
				TrainNetParameter(sp)
				TestNetParameters(sp)
			}
		}
	})
}

func checkTextRoundTrip(t *testing.T, m proto.Message) {
	back := m.ProtoReflect().New().Interface()
	if err := ParseText("formatted", []byte(FormatText(m)), back); err != nil {
		t.Fatalf("formatted text does not parse: %v\n%s", err, FormatText(m))
	}
	if !proto.Equal(m, back) && !hasNaN(FormatText(m)) {
		t.Fatalf("formatted text parses to a different message:\n%s", FormatText(m))
	}
}

// hasNaN reports whether formatted text holds a NaN, which never equals
// itself.
func hasNaN(s string) bool { return strings.Contains(s, ": nan\n") || strings.Contains(s, ": -nan\n") }

// FuzzReadCaffemodel feeds arbitrary bytes to the binary reader and the
// upgrade, then loads what parses into LeNet: errors are fine, panics are
// not, and what parses encodes and decodes to the same message.
func FuzzReadCaffemodel(f *testing.F) {
	small := &caffepb.NetParameter{
		Name: proto.String("n"),
		Layers: []*caffepb.V1LayerParameter{{
			Name: proto.String("ip1"), Type: caffepb.V1LayerParameter_INNER_PRODUCT.Enum(),
			Blobs:   []*caffepb.BlobProto{{Num: proto.Int32(1), Channels: proto.Int32(1), Height: proto.Int32(2), Width: proto.Int32(2), Data: []float32{1, 2, 3, 4}}},
			BlobsLr: []float32{1},
		}},
		Input:    []string{"x"},
		InputDim: []int32{1, 1, 2, 2},
	}
	if b, err := proto.Marshal(small); err == nil {
		f.Add(b)
	}
	current := &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{{
		Name:  proto.String("ip2"),
		Type:  proto.String("BatchNorm"),
		Param: []*caffepb.ParamSpec{{}, {}, {}},
		Blobs: []*caffepb.BlobProto{{Shape: &caffepb.BlobShape{Dim: []int64{2}}, DoubleData: []float64{1, 2}}},
	}}}
	if b, err := proto.Marshal(current); err == nil {
		f.Add(b)
	}
	f.Add([]byte{0xa2, 0x06, 0x05, 0x0a, 0x03, 'i', 'p', '1'})
	f.Fuzz(func(t *testing.T, data []byte) {
		np, err := format.ParseCaffemodel("fuzz", data)
		if err != nil {
			return
		}
		out, err := format.EncodeBinary(np)
		if err != nil {
			return
		}
		back, err := format.ParseCaffemodel("again", out)
		if err != nil {
			t.Fatalf("re-encoded model does not decode: %v", err)
		}
		if !proto.Equal(np, back) {
			t.Fatal("re-encoded model decodes to a different message")
		}
		ModelWeights(np)
		dst := map[string][]*ndarray.Array{
			"ip1": {ndarray.New(2, 2)},
			"ip2": {ndarray.New(2)},
		}
		CopyWeights(np, dst)
	})
}
