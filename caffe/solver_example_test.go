package caffe_test

import (
	"context"
	"fmt"
	"log"

	"github.com/sparknet-go/sparknet/caffe"
)

// A net is built from a definition, here given inline; its input blobs are
// written, Forward computes the outputs.
func ExampleNewNet() {
	np, err := caffe.ParseNetParameter("affine.prototxt", []byte(`
		name: "affine"
		layer { name: "x" type: "Input" top: "x" input_param { shape { dim: 1 dim: 2 } } }
		layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y"
		  inner_product_param { num_output: 1 weight_filler { type: "constant" value: 2 } } }
	`))
	if err != nil {
		log.Fatal(err)
	}
	net, err := caffe.NewNet(np, caffe.NetOptions{Threads: 1})
	if err != nil {
		log.Fatal(err)
	}
	copy(net.Blob("x").DataSlice(), []float32{1, 3})
	if _, err := net.Forward(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(net.Outputs(), net.Blob("y").DataSlice())
	fmt.Print(net.Weights().Table())
	// Output:
	// [y] [8]
	// layer  blob  shape  norm
	// ip     0     [1 2]  2.82843
	// ip     1     [1]    0
}

// A solver trains its net; the event hook sees every iteration. Here the
// loss is the net's output itself (loss_weight 1), so SGD lowers it by
// lr × |gradient|² per step.
func ExampleSolver_Step() {
	np, err := caffe.ParseNetParameter("linear.prototxt", []byte(`
		name: "linear"
		layer { name: "x" type: "Input" top: "x" input_param { shape { dim: 1 dim: 2 } } }
		layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y" loss_weight: 1
		  inner_product_param { num_output: 1 bias_term: false } }
	`))
	if err != nil {
		log.Fatal(err)
	}
	sp, err := caffe.ParseSolverParameter("solver.prototxt", []byte(`base_lr: 0.1 lr_policy: "fixed" type: "SGD"`))
	if err != nil {
		log.Fatal(err)
	}
	sp.NetParam = np
	solver, err := caffe.NewSolver(sp, caffe.SolverOptions{Threads: 1})
	if err != nil {
		log.Fatal(err)
	}
	net := solver.Net()
	copy(net.Blob("x").DataSlice(), []float32{1, 2})
	solver.OnStep(func(e caffe.StepEvent) {
		fmt.Printf("iteration %d: loss %.2f, lr %.2f\n", e.Iter, e.Loss, e.LR)
	})
	if err := solver.Step(context.Background(), 3); err != nil {
		log.Fatal(err)
	}
	fmt.Println(net.Weights().Get("ip")[0].Data())
	// Output:
	// iteration 0: loss 0.00, lr 0.10
	// iteration 1: loss -0.50, lr 0.10
	// iteration 2: loss -1.00, lr 0.10
	// [-0.3 -0.6]
}
