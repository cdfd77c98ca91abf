package sparknet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every file of a checkpoint is readable by all, as the Caffe files beside
// it are, and the temporary files a killed run left are gone after the
// next run writes the same checkpoint.
func TestCheckpointFilesAreWholeAndReadable(t *testing.T) {
	sp := testSolverParam(t, "")
	f := newFixture(t, "local[2]", 2)
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	host, _ := os.Hostname()
	var torn []string
	for _, name := range []string{"tiny_round_2.sparknet", "tiny_round_2.caffemodel", "tiny_round_2.part1.solverstate"} {
		p := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%s-%d-0badf00d", name, host, cmd.Process.Pid))
		if err := os.WriteFile(p, []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
		torn = append(torn, p)
	}
	tr := f.trainer(t, sp, Options{Tau: 2, Seed: 8, Checkpoint: filepath.Join(dir, "tiny"), CheckpointEvery: 2})
	if err := tr.RunTo(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no checkpoint written")
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left", e.Name())
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", e.Name(), fi.Mode().Perm())
		}
	}
	for _, p := range torn {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left by a killed run is still there", p)
		}
	}
}
