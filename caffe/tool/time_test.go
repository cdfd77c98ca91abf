package tool

import (
	"os"
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
		// The share is a measurement: on a loaded machine the layer's
		// 0.13 MFLOP can take long enough to print as 0.0%.
		if share, err := strconv.ParseFloat(m[2], 64); err != nil || share < 0 || share > 150 {
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

// TestTimeTrainProfile runs time --train-profile: after the layers'
// times, the training iterations' CPU time by kind of work, whose shares
// add up to 100%, and the share outside the products; a negative duration
// or a phase other than TRAIN is refused.
func TestTimeTrainProfile(t *testing.T) {
	dir := writeFiles(t)
	model := "--model=" + filepath.Join(dir, "softmax_train_test.prototxt")
	out, errOut, code := runTool(t, "time", model, "--iterations=1", "--input-shape=data=8,1,28,28", "--threads=1", "--train-profile=500ms")
	if code != 0 {
		t.Fatalf("time --train-profile exited %d: %s%s", code, out, errOut)
	}
	head := regexp.MustCompile(`(?m)^Training under a CPU profile \(SGD, .*\), 1 thread: ([0-9]+) iterations, [0-9.e-]+ ms each, ([0-9]+) samples of 10 ms of CPU time\.$`)
	if m := head.FindStringSubmatch(out); m == nil || m[1] == "0" || m[2] == "0" {
		t.Fatalf("no profile heading with iterations and samples:\n%s", out)
	}
	_, kinds, ok := strings.Cut(out, "CPU time of a training iteration by kind of work:\n")
	if !ok {
		t.Fatalf("no kinds of work:\n%s", out)
	}
	line := regexp.MustCompile(`(?m)^ *([a-z ,]+)\t *([0-9.]+)%\t(.*)$`)
	sum := 0.0
	for _, m := range line.FindAllStringSubmatch(kinds, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		sum += v
		if m[3] == "" {
			t.Errorf("%s: no top functions", m[1])
		}
	}
	if sum < 99 || sum > 101 {
		t.Errorf("the kinds of work add up to %.1f%%:\n%s", sum, kinds)
	}
	outside := regexp.MustCompile(`(?m)^Outside convolution and inner product \(the solver's update included\): ([0-9.]+)%\.$`)
	if m := outside.FindStringSubmatch(out); m == nil {
		t.Errorf("no share outside the products:\n%s", out)
	} else if v, _ := strconv.ParseFloat(m[1], 64); v < 0 || v > 100 {
		t.Errorf("outside the products: %v%%", v)
	}
	// A solver definition gives the update rule and its settings; its
	// net, tests and snapshots are left out.
	solver := filepath.Join(dir, "adam_solver.prototxt")
	snaps := filepath.Join(dir, "snaps")
	def := "net: \"elsewhere/missing.prototxt\"\ntype: \"Adam\"\nbase_lr: 0.002\nmomentum: 0.9\nmomentum2: 0.999\nlr_policy: \"fixed\"\n" +
		"test_iter: 2\ntest_interval: 1\nsnapshot: 1\nsnapshot_prefix: \"" + snaps + "/x\"\n"
	if err := os.WriteFile(solver, []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runTool(t, "time", model, "--iterations=1", "--input-shape=data=8,1,28,28", "--threads=1", "--train-profile=200ms", "--solver="+solver)
	if code != 0 || !strings.Contains(out, "Training under a CPU profile (Adam, lr 0.002, momentum 0.9, weight decay 0;") {
		t.Errorf("time --solver (exit %d): no Adam heading:\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(snaps); err == nil {
		t.Errorf("time --solver wrote snapshots into %s", snaps)
	}
	for _, bad := range [][]string{{"--train-profile=-1s"}, {"--train-profile=1s", "--phase=TEST"}, {"--solver=" + solver}} {
		args := append([]string{"time", model, "--iterations=1", "--input-shape=data=8,1,28,28"}, bad...)
		out, errOut, code := runTool(t, args...)
		if code == 0 || !strings.Contains(errOut, "--train-profile") {
			t.Errorf("time %q: exit %d, want an error naming --train-profile:\n%s%s", bad, code, out, errOut)
		}
	}
}
