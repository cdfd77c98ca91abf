package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/data"
)

// The main job's checkpoints belong to the run that wrote them: the same
// command again is refused (no round of the first run is overwritten),
// --resume says what it resumes, and --overwrite replaces the old set
// without leaving any of its rounds beside the new ones.
func TestMainJobCheckpointsBelongToOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet briefly, four times")
	}
	if _, err := data.MNISTDir(); err != nil {
		t.Skip("MNIST files unavailable:", err)
	}
	dir := t.TempDir()
	script := filepath.Join(repoRoot, "scripts", "mnist.go")
	prefix := filepath.Join("ck", "lenet")
	shell := func(flags []string, rounds string) result {
		t.Helper()
		args := append([]string{"--master", "local[2]", "--no-ui"}, flags...)
		return runShell(t, dir, "", 3*time.Minute, append(args, script, rounds, "2", prefix)...)
	}
	if r := shell(nil, "2"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.out)
	}
	first, err := os.ReadFile(filepath.Join(dir, prefix+"_round_2.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}

	r := shell(nil, "1")
	if r.code == 0 || !strings.Contains(r.out, "the checkpoint prefix "+prefix+" holds the checkpoints of another run (round 2; the latest, "+prefix+"_round_2.sparknet, written ") {
		t.Fatalf("second run with the same prefix: exit %d\n%s", r.code, r.out)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, prefix+"_round_2.caffemodel")); string(again) != string(first) {
		t.Fatal("the refused run changed the first run's checkpoint")
	}

	r = shell([]string{"--resume"}, "3")
	if r.code != 0 || !strings.Contains(r.out, "resuming from "+prefix+"_round_2.sparknet: round 2, iteration 4") ||
		!strings.Contains(r.out, "resumed from the checkpoint of round 2 ("+prefix+"_round_2.sparknet)") {
		t.Fatalf("--resume: exit %d\n%s", r.code, r.out)
	}

	r = shell([]string{"--overwrite"}, "1")
	if r.code != 0 {
		t.Fatalf("--overwrite: exit %d\n%s", r.code, r.out)
	}
	left, _ := filepath.Glob(filepath.Join(dir, prefix+"_round_*"))
	for _, f := range left {
		if !strings.Contains(filepath.Base(f), "_round_1.") {
			t.Errorf("%s of the replaced run is left", f)
		}
	}
	if len(left) == 0 {
		t.Error("the new run wrote no checkpoint")
	}
}
