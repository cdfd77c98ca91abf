//go:build unix

package tests

import (
	"bufio"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScriptInterrupt sends SIGINT to scripts run as programs: one that
// catches it (signal.NotifyContext) gets it and ends as it chooses, one
// that does not ends at once by the signal, its deferred calls not run,
// as Go programs do.
func TestScriptInterrupt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caught := write("caught.go", `package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	defer fmt.Println("deferred")
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("stopping:", ctx.Err())
}
`)
	plain := write("plain.go", `package main

import (
	"fmt"
	"time"
)

func main() {
	defer fmt.Println("deferred")
	fmt.Println("ready")
	time.Sleep(time.Minute)
}
`)
	run := func(t *testing.T, file string) (string, *os.ProcessState) {
		cmd := exec.Command(shellBin, "--master", "local[2]", file)
		cmd.Env = append(os.Environ(), "SPARKNET_UI_PORT=off")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		if !lines.Scan() || lines.Text() != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the script did not start: %q", lines.Text())
		}
		time.Sleep(200 * time.Millisecond)
		cmd.Process.Signal(os.Interrupt)
		var rest []string
		for lines.Scan() {
			rest = append(rest, lines.Text())
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the script did not end after SIGINT")
		}
		return strings.Join(rest, "\n"), cmd.ProcessState
	}
	t.Run("caught", func(t *testing.T) {
		out, st := run(t, caught)
		if want := "stopping: context canceled\ndeferred"; out != want || st.ExitCode() != 0 {
			t.Errorf("after SIGINT: output %q, exit status %d; want %q, 0", out, st.ExitCode(), want)
		}
	})
	t.Run("not caught", func(t *testing.T) {
		if signal.Ignored(os.Interrupt) {
			t.Skip("this process ignores SIGINT, and so would the script, as a Go program started so does")
		}
		out, st := run(t, plain)
		ws, _ := st.Sys().(syscall.WaitStatus)
		if out != "" || !(ws.Signaled() && ws.Signal() == syscall.SIGINT || st.ExitCode() == 130) {
			t.Errorf("after SIGINT: output %q, %v; want no output (no deferred call) and an end by SIGINT", out, st)
		}
	})
}
