//go:build linux

package tests

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// terminal runs sparknet-shell on a pseudo-terminal: tests type keys and
// read what the shell wrote.
type terminal struct {
	t      *testing.T
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	out    []byte // everything read so far
	mark   int    // Expect searches out[mark:]
	done   chan error
}

// openPTY opens a pseudo-terminal pair.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 160}); err != nil {
		master.Close()
		slave.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// startTerminal starts the shell with args on a new pseudo-terminal,
// in dir.
func startTerminal(t *testing.T, dir string, args ...string) *terminal {
	t.Helper()
	return startTerminalEnv(t, dir, nil, args...)
}

// startTerminalEnv is startTerminal with more environment variables.
func startTerminalEnv(t *testing.T, dir string, env []string, args ...string) *terminal {
	t.Helper()
	master, slave, err := openPTY()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	cmd := exec.Command(shellBin, args...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.Env = append(append(os.Environ(), "TERM=xterm"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	term := &terminal{t: t, cmd: cmd, master: master, done: make(chan error, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			term.mu.Lock()
			term.out = append(term.out, buf[:n]...)
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { term.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		master.Close()
	})
	return term
}

var escapes = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\r`)

// screen returns the output since the mark without terminal escapes.
func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return escapes.ReplaceAllString(string(term.out[term.mark:]), "")
}

// Type sends keys to the shell as a user would type them.
func (term *terminal) Type(keys string) {
	term.t.Helper()
	for _, r := range keys {
		if _, err := term.master.Write([]byte(string(r))); err != nil {
			term.t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Expect waits until the output since the last Expect contains want,
// then moves the mark past it.
func (term *terminal) Expect(want string) {
	term.t.Helper()
	term.expect(want, 20*time.Second)
}

func (term *terminal) expect(want string, timeout time.Duration) {
	term.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		term.mu.Lock()
		clean := escapes.ReplaceAllString(string(term.out[term.mark:]), "")
		// Find want in the cleaned text, then advance the mark over the raw
		// bytes up to the same amount of cleaned text.
		if i := strings.Index(clean, want); i >= 0 {
			term.mark += rawOffset(term.out[term.mark:], i+len(want))
			term.mu.Unlock()
			return
		}
		term.mu.Unlock()
		if time.Now().After(deadline) {
			term.t.Fatalf("the shell did not print %q; screen since the last match:\n%s", want, term.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rawOffset returns the offset in raw where n bytes of cleaned text end.
func rawOffset(raw []byte, n int) int {
	clean := 0
	for i := 0; i < len(raw); {
		if loc := escapes.FindIndex(raw[i:]); loc != nil && loc[0] == 0 {
			i += loc[1]
			continue
		}
		if clean == n {
			return i
		}
		clean++
		i++
	}
	return len(raw)
}

// Prompt waits for the shell to be ready for input.
func (term *terminal) Prompt() {
	term.t.Helper()
	term.Expect(">>> ")
}

// Wait waits for the shell to exit and returns its exit status.
func (term *terminal) Wait() int {
	term.t.Helper()
	select {
	case err := <-term.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			term.t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		term.t.Fatalf("the shell did not exit; screen:\n%s", term.screen())
	}
	return -1
}
