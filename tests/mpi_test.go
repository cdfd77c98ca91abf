//go:build mpi

package tests

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below run sparknet-shell, built with -tags mpi, under
// mpirun -np 2 with --master mpi: go test -tags mpi -run MPI ./tests

func init() { shellTags = "mpi" }

// mpiJob is a run of sparknet-shell under mpirun.
type mpiJob struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan error
}

// startMPI starts sparknet-shell on np ranks in dir with args (after
// --master mpi) and stdin; it skips the test when there is no mpirun.
func startMPI(t *testing.T, dir string, np int, stdin io.Reader, args ...string) *mpiJob {
	t.Helper()
	path, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun not found: install Open MPI (apt-get install openmpi-bin libopenmpi-dev) or MPICH")
	}
	mpiArgs := []string{"-np", strconv.Itoa(np)}
	if version, _ := exec.Command(path, "--version").CombinedOutput(); bytes.Contains(version, []byte("Open MPI")) {
		// More ranks than cores, no pinning: the tests run on small machines.
		mpiArgs = append(mpiArgs, "--oversubscribe", "--bind-to", "none")
	}
	cmd := exec.Command(path, append(append(mpiArgs, shellBin, "--master", "mpi"), args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		// Open MPI refuses to run as root without these (containers, CI).
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"SPARKNET_SHELL_HISTORY="+filepath.Join(dir, "history"))
	cmd.Stdin = stdin
	j := &mpiJob{cmd: cmd, out: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = j.out, j.out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { j.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-j.done
		}
	})
	return j
}

// wait waits for the job to end, at most timeout, and returns its output
// and exit status.
func (j *mpiJob) wait(t *testing.T, timeout time.Duration) result {
	t.Helper()
	select {
	case err := <-j.done:
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
			if code < 0 {
				code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
			}
		} else if err != nil {
			t.Fatal(err)
		}
		return result{out: j.out.String(), code: code}
	case <-time.After(timeout):
		j.cmd.Process.Kill()
		select {
		case <-j.done:
		case <-time.After(10 * time.Second):
		}
		t.Fatalf("mpirun %q did not end in %v; output:\n%s", j.cmd.Args, timeout, j.out.String())
	}
	return result{}
}

// waitFor waits until the job's output contains s.
func (j *mpiJob) waitFor(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(j.out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v the output lacks %q:\n%s", timeout, s, j.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runMPI runs sparknet-shell on np ranks to the end.
func runMPI(t *testing.T, dir string, np int, stdin string, args ...string) result {
	t.Helper()
	return startMPI(t, dir, np, strings.NewReader(stdin), args...).wait(t, 2*time.Minute)
}

// checkOnce checks that out has each of want exactly once and none of
// never.
func checkOnce(t *testing.T, out string, want, never []string) {
	t.Helper()
	for _, w := range want {
		if n := strings.Count(out, w); n != 1 {
			t.Errorf("the output has %q %d times, want once:\n%s", w, n, out)
		}
	}
	for _, w := range never {
		if strings.Contains(out, w) {
			t.Errorf("the output has %q:\n%s", w, out)
		}
	}
}

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMPIShell runs scripts and fed-in sessions on 2 ranks: every rank
// runs every input, only rank 0's output shows, and errors name the rank
// they happened on.
func TestMPIShell(t *testing.T) {
	dir := t.TempDir()
	count := writeFile(t, dir, "count.go", `r := sc.Parallelize([]any{1, 2, 3, 4, 5, 6, 7, 8}, 4)
n, err := r.Count()
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
fmt.Println("count", n)
`)
	oneRank := writeFile(t, dir, "one.go", `fmt.Println("before")
// %%
if sc.Rank() == 1 {
	_, err := os.Open("/nonexistent/train-images-idx3-ubyte")
	panic(err)
}
// %%
fmt.Println("after")
`)
	tests := []struct {
		name  string
		args  []string
		stdin string
		fails bool
		want  []string // once each
		never []string
	}{
		{name: "script", args: []string{count}, want: []string{"count 8\n"}},
		{name: "-e", args: []string{"-e", "n, _ := sc.Range(0, 10, 1, 3).Count()", "-e", "n * sc.Workers()"}, want: []string{"20 (int)"}},
		{name: "stdin",
			stdin: "x := 6\nx * 7\nn, err := sc.Range(0, 8, 1, 4).Count()\nn\nfunc f(v int) int {\nreturn v * 10\n}\nf(sc.Workers())\n:quit\nfmt.Println(\"not run\")\n",
			want:  []string{"42 (int)", "8 (int)", "20 (int)"}, never: []string{"not run"}},
		{name: "interactive", args: []string{"-i"}, stdin: "sc.Workers()\n",
			want: []string{"master mpi: 2 ranks", "2 (int)"}},
		{name: "error on every rank", stdin: "nope\n1 + 1\n", fails: true,
			want: []string{"in[1]:1:1: undefined: nope", "2 (int)"}, never: []string{"rank "}},
		{name: "script error on one rank", args: []string{oneRank}, fails: true,
			want:  []string{"before", "rank 1: panic: open /nonexistent/train-images-idx3-ubyte: no such file or directory", "(no error on rank 0)"},
			never: []string{"after"}},
		{name: "shell error on one rank", stdin: "if sc.Rank() == 1 {\npanic(\"only on rank 1\")\n}\nfmt.Println(\"not run\")\n", fails: true,
			want:  []string{"rank 1: panic: only on rank 1", "(no error on rank 0)", "the job ends"},
			never: []string{"not run"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runMPI(t, dir, 2, tc.stdin, tc.args...)
			if (r.code != 0) != tc.fails {
				t.Errorf("exit status %d:\n%s", r.code, r.out)
			}
			checkOnce(t, r.out, tc.want, tc.never)
		})
	}
}

// TestMPIFailureEndsJob kills one rank, or interrupts mpirun, while the
// other rank waits in a collective: the job must end with an error
// instead of hanging.
func TestMPIFailureEndsJob(t *testing.T) {
	dir := t.TempDir()
	loop := writeFile(t, dir, "loop.go", `os.WriteFile(fmt.Sprintf("pid-%d", sc.Rank()), []byte(fmt.Sprint(os.Getpid())), 0o644)
for {
	if _, err := sc.Range(0, 100, 1, 4).Count(); err != nil {
		fmt.Println(err)
		break
	}
	time.Sleep(10 * time.Millisecond)
}
`)
	t.Run("a failure on one rank names its cause", func(t *testing.T) {
		for _, tc := range []struct{ name, code, cause string }{
			{"panic", "var p *int\n\tfmt.Println(*p)", "panic: runtime error: invalid memory address or nil pointer dereference"},
			{"exit", "os.Exit(3)", "exit status 3"},
		} {
			script := writeFile(t, dir, tc.name+".go", "r := sc.Range(0, 100, 1, 4)\nif sc.Rank() == 1 {\n\t"+tc.code+"\n}\nn, err := r.Count()\nfmt.Println(n, err)\n")
			r := runMPI(t, dir, 2, "", script)
			if r.code == 0 || !strings.Contains(r.out, "rank 1: the end of an input ("+tc.cause) {
				t.Errorf("%s: exit status %d, output:\n%s", tc.name, r.code, r.out)
			}
		}
	})
	t.Run("kill a rank", func(t *testing.T) {
		j := startMPI(t, dir, 2, nil, loop)
		pidFile := filepath.Join(dir, "pid-1")
		var pid int
		for deadline := time.Now().Add(time.Minute); pid == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("rank 1 wrote no pid file:\n%s", j.out.String())
			}
			b, err := os.ReadFile(pidFile)
			if err == nil {
				pid, _ = strconv.Atoi(string(b))
			}
		}
		time.Sleep(200 * time.Millisecond) // the ranks are counting
		start := time.Now()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		r := j.wait(t, 30*time.Second)
		t.Logf("the job ended %v after rank 1 was killed, exit status %d", time.Since(start).Round(time.Millisecond), r.code)
		if r.code == 0 {
			t.Errorf("the job succeeded:\n%s", r.out)
		}
	})
	t.Run("Ctrl-C", func(t *testing.T) {
		// The shell waits for input on rank 0; rank 1 waits for rank 0's
		// broadcast of it. mpirun gets the SIGINT of a Ctrl-C.
		stdin, w, err := os.Pipe() // a file: no goroutine copies it
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		j := startMPI(t, dir, 2, stdin)
		stdin.Close()
		if _, err := io.WriteString(w, "40 + 2\n"); err != nil {
			t.Fatal(err)
		}
		j.waitFor(t, "42 (int)", time.Minute)
		start := time.Now()
		if err := j.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		r := j.wait(t, 30*time.Second)
		t.Logf("the job ended %v after SIGINT, exit status %d", time.Since(start).Round(time.Millisecond), r.code)
		if r.code == 0 {
			t.Errorf("the interrupted job succeeded:\n%s", r.out)
		}
	})
}

// TestMPITrainer runs the main job for a few rounds on 2 ranks and under
// local[2], with the same seed and partitions: the weights must agree bit
// for bit, also when the MPI run stops and resumes from a checkpoint.
func TestMPITrainer(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet for a few seconds, four times")
	}
	dir := t.TempDir()
	script := repoRoot + "/scripts/mnist.go"
	ok := func(r result) string {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("exit status %d:\n%s", r.code, r.out)
		}
		return r.out
	}
	local := ok(runShell(t, dir, "", 5*time.Minute, "--master", "local[2]", script, "2", "5"))
	mpi := ok(runMPI(t, dir, 2, "", script, "2", "5"))
	ok(runMPI(t, dir, 2, "", script, "1", "5", "ck/lenet"))
	resumed := ok(runMPI(t, dir, 2, "", "--resume", script, "2", "5", "ck/lenet"))

	// mpirun gives the ranks a pseudo-terminal even when its output is a
	// pipe, as here: progress must still be one line per round.
	checkOnce(t, mpi, []string{"LeNet on MNIST: 2 replicas", "on 10000 images after 10 iterations", "final weights"}, []string{"\x1b", "\r"})
	if got, want := finalWeights(t, mpi), finalWeights(t, local); got != want {
		t.Errorf("on 2 MPI ranks: %s\nunder local[2]:  %s", got, want)
	}
	if got, want := finalAccuracy(t, mpi), finalAccuracy(t, local); got != want {
		t.Errorf("on 2 MPI ranks: %s\nunder local[2]:  %s", got, want)
	}
	checkOnce(t, resumed, []string{"resumed from the checkpoint of round 1"}, nil)
	if got, want := finalWeights(t, resumed), finalWeights(t, local); got != want {
		t.Errorf("resumed on 2 MPI ranks: %s\nuninterrupted under local[2]: %s", got, want)
	}
}
