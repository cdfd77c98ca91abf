package format_test

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

func ExampleFormatText() {
	sp := &caffepb.SolverParameter{
		BaseLr:   proto.Float32(0.01),
		LrPolicy: proto.String("step"),
		Stepsize: proto.Int32(1000),
		Type:     proto.String("Nesterov"),
	}
	fmt.Print(format.FormatText(sp))
	// Output:
	// base_lr: 0.01
	// lr_policy: "step"
	// stepsize: 1000
	// type: "Nesterov"
}

func ExampleUpgradeNetParameter() {
	// A net in the V1 format, with its input given at net level.
	np := &caffepb.NetParameter{}
	format.ParseText("old.prototxt", []byte(`
input: "data" input_dim: 1 input_dim: 3 input_dim: 4 input_dim: 4
layers { name: "relu" type: RELU bottom: "data" top: "data" }`), np)
	if err := format.UpgradeNetParameter(np); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(format.FormatText(np))
	// Output:
	// layer {
	//   name: "input"
	//   type: "Input"
	//   top: "data"
	//   input_param {
	//     shape {
	//       dim: 1
	//       dim: 3
	//       dim: 4
	//       dim: 4
	//     }
	//   }
	// }
	// layer {
	//   name: "relu"
	//   type: "ReLU"
	//   bottom: "data"
	//   top: "data"
	// }
}
