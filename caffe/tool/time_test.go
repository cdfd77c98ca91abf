package tool

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTimeFLOPs runs time --flops and checks the FLOP column of the
// inner-product layer and the lines on the peak and its share: the
// softmax net's ip layer maps 784 inputs to 10 outputs, so with batch 8
// its forward pass makes 2·8·784·10 = 125,440 operations and its backward
// pass (weight gradient only: the data needs none) as many.
func TestTimeFLOPs(t *testing.T) {
	dir := writeFiles(t)
	model := "--model=" + filepath.Join(dir, "softmax_train_test.prototxt")
	for _, threads := range []string{"1", "2"} {
		out, errOut, code := runTool(t, "time", model, "--iterations=3", "--input-shape=data=8,1,28,28", "--threads="+threads, "--flops")
		if code != 0 {
			t.Fatalf("time --flops exited %d: %s%s", code, out, errOut)
		}
		ipLine := regexp.MustCompile(`(?m)^ +ip\tforward: [0-9.e-]+ ms\.(\tcpu [0-9.e-]+ ms\.)?\t0\.13 MFLOP\t[0-9.]+ GFLOP/s\t([0-9.]+)% of peak$`)
		m := ipLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("threads=%s: no FLOP column on ip's forward line:\n%s", threads, out)
		}
		if share, _ := strconv.ParseFloat(m[2], 64); share <= 0 || share > 150 {
			t.Errorf("threads=%s: ip forward at %v%% of peak", threads, share)
		}
		want := []string{"FMA peak: ", "GFLOP/s per core", "FLOPs per iteration: 0.13 MFLOP forward, 0.13 MFLOP backward (0.031 MFLOP per image).",
			"Layers with FLOPs (Convolution, Deconvolution, InnerProduct): "}
		if threads == "1" {
			want = append(want, "Share of the FMA peak: forward ", "per second of thread CPU time, 1 thread).")
		} else {
			want = append(want, "Share of the FMA peak of 2 cores: ", "2 threads")
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("threads=%s: time --flops output lacks %q:\n%s", threads, w, out)
			}
		}
	}
	// Without --flops the lines are Caffe's.
	out, _, code := runTool(t, "time", model, "--iterations=1", "--input-shape=data=8,1,28,28", "--threads=1")
	if code != 0 || strings.Contains(out, "MFLOP") || strings.Contains(out, "FMA peak") {
		t.Errorf("time without --flops (exit %d) shows FLOPs:\n%s", code, out)
	}
}
