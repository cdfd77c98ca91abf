package sparknet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every file of a checkpoint is readable by all, as the Caffe files beside
// it are, and the temporary files killed runs left are gone after the
// next run writes a checkpoint with the prefix, also those of checkpoints
// it never writes again (round 10 of a run killed then); those of live
// writers and of other prefixes stay.
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
	// A killed writer of round 10, in today's and in the older naming.
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{
		fmt.Sprintf(".tiny_round_10.part0.solverstate.tmp-%s-%d-0badf00d", host, cmd.Process.Pid),
		".tiny_round_10.caffemodel.tmp4711",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
		torn = append(torn, p)
	}
	var kept []string
	for _, name := range []string{
		fmt.Sprintf(".tiny_round_10.caffemodel.tmp-%s-%d-0badf00d", host, os.Getppid()), // a live writer
		fmt.Sprintf(".other_round_10.caffemodel.tmp-%s-%d-0badf00d", host, cmd.Process.Pid),
		".tiny_round_10.caffemodel.tmp4712", // too recent to tell
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, p)
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
			if !slices.Contains(kept, filepath.Join(dir, e.Name())) {
				t.Errorf("temporary file %s left", e.Name())
			}
			continue
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
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// A set of checkpoints belongs to one run: a second run with the same
// prefix is refused, unless it resumes the first (and says from where) or
// is told to overwrite it, which then leaves none of the first run's files.
func TestCheckpointsBelongToOneRun(t *testing.T) {
	sp := testSolverParam(t, "")
	f := newFixture(t, "local[2]", 2)
	prefix := filepath.Join(t.TempDir(), "ck", "tiny")
	a := f.trainer(t, sp, Options{Tau: 2, Seed: 8, Checkpoint: prefix, CheckpointEvery: 2})
	if err := a.RunTo(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if a.ResumedFrom() != "" {
		t.Errorf("a fresh run says it resumed from %q", a.ResumedFrom())
	}

	_, err := Parallelize(f.sc, sp, f.train, Options{Tau: 2, Seed: 9, Checkpoint: prefix, CheckpointEvery: 2})
	want := "sparknet: the checkpoint prefix " + prefix + " holds the checkpoints of another run (rounds 2, 4; the latest, " + prefix + "_round_4.sparknet, written "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "Options.Overwrite (sparknet-shell --overwrite)") {
		t.Fatalf("got %v\nwant %s...", err, want)
	}

	resumed := f.trainer(t, sp, Options{Tau: 2, Seed: 8, Checkpoint: prefix, CheckpointEvery: 2, Resume: true})
	if got := resumed.ResumedFrom(); got != prefix+"_round_4.sparknet" || resumed.RoundsDone() != 4 {
		t.Errorf("resumed from %q at round %d", got, resumed.RoundsDone())
	}
	resumed.Close()

	b := f.trainer(t, sp, Options{Tau: 2, Seed: 9, Checkpoint: prefix, CheckpointEvery: 2, Overwrite: true})
	if err := b.RunTo(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(prefix + "_round_*")
	for _, f := range files {
		if strings.Contains(f, "_round_4") {
			t.Errorf("%s of the overwritten run is left beside the new run's", f)
		}
	}
	if p, _ := LatestCheckpoint(prefix); p != prefix+"_round_2.sparknet" {
		t.Errorf("latest checkpoint %q", p)
	}
	// Round 2 is the new run's: resuming it gives its weights.
	again := f.trainer(t, sp, Options{Tau: 2, Seed: 9, Checkpoint: prefix, CheckpointEvery: 2, Resume: true})
	if d := again.Weights().MaxDiff(b.Weights()); d != 0 {
		t.Errorf("round 2 holds other weights than the run that wrote it (%g)", d)
	}
}
