package caffe

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
)

func legacyBlob(n, c, h, w int32, data ...float32) *caffepb.BlobProto {
	return &caffepb.BlobProto{Num: proto.Int32(n), Channels: proto.Int32(c), Height: proto.Int32(h), Width: proto.Int32(w), Data: data}
}

func shapedBlob(dims []int64, data ...float32) *caffepb.BlobProto {
	return &caffepb.BlobProto{Shape: &caffepb.BlobShape{Dim: dims}, Data: data}
}

func TestBlobShapeAndShapeEquals(t *testing.T) {
	tests := []struct {
		name   string
		blob   *caffepb.BlobProto
		shape  []int // BlobShape
		equals [][]int
		differ [][]int
	}{
		{"legacy bias", legacyBlob(1, 1, 1, 20), []int{1, 1, 1, 20},
			[][]int{{20}, {1, 20}, {1, 1, 20}, {1, 1, 1, 20}}, [][]int{{20, 1}, {1, 1, 1, 1, 20}, {}}},
		{"legacy inner product", legacyBlob(1, 1, 500, 800), []int{1, 1, 500, 800},
			[][]int{{500, 800}}, [][]int{{800, 500}, {500 * 800}}},
		{"legacy conv", legacyBlob(20, 1, 5, 5), []int{20, 1, 5, 5},
			[][]int{{20, 1, 5, 5}}, [][]int{{20, 5, 5}}},
		{"legacy fields win over shape", &caffepb.BlobProto{Num: proto.Int32(2), Shape: &caffepb.BlobShape{Dim: []int64{7}}}, []int{2, 0, 0, 0},
			nil, [][]int{{7}}},
		{"shape", shapedBlob([]int64{20, 1, 5, 5}), []int{20, 1, 5, 5},
			[][]int{{20, 1, 5, 5}}, [][]int{{1, 20, 1, 5, 5}, {20, 5, 5}}},
		{"scalar", shapedBlob(nil), []int{},
			[][]int{{}}, [][]int{{1}}},
	}
	for _, tt := range tests {
		if got := BlobShape(tt.blob); !intsEqual(got, tt.shape) {
			t.Errorf("%s: BlobShape %v, want %v", tt.name, got, tt.shape)
		}
		for _, s := range tt.equals {
			if !format.ShapeEquals(tt.blob, s) {
				t.Errorf("%s: format.ShapeEquals(%v) = false", tt.name, s)
			}
		}
		for _, s := range tt.differ {
			if format.ShapeEquals(tt.blob, s) {
				t.Errorf("%s: format.ShapeEquals(%v) = true", tt.name, s)
			}
		}
	}
}

func TestBlobData(t *testing.T) {
	b := shapedBlob([]int64{2}, 1, 2)
	b.DoubleData = []float64{3, math.Pi}
	got, err := BlobData(b)
	if err != nil || !floatsEqual(got, 3, float32(math.Pi)) {
		t.Errorf("double_data not preferred: %v, %v", got, err)
	}
	if got, err := BlobData(shapedBlob([]int64{2}, 1, 2)); err != nil || !floatsEqual(got, 1, 2) {
		t.Errorf("data: %v, %v", got, err)
	}
	if got, err := BlobData(shapedBlob(nil, 7)); err != nil || !floatsEqual(got, 7) {
		t.Errorf("scalar: %v, %v", got, err)
	}
	errs := []struct {
		blob *caffepb.BlobProto
		want string
	}{
		{shapedBlob([]int64{2, 3}, 1, 2), "blob of shape [2 3] needs 6 values, has 2 data values"},
		{legacyBlob(1, 1, 1, 3, 1), "blob of shape [1 1 1 3] (legacy num/channels/height/width) needs 3 values, has 1"},
		{&caffepb.BlobProto{Shape: &caffepb.BlobShape{Dim: []int64{2}}, DoubleData: []float64{1}}, "has 1 double_data values"},
		{shapedBlob([]int64{-1, 2}), "negative dimension"},
		{shapedBlob([]int64{1 << 20, 1 << 20}), "more than 2147483647 elements"},
		{shapedBlob([]int64{1 << 40}), "more than 2147483647 elements"},
	}
	for _, tt := range errs {
		if _, err := BlobData(tt.blob); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("BlobData(%v): %v, want %q", tt.blob, err, tt.want)
		}
	}
}

func TestArrayBlobConversions(t *testing.T) {
	a := ndarray.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := BlobFromArray(a)
	if b.Num != nil || !intsEqual(BlobShape(b), []int{2, 3}) || !floatsEqual(b.Data, 1, 2, 3, 4, 5, 6) {
		t.Fatalf("BlobFromArray: %v", b)
	}
	a.Data()[0] = 9
	if b.Data[0] != 1 {
		t.Error("BlobFromArray shares the array's storage")
	}
	back, err := ArrayFromBlob(legacyBlob(1, 1, 2, 2, 1, 2, 3, 4))
	if err != nil || !intsEqual(back.Shape(), []int{1, 1, 2, 2}) || !floatsEqual(back.Data(), 1, 2, 3, 4) {
		t.Errorf("ArrayFromBlob: %v, %v", back, err)
	}
	if _, err := ArrayFromBlob(shapedBlob([]int64{3}, 1)); err == nil {
		t.Error("ArrayFromBlob accepted a short blob")
	}
}

// netArrays processes a shared net for TRAIN and allocates its parameters.
func netArrays(t *testing.T, rel string, inputs map[string][]int) (*NetDef, map[string][]*ndarray.Array) {
	t.Helper()
	np, err := LoadNetParameter(sharedFile(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	def, err := ProcessNet(np, NetState{Phase: Train})
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := InferShapes(def, inputs)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := NewParamArrays(def, shapes)
	if err != nil {
		t.Fatal(err)
	}
	return def, dst
}

var mnistInput = map[string][]int{"data": {64, 1, 28, 28}}

// Both trained LeNet files (current format, and V1 with legacy 4-D blobs)
// load by name into today's LeNet definition, and each gives exactly the
// values of its own decoded blobs. (The two files come from different
// training runs, so their values differ from each other.)
func TestCopyTrainedLeNet(t *testing.T) {
	want := map[string][]int{"conv1": {20, 1, 5, 5}, "conv2": {50, 20, 5, 5}, "ip1": {500, 800}, "ip2": {10, 500}}
	for _, file := range []string{"trained/lenet_iter_10000.caffemodel", "trained/lenet_v1_iter_10000.caffemodel"} {
		_, dst := netArrays(t, "mnist/lenet_train_test.prototxt", mnistInput)
		model, err := ReadCaffemodel(sharedFile(t, file))
		if err != nil {
			t.Fatal(err)
		}
		report, err := CopyWeights(model, dst)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if got := strings.Join(report.Copied, " "); got != "conv1 conv2 ip1 ip2" || len(report.Ignored)+len(report.Kept) != 0 {
			t.Errorf("%s: report %+v", file, report)
		}
		decoded, err := ModelWeights(model)
		if err != nil {
			t.Fatal(err)
		}
		for layer, shape := range want {
			arrays := dst[layer]
			if got := arrays[0].Shape(); !intsEqual(got, shape) {
				t.Errorf("%s: %s weights %v, want %v", file, layer, got, shape)
			}
			if got := arrays[1].Shape(); !intsEqual(got, shape[:1]) {
				t.Errorf("%s: %s bias %v", file, layer, got)
			}
			for i, a := range arrays {
				b := decoded[layer][i]
				if a.Size() != b.Size() || !floatsEqual(a.Data(), b.Data()...) {
					t.Errorf("%s: %s[%d] differs from the file's decoded blob", file, layer, i)
				}
				if allZero(a.Data()) {
					t.Errorf("%s: %s[%d] was not loaded", file, layer, i)
				}
			}
		}
	}
}

func allZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func TestCopyTrainedCIFAR10(t *testing.T) {
	_, dst := netArrays(t, "cifar10/cifar10_quick_train_test.prototxt", map[string][]int{"data": {100, 3, 32, 32}})
	model, err := ReadCaffemodel(sharedFile(t, "trained/cifar10_quick_v1_iter_4000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	report, err := CopyWeights(model, dst)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(report.Copied, " "); got != "conv1 conv2 conv3 ip1 ip2" {
		t.Errorf("copied %s", got)
	}
	if got := dst["ip1"][0].Shape(); !intsEqual(got, []int{64, 1024}) {
		t.Errorf("ip1 weights %v", got)
	}
	if allZero(dst["ip1"][0].Data()) || allZero(dst["conv3"][1].Data()) {
		t.Error("weights not loaded")
	}
}

func TestCopyWeightsErrors(t *testing.T) {
	lenet, err := ReadCaffemodel(sharedFile(t, "trained/lenet_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	_, cifar := netArrays(t, "cifar10/cifar10_quick_train_test.prototxt", map[string][]int{"data": {1, 3, 32, 32}})
	_, err = CopyWeights(lenet, cifar)
	want := `caffe: cannot copy blob 0 of layer "conv1": the weights have shape [20 1 5 5], the net's parameter has shape [32 3 5 5]; to learn this layer from scratch instead, rename it`
	if err == nil || err.Error() != want {
		t.Errorf("error\n  %v\nwant\n  %s", err, want)
	}
	for layer, arrays := range cifar {
		for i, a := range arrays {
			if !allZero(a.Data()) {
				t.Errorf("%s[%d] changed by a failed copy", layer, i)
			}
		}
	}

	v1, _ := ReadCaffemodel(sharedFile(t, "trained/lenet_v1_iter_10000.caffemodel"))
	_, dst := netArrays(t, "mnist/lenet_train_test.prototxt", mnistInput)
	dst["ip2"] = dst["ip2"][:1]
	if _, err := CopyWeights(v1, dst); err == nil || !strings.Contains(err.Error(), `layer "ip2": the weights have 2 blobs, the net's layer has 1 parameters`) {
		t.Errorf("blob count: %v", err)
	}
	dst["ip2"] = []*ndarray.Array{ndarray.New(10, 501), ndarray.New(10)}
	if _, err := CopyWeights(v1, dst); err == nil || !strings.Contains(err.Error(), `blob 0 of layer "ip2": the weights have shape [1 1 10 500] (legacy num/channels/height/width), the net's parameter has shape [10 501]`) {
		t.Errorf("legacy shape mismatch: %v", err)
	}

	// Unknown source layers are ignored; destination layers missing from
	// the source are kept.
	_, dst = netArrays(t, "mnist/lenet_train_test.prototxt", mnistInput)
	model := &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{
		{Name: proto.String("other"), Blobs: []*caffepb.BlobProto{shapedBlob([]int64{1}, 1)}},
		{Name: proto.String("ip2"), Blobs: []*caffepb.BlobProto{shapedBlob([]int64{10, 500}, make([]float32, 5000)...), shapedBlob([]int64{10}, make([]float32, 10)...)}},
	}}
	report, err := CopyWeights(model, dst)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(report.Ignored, ",") != "other" || strings.Join(report.Copied, ",") != "ip2" || strings.Join(report.Kept, ",") != "conv1,conv2,ip1" {
		t.Errorf("report %+v", report)
	}
}

// The snapshot of LeNet that Caffe wrote is what NetDef.Proto writes for
// the same net and weights, byte for byte.
func TestNetProtoMatchesCaffeSnapshot(t *testing.T) {
	path := sharedFile(t, "trained/lenet_iter_10000.caffemodel")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	model, err := format.ParseCaffemodel(path, orig)
	if err != nil {
		t.Fatal(err)
	}
	def, dst := netArrays(t, "mnist/lenet_train_test.prototxt", mnistInput)
	if _, err := CopyWeights(model, dst); err != nil {
		t.Fatal(err)
	}
	out, err := format.EncodeBinary(def.Proto(dst))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, orig) {
		t.Errorf("NetDef.Proto encodes to %d bytes that differ from Caffe's %d-byte snapshot", len(out), len(orig))
	}
}

func TestNewParamArraysSharing(t *testing.T) {
	def := mustProcess(t, input("a", 2, 6)+input("b", 2, 3)+`
layer { name: "x" type: "InnerProduct" bottom: "a" top: "x" param { name: "w" } inner_product_param { num_output: 2 } }
layer { name: "y" type: "InnerProduct" bottom: "a" top: "y" param { name: "w" } inner_product_param { num_output: 2 } }
layer { name: "z" type: "InnerProduct" bottom: "b" top: "z" param { name: "w" share_mode: PERMISSIVE } inner_product_param { num_output: 4 bias_term: false } }`, NetState{})
	shapes, err := InferShapes(def, nil)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := NewParamArrays(def, shapes)
	if err != nil {
		t.Fatal(err)
	}
	if dst["x"][0] != dst["y"][0] || dst["x"][1] == dst["y"][1] {
		t.Error("strictly shared weights must be one array, biases separate")
	}
	dst["x"][0].Data()[0] = 5
	if z := dst["z"][0]; !intsEqual(z.Shape(), []int{4, 3}) || z.Data()[0] != 5 {
		t.Errorf("permissive sharer %v does not share storage", z.Shape())
	}
	if got, ok := dst["in_a"]; !ok || len(got) != 0 {
		t.Errorf("a layer without parameters must map to an empty list, got %v, %v", got, ok)
	}
	// Unknown shapes cannot be allocated.
	np := mustParseNet(t, `layer { name: "d" type: "Data" top: "data" data_param { batch_size: 1 } } layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }`)
	def, _ = ProcessNet(np, NetState{})
	shapes, _ = InferShapes(def, nil)
	if _, err := NewParamArrays(def, shapes); err == nil || !strings.Contains(err.Error(), `layer "ip" (InnerProduct): the shape of parameter 0 is unknown`) {
		t.Errorf("error %v", err)
	}
}

// A scalar parameter (PReLU's channel_shared slope) has Caffe's shape, no
// dimensions, in its blob, its weight collection and the .caffemodel, so
// that models load both ways: Caffe's files, written with "shape {}", load
// into sparknet's nets, and LoadNet finds the input shape of a net saved
// by sparknet from the weights.
func TestScalarParamShape(t *testing.T) {
	src := `name: "n"
layer { name: "data" type: "Data" top: "data" top: "label" data_param { source: "unused" batch_size: 4 } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 3 } }
layer { name: "prelu" type: "PReLU" bottom: "ip" top: "act" prelu_param { channel_shared: true } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "act" bottom: "label" top: "loss" }`
	dir := t.TempDir()
	def := filepath.Join(dir, "n.prototxt")
	if err := os.WriteFile(def, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	np := mustParseNet(t, src)
	if _, err := ReplaceDataLayers(np, 1, 5, 5); err != nil {
		t.Fatal(err)
	}
	net, err := NewNet(np, NetOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	net.Params("prelu")[0].DataSlice()[0] = 0.5
	if got := net.Weights().Get("prelu")[0].Shape(); len(got) != 0 {
		t.Errorf("the slope's array has shape %v, want []", got)
	}
	model := filepath.Join(dir, "n.caffemodel")
	if err := net.SaveWeights(model); err != nil {
		t.Fatal(err)
	}
	saved, err := ReadCaffemodel(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range saved.Layer {
		if l.GetName() == "prelu" {
			if b := l.Blobs[0]; b.Shape == nil || len(b.Shape.Dim) != 0 || len(b.Data) != 1 {
				t.Errorf("the saved slope is %v, want shape {} and one value", b)
			}
		}
	}
	loaded, err := LoadNet(def, model)
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Params("prelu")[0].DataSlice()[0]; got != 0.5 {
		t.Errorf("LoadNet: slope %g, want 0.5", got)
	}
	if got := loaded.Blob("data").Shape(); len(got) != 4 || got[1] != 1 || got[2] != 5 || got[3] != 5 {
		t.Errorf("LoadNet found the input shape %v, want N×1×5×5", got)
	}
}
