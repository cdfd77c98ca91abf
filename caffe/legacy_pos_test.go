package caffe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Errors about a layer of an upgraded legacy net name the file and line
// where the layer was written, also when the net comes inline in a solver
// or from the solver's net file, and the solver copies it to build.
func TestLegacyNetErrorsNamePositions(t *testing.T) {
	const net = `name: "x"
input: "data"
input_dim: 1 input_dim: 1 input_dim: 4 input_dim: 4
layers {
  name: "ip" type: INNER_PRODUCT bottom: "data" top: "ip"
  inner_product_param { num_output: 2 }
}
layers {
  name: "loss" type: SOFTMAX_LOSS bottom: "ip" bottom: "label"
}
`
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	netFile := write("v1.prototxt", net)
	inline := write("inline_solver.prototxt", "base_lr: 0.01 lr_policy: \"fixed\"\nnet_param {\n"+net+"}\n")
	byPath := write("path_solver.prototxt", "base_lr: 0.01 lr_policy: \"fixed\" net: \"v1.prototxt\"\n")
	const msg = `layer "loss" (SoftmaxWithLoss): unknown bottom blob "label"`
	for _, tc := range []struct{ solver, want string }{
		{inline, inline + ":10:1: " + msg},
		{byPath, netFile + ":8:1: " + msg},
	} {
		_, err := LoadSolver(tc.solver)
		if err == nil || !strings.HasPrefix(err.Error(), "caffe: "+tc.want) {
			t.Errorf("%s: got %v\nwant caffe: %s...", filepath.Base(tc.solver), err, tc.want)
		}
	}
}
