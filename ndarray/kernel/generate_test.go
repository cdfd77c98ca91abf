package kernel

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeUpToDate regenerates the assembly into a temporary
// directory and compares it with the committed files, which must be
// regenerated (go generate) whenever the generator changes.
func TestGeneratedCodeUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator; skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the generator")
	}
	dir := t.TempDir()
	cmd := exec.Command(goTool, "run", "./internal/asmgen", "-dir", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the generator: %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the generator wrote no files (%v)", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s: %v; run go generate", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate in this directory", name)
		}
	}
}
