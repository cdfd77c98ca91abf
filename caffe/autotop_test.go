package caffe

import (
	"strings"
	"testing"
)

// autoTopNet is written as older Caffe nets are: the loss layers name no
// top.
const autoTopNet = `name: "auto"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: 4 dim: 3 } shape { dim: 4 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" }
layer { name: "ip2" type: "InnerProduct" bottom: "data" top: "ip2" inner_product_param { num_output: 3 } }
layer { name: "loss2" type: "EuclideanLoss" bottom: "ip" bottom: "ip2" loss_weight: 0.5 }
`

// A loss layer without a top gets an anonymous one, as Caffe's
// AutoTopBlobs adds it: the net builds, its loss counts with the layer's
// weight, and the blob is neither an output nor readable by name.
func TestLossLayerAutoTop(t *testing.T) {
	n := mustNet(t, autoTopNet, NetOptions{Threads: 1})
	def := n.Def()
	var tops []string
	for _, l := range def.Layers {
		if l.Type == "SoftmaxWithLoss" || l.Type == "EuclideanLoss" {
			if l.AutoTops != 1 || l.LossWeights[0] == 0 {
				t.Errorf("layer %q: %d automatic tops, loss weights %v", l.Name, l.AutoTops, l.LossWeights)
			}
			tops = append(tops, l.Tops...)
		}
	}
	if got := strings.Join(tops, " "); got != "(automatic) (automatic)_1" {
		t.Errorf("automatic tops %q", got)
	}
	if len(n.Outputs()) != 0 {
		t.Errorf("outputs %v, want none: automatic tops are not outputs", n.Outputs())
	}
	copy(n.Blob("label").DataSlice(), []float32{0, 1, 2, 1})
	for i, v := range n.Blob("data").DataSlice() {
		n.Blob("data").DataSlice()[i] = float32(i%5) - v
	}
	loss, err := n.ForwardBackward()
	if err != nil {
		t.Fatal(err)
	}
	soft := n.Blob("(automatic)").DataSlice()[0]
	eucl := n.Blob("(automatic)_1").DataSlice()[0]
	if soft <= 0 || eucl <= 0 || !close32(loss, soft+0.5*eucl) {
		t.Errorf("loss %g, want softmax loss %g + 0.5 × euclidean loss %g", loss, soft, eucl)
	}
	// The definition keeps its own tops: saved weights hold the layer as
	// it was written.
	for _, l := range n.ToProto(false).Layer {
		if l.GetName() == "loss" && len(l.Top) != 0 {
			t.Errorf("saved loss layer has tops %v", l.Top)
		}
	}
}

func close32(a, b float32) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-5*(1+b)
}

func TestAutoTopIsNotReadable(t *testing.T) {
	src := `name: "n"
layer { name: "data" type: "Input" top: "data" top: "label" input_param { shape { dim: 4 dim: 3 } shape { dim: 4 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "data" bottom: "label" }
layer { name: "after" type: "Power" bottom: "(automatic)" top: "p" }`
	np, err := ParseNetParameter("test.prototxt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewNet(np, NetOptions{}); err == nil || !strings.Contains(err.Error(), `unknown bottom blob "(automatic)"`) {
		t.Errorf("got %v, want the automatic top unknown by name", err)
	}
	// Layers that are not losses still need their tops.
	src = `name: "n"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 4 dim: 3 } } }
layer { name: "relu" type: "ReLU" bottom: "data" }`
	np, _ = ParseNetParameter("test.prototxt", []byte(src))
	if _, err := NewNet(np, NetOptions{}); err == nil || !strings.Contains(err.Error(), "top blobs, has 0") {
		t.Errorf("got %v, want a missing top refused", err)
	}
}
