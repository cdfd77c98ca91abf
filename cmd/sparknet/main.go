// Command sparknet is a Caffe-style command line for sparknet nets:
//
//	sparknet summary --model=lenet_train_test.prototxt --phase=TRAIN --input-shape=data=64,1,28,28
//
// and the history server of sparknet-shell's event logs:
//
//	sparknet ui --events=DIR
//
// Run "sparknet help" for the commands. The implementation lives in
// package github.com/sparknet-go/sparknet/caffe/tool, and the history
// server in package github.com/sparknet-go/sparknet/ui.
package main

import (
	"os"

	"github.com/sparknet-go/sparknet/caffe/tool"
	"github.com/sparknet-go/sparknet/ui"
)

func main() {
	if err := tool.Register("ui", ui.HistorySummary, ui.HistoryUsage, ui.HistoryMain); err != nil {
		panic(err)
	}
	os.Exit(tool.Main(os.Args[1:], os.Stdout, os.Stderr))
}
