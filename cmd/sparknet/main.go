// Command sparknet is a Caffe-style command line for sparknet nets:
//
//	sparknet summary --model=lenet_train_test.prototxt --phase=TRAIN --input-shape=data=64,1,28,28
//
// Run "sparknet help" for the commands. The implementation lives in
// package github.com/sparknet-go/sparknet/caffe/tool.
package main

import (
	"os"

	"github.com/sparknet-go/sparknet/caffe/tool"
)

func main() {
	os.Exit(tool.Main(os.Args[1:], os.Stdout, os.Stderr))
}
