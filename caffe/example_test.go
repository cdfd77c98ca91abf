package caffe_test

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

const tinyNet = `
name: "Tiny"
layer {
  name: "data"
  type: "Input"
  top: "data"
  input_param { shape: { dim: 8 dim: 1 dim: 12 dim: 12 } }
}
layer {
  name: "conv"
  type: "Convolution"
  bottom: "data"
  top: "conv"
  convolution_param { num_output: 4 kernel_size: 5 }
}
layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool"
        pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "pool" top: "ip"
        inner_product_param { num_output: 3 } }
layer { name: "prob" type: "Softmax" bottom: "ip" top: "prob" }
layer { name: "act" type: "ReLU" bottom: "ip" top: "act" include { phase: TRAIN } }
`

func ExampleParseNetParameter() {
	np, err := caffe.ParseNetParameter("tiny.prototxt", []byte(tinyNet))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range np.Layer {
		fmt.Println(l.GetName(), l.GetType())
	}
	// Output:
	// data Input
	// conv Convolution
	// pool Pooling
	// ip InnerProduct
	// prob Softmax
	// act ReLU
}

func ExampleParseNetParameter_error() {
	_, err := caffe.ParseNetParameter("bad.prototxt", []byte("layer {\n  name: \"conv\"\n  convolution_param { kernal_size: 3 }\n}\n"))
	fmt.Println(err)
	// Output:
	// caffe: bad.prototxt:3:23: unknown field "kernal_size" in caffe.ConvolutionParameter (did you mean "kernel_size"?); valid fields: axis, bias_filler, bias_term, dilation, engine, force_nd_im2col, group, kernel_h, kernel_size, kernel_w, num_output, pad, pad_h, pad_w, stride, stride_h, stride_w, weight_filler
}

func ExampleProcessNet() {
	np, _ := caffe.ParseNetParameter("tiny.prototxt", []byte(tinyNet))
	def, err := caffe.ProcessNet(np, caffe.NetState{Phase: caffe.Train})
	if err != nil {
		fmt.Println(err)
		return
	}
	// "ip" feeds two layers in TRAIN, so a Split layer is inserted.
	for _, l := range def.Layers {
		fmt.Println(l.Name, l.Bottoms, l.Tops)
	}
	fmt.Println("outputs:", def.Outputs)
	// Output:
	// data [] [data]
	// conv [data] [conv]
	// pool [conv] [pool]
	// ip [pool] [ip]
	// ip_ip_0_split [ip] [ip_ip_0_split_0 ip_ip_0_split_1]
	// prob [ip_ip_0_split_0] [prob]
	// act [ip_ip_0_split_1] [act]
	// outputs: [act prob]
}

func ExampleSummarize() {
	np, _ := caffe.ParseNetParameter("tiny.prototxt", []byte(tinyNet))
	def, _ := caffe.ProcessNet(np, caffe.NetState{Phase: caffe.Test})
	sum, err := caffe.Summarize(def, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(sum)
	// Output:
	// Net "Tiny" (phase TEST)
	// LAYER  TYPE          OUTPUT  SHAPE      PARAMS
	// data   Input         data    8x1x12x12  0
	// conv   Convolution   conv    8x4x8x8    104
	// pool   Pooling       pool    8x4x4x4    0
	// ip     InnerProduct  ip      8x3        195
	// prob   Softmax       prob    8x3        0
	// Total params: 299
}

func ExampleCopyWeights() {
	np, _ := caffe.ParseNetParameter("tiny.prototxt", []byte(tinyNet))
	def, _ := caffe.ProcessNet(np, caffe.NetState{Phase: caffe.Test})
	shapes, _ := caffe.InferShapes(def, nil)
	params, _ := caffe.NewParamArrays(def, shapes)

	// A model whose "ip" bias was saved in the legacy 4-D form.
	model := &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{{
		Name: proto.String("ip"),
		Blobs: []*caffepb.BlobProto{
			caffe.BlobFromArray(ndarray.Full(0.5, 3, 64)),
			{Num: proto.Int32(1), Channels: proto.Int32(1), Height: proto.Int32(1), Width: proto.Int32(3), Data: []float32{1, 2, 3}},
		},
	}}}
	report, err := caffe.CopyWeights(model, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("copied:", report.Copied, "kept:", report.Kept)
	fmt.Println(params["ip"][1].Shape(), params["ip"][1].Data())
	// Output:
	// copied: [ip] kept: [conv]
	// [3] [1 2 3]
}

func ExampleLookupLayerType() {
	_, err := caffe.LookupLayerType("InnerProdcut")
	fmt.Println(err != nil)
	lt, _ := caffe.LookupLayerType("SoftmaxWithLoss")
	fmt.Println(lt.Name, lt.Loss)
	// Output:
	// true
	// SoftmaxWithLoss true
}
