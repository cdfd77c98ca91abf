package caffe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A solver state names its weights by the path the snapshot prefix gave
// (absolute here). Restored from a copy of the folder, it loads the weights
// beside it, not the original's, and says which file it loaded; a 2014
// snapshot, whose model file has no extension, is found too.
func TestRestoreLooksBesideTheState(t *testing.T) {
	mnist := writeFakeMNIST(t, 40)
	orig := t.TempDir()
	const solver = `type: "SGD" base_lr: 0.05 momentum: 0.9 lr_policy: "fixed" snapshot: 4 max_iter: 4`
	a := newMNISTSolver(t, mnist, solver, filepath.Join(orig, "net"))
	if err := a.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(orig, "net_iter_4.solverstate")
	if st, err := ReadSolverState(state); err != nil || st.GetLearnedNet() != filepath.Join(orig, "net_iter_4.caffemodel") {
		t.Fatalf("the state names %q (%v), want the absolute path of its model", st.GetLearnedNet(), err)
	}

	copied := t.TempDir()
	copyFile(t, state, filepath.Join(copied, "net_iter_4.solverstate"))
	copyFile(t, filepath.Join(orig, "net_iter_4.caffemodel"), filepath.Join(copied, "net_iter_4.caffemodel"))
	// The original model changes after the copy (the run went on, say).
	other := newMNISTSolver(t, mnist, `type: "SGD" base_lr: 0.5 lr_policy: "fixed" max_iter: 2`, filepath.Join(orig, "other"))
	if err := other.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := other.Net().SaveWeights(filepath.Join(orig, "net_iter_4.caffemodel")); err != nil {
		t.Fatal(err)
	}

	b := newMNISTSolver(t, mnist, solver, filepath.Join(copied, "b"))
	if err := b.Restore(filepath.Join(copied, "net_iter_4.solverstate")); err != nil {
		t.Fatal(err)
	}
	if got, want := b.RestoredWeights(), filepath.Join(copied, "net_iter_4.caffemodel"); got != want {
		t.Errorf("loaded %s, want %s", got, want)
	}
	if d := b.Net().Weights().MaxDiff(a.Net().Weights()); d != 0 {
		t.Errorf("the restored weights differ from the snapshot's by %g: the original's file was loaded", d)
	}

	// 2014 Caffe: the model file has no extension, and the state names it
	// so; the copy is found beside the state.
	st, err := ReadSolverState(filepath.Join(copied, "net_iter_4.solverstate"))
	if err != nil {
		t.Fatal(err)
	}
	old := t.TempDir()
	name := filepath.Join(orig, "net_iter_4")
	st.LearnedNet = &name
	if err := WriteSolverState(filepath.Join(old, "net_iter_4.solverstate"), st); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(copied, "net_iter_4.caffemodel"), filepath.Join(old, "net_iter_4"))
	c := newMNISTSolver(t, mnist, solver, filepath.Join(old, "c"))
	if err := c.Restore(filepath.Join(old, "net_iter_4.solverstate")); err != nil {
		t.Fatal(err)
	}
	if got, want := c.RestoredWeights(), filepath.Join(old, "net_iter_4"); got != want {
		t.Errorf("loaded %s, want %s", got, want)
	}
	if d := c.Net().Weights().MaxDiff(a.Net().Weights()); d != 0 {
		t.Errorf("the 2014-style snapshot's weights differ by %g", d)
	}

	// Nothing anywhere: the error lists where it looked.
	os.Remove(filepath.Join(old, "net_iter_4"))
	os.Remove(filepath.Join(orig, "net_iter_4.caffemodel"))
	err = newMNISTSolver(t, mnist, solver, filepath.Join(old, "d")).Restore(filepath.Join(old, "net_iter_4.solverstate"))
	if err == nil || !strings.Contains(err.Error(), "was not found (tried "+filepath.Join(old, "net_iter_4")) {
		t.Errorf("got %v", err)
	}
}

// A snapshot removes the temporary files that killed writers of earlier
// snapshots with its prefix left (of any iteration), and nothing else.
func TestSnapshotRemovesStaleTemps(t *testing.T) {
	mnist := writeFakeMNIST(t, 40)
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	stale := []string{".net_iter_2.caffemodel.tmp123", ".net_iter_2.solverstate.tmp77"}
	kept := []string{".net_iter_2.caffemodel.tmp124", ".other_iter_2.caffemodel.tmp5", "net_iter_2.caffemodel.tmp9"}
	for i, name := range append(append([]string{}, stale...), kept...) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
		if i != len(stale) { // the first kept one is too recent to tell
			os.Chtimes(p, old, old)
		}
	}
	s := newMNISTSolver(t, mnist, `type: "SGD" base_lr: 0.05 lr_policy: "fixed" snapshot: 4 max_iter: 4`, filepath.Join(dir, "net"))
	if err := s.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s is still there", name)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "net_iter_4.caffemodel")); err != nil {
		t.Error(err)
	}
}
