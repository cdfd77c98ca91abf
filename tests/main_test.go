// Package tests holds end-to-end tests of sparknet-shell: transcripts
// typed into the real binary through a pseudo-terminal, scripts with
// their expected output, and the teaching notebooks in examples/.
package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// shellBin is the sparknet-shell binary that TestMain builds.
var shellBin string

// repoRoot is the root of the module.
var repoRoot string

// shellTags are the build tags of shellBin: "mpi" when the tests are
// built with -tags mpi (see mpi_test.go).
var shellTags string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = filepath.Dir(wd)
	dir, err := os.MkdirTemp("", "sparknet-shell-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	shellBin = filepath.Join(dir, "sparknet-shell")
	build := exec.Command("go", "build", "-tags", shellTags, "-o", shellBin, "./cmd/sparknet-shell")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building sparknet-shell: %v\n%s", err, out)
		return 1
	}
	// Keep the tests away from the user's history.
	os.Setenv("SPARKNET_SHELL_HISTORY", filepath.Join(dir, "history"))
	// No web UI unless a test asks for one (on a free port).
	os.Setenv("SPARKNET_UI_PORT", "off")
	return m.Run()
}

// result is what a run of the shell printed and its exit status.
type result struct {
	out  string // standard output and error, interleaved
	code int
}

// runShell runs the binary in dir with args and stdin, and a timeout.
func runShell(t *testing.T, dir, stdin string, timeout time.Duration, args ...string) result {
	t.Helper()
	cmd := exec.Command(shellBin, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewBufferString(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("sparknet-shell %q did not finish in %v; output:\n%s", args, timeout, out.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out: out.String(), code: code}
}
