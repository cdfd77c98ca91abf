//go:build mpi && cgo

package mpi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/rdd"
	"github.com/sparknet-go/sparknet/rdd/internal/spmdtest"
)

// The multi-process tests start this test binary under mpirun with
// SPARKNET_MPI_SCENARIO set; TestMain then runs that scenario on every
// rank instead of the tests. Each rank may write files into
// SPARKNET_MPI_OUT for the test to check.
const (
	scenarioEnv = "SPARKNET_MPI_SCENARIO"
	outEnv      = "SPARKNET_MPI_OUT"
	argEnv      = "SPARKNET_MPI_ARG"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(scenarioEnv); name != "" {
		os.Exit(runScenario(name))
	}
	os.Exit(m.Run())
}

// scenarios are what each rank runs; a non-nil error fails the rank.
var scenarios = map[string]func() error{
	"driver":      driverScenario,
	"keyvalue":    keyValueScenario,
	"collectives": collectivesScenario,
	"diverge":     divergeScenario,
	"panic":       panicScenario,
	"agree":       agreeScenario,
	"kill":        killScenario,
	"twice":       twiceScenario,
	"bench":       benchScenario,
}

func runScenario(name string) int {
	f := scenarios[name]
	if f == nil {
		fmt.Fprintf(os.Stderr, "unknown scenario %q\n", name)
		return 2
	}
	if err := f(); err != nil {
		fmt.Fprintf(os.Stderr, "scenario %s: %v\n", name, err)
		return 1
	}
	return 0
}

// writeOut writes this rank's result for the test to read.
func writeOut(rank int, text string) error {
	return os.WriteFile(filepath.Join(os.Getenv(outEnv), fmt.Sprintf("rank-%d.txt", rank)), []byte(text), 0o644)
}

// driverScenario runs the driver that every engine must agree on.
func driverScenario() error {
	sc, err := rdd.NewContext("mpi")
	if err != nil {
		return err
	}
	out := spmdtest.Driver(sc)
	if sc.IsDriver() {
		fmt.Printf("printed by the driver, rank %d of %d\n", sc.Rank(), sc.Workers())
	}
	if err := writeOut(sc.Rank(), out); err != nil {
		return err
	}
	return sc.Close()
}

// keyValueScenario runs the key-value operations, whose shuffles move
// their buckets between the ranks with MPI_Alltoallv; SPARKNET_MPI_ARG
// set to "spill" keeps no shuffle output in memory.
func keyValueScenario() error {
	o := rdd.Options{Master: "mpi"}
	if os.Getenv(argEnv) == "spill" {
		o.ShuffleMemory = -1
	}
	sc, err := rdd.NewContextWith(o)
	if err != nil {
		return err
	}
	out := spmdtest.KeyValue(sc, 1) + spmdtest.SaveAndRead(sc, filepath.Join(os.Getenv(outEnv), "io"))
	if err := writeOut(sc.Rank(), out); err != nil {
		return err
	}
	return sc.Close()
}

// collectivesScenario checks the raw binding, with MPI messages of the
// default size and then cut into pieces of a few bytes.
func collectivesScenario() error {
	c, err := World()
	if err != nil {
		return err
	}
	if err := spmdtest.CheckComm(c); err != nil {
		return fmt.Errorf("rank %d: %w", c.Rank(), err)
	}
	maxChunk = 64
	if err := spmdtest.CheckComm(c); err != nil {
		return fmt.Errorf("rank %d, with pieces of %d bytes: %w", c.Rank(), maxChunk, err)
	}
	if err := writeOut(c.Rank(), fmt.Sprintf("ok %s thread level %s", Version(), c.ThreadLevel())); err != nil {
		return err
	}
	if err := c.Close(); err != nil {
		return err
	}
	if err := c.Barrier(); !errors.Is(err, ErrFinalized) {
		return fmt.Errorf("Barrier after Close: %v, want ErrFinalized", err)
	}
	return nil
}

// failingScenario runs count on every rank but rank 1, which runs fail.
func failingScenario(fail func(sc *rdd.Context) error) error {
	sc, err := rdd.NewContext("mpi")
	if err != nil {
		return err
	}
	if sc.Rank() == 1 {
		return fail(sc)
	}
	defer sc.Close()
	for i := 0; i < 1000; i++ {
		if _, err := sc.Range(0, 30, 1, 3).Count(); err != nil {
			return err
		}
	}
	return errors.New("the job went on")
}

// divergeScenario: rank 1 returns early, closing its Context.
func divergeScenario() error {
	return failingScenario(func(sc *rdd.Context) error {
		defer sc.Close()
		return errors.New("rank 1 gives up")
	})
}

// panicScenario: rank 1 panics with a deferred Close.
func panicScenario() error {
	return failingScenario(func(sc *rdd.Context) error {
		defer sc.Close()
		panic("boom on rank 1")
	})
}

// agreeScenario: rank 1 fails alone and says so.
func agreeScenario() error {
	return failingScenario(func(sc *rdd.Context) error {
		defer sc.Close()
		return sc.Agree(errors.New("open train.idx: no such file"))
	})
}

// killScenario: rank 1 is killed inside a task, while the other ranks
// wait for its results.
func killScenario() error {
	sc, err := rdd.NewContext("mpi")
	if err != nil {
		return err
	}
	defer sc.Close()
	_, err = sc.Range(0, 30, 1, 3).Map(func(x any) any {
		if x.(int) == 15 && sc.Rank() == 1 {
			time.Sleep(200 * time.Millisecond) // the others are waiting
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		return x
	}).Count()
	if err != nil {
		return err
	}
	time.Sleep(time.Minute) // the job must end before this
	return errors.New("the job went on without rank 1")
}

// twiceScenario: a second mpi Context, and one after Close, are errors.
func twiceScenario() error {
	sc, err := rdd.NewContext("mpi")
	if err != nil {
		return err
	}
	_, err2 := rdd.NewContext("mpi")
	if err := sc.Close(); err != nil {
		return err
	}
	_, err3 := rdd.NewContext("mpi")
	return writeOut(sc.Rank(), fmt.Sprintf("%v\n%v\n", err2, err3))
}

// benchScenario times MPI_Allreduce of N floats, where SPARKNET_MPI_ARG
// is N, or N:checked to call it through the checking Comm of an mpi
// Context; rank 0 prints "allreduce N floats: SECONDS s/op over ITERS",
// the median time.
func benchScenario() error {
	arg, checked := strings.CutSuffix(os.Getenv(argEnv), ":checked")
	n, err := strconv.Atoi(arg)
	if err != nil {
		return err
	}
	var c rdd.Comm
	closeComm := func() error { return nil }
	if checked {
		sc, err := rdd.NewContext("mpi")
		if err != nil {
			return err
		}
		c, closeComm = sc.Comm(), sc.Close
	} else {
		w, err := World()
		if err != nil {
			return err
		}
		c, closeComm = w, w.Close
	}
	xs := spmdtest.Floats(c.Rank(), n)
	if err := c.AllreduceFloat32Sum(xs); err != nil { // warm up
		return err
	}
	var times []time.Duration
	var took time.Duration
	for {
		if err := c.Barrier(); err != nil {
			return err
		}
		start := time.Now()
		if err := c.AllreduceFloat32Sum(xs); err != nil {
			return err
		}
		times = append(times, time.Since(start))
		took += times[len(times)-1]
		// Every rank must make the same calls: rank 0 decides when to
		// stop, and the others follow.
		stop := []byte{0}
		if took >= time.Second && len(times) >= 5 {
			stop[0] = 1
		}
		got, err := c.Broadcast(0, stop)
		if err != nil {
			return err
		}
		if got[0] == 1 {
			break
		}
	}
	if c.Rank() == 0 {
		// The median: other work on a small machine adds outliers.
		slices.Sort(times)
		fmt.Printf("allreduce %d floats: %g s/op over %d\n", n, times[len(times)/2].Seconds(), len(times))
	}
	return closeComm()
}

// mpirun runs scenario on np ranks of this test binary and returns the
// combined output, the error (nil when the job succeeded), how long it
// took, and the folder the ranks wrote into. It skips the test when
// there is no mpirun; a job still running after two minutes is killed
// and fails the test.
func mpirun(t testing.TB, np int, scenario, arg string) (string, error, time.Duration, string) {
	t.Helper()
	path, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun not found: install Open MPI (apt-get install openmpi-bin libopenmpi-dev) or MPICH")
	}
	args := []string{"-np", strconv.Itoa(np)}
	if version, _ := exec.Command(path, "--version").CombinedOutput(); bytes.Contains(version, []byte("Open MPI")) {
		// More ranks than cores, no pinning: the tests run on small
		// machines.
		args = append(args, "--oversubscribe", "--bind-to", "none")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(args, exe)...)
	cmd.Env = append(os.Environ(),
		// Open MPI refuses to run as root without these (containers, CI).
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		scenarioEnv+"="+scenario, outEnv+"="+dir, argEnv+"="+arg)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("mpirun %s hung: killed after %v; output:\n%s", scenario, took, out)
	}
	return string(out), err, took, dir
}

// readOut reads what rank r wrote.
func readOut(t *testing.T, dir string, r int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.txt", r)))
	if err != nil {
		t.Fatalf("rank %d wrote no result: %v", r, err)
	}
	return string(b)
}

// TestMPIDriver runs the driver on 3 MPI ranks and under local[3]: every
// rank must describe the same results, and only rank 0 prints.
func TestMPIDriver(t *testing.T) {
	const np = 3
	local, err := rdd.NewContext(fmt.Sprintf("local[%d]", np))
	if err != nil {
		t.Fatal(err)
	}
	want := spmdtest.Driver(local)
	local.Close()
	out, err, _, dir := mpirun(t, np, "driver", "")
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	for r := 0; r < np; r++ {
		if got := readOut(t, dir, r); got != want {
			t.Errorf("rank %d of the MPI job computed\n%s\nlocal[%d] computed\n%s", r, got, np, want)
		}
	}
	if n := strings.Count(out, "printed by the driver"); n != 1 || !strings.Contains(out, "rank 0 of 3") {
		t.Errorf("the driver line appears %d times, want once, from rank 0:\n%s", n, out)
	}
}

// TestMPIKeyValue runs every key-value operation on 3 MPI ranks, with the
// shuffle output in memory and spilled to disk: every rank must find
// what plain Go finds, as local[3] does.
func TestMPIKeyValue(t *testing.T) {
	const np = 3
	local, err := rdd.NewContext(fmt.Sprintf("local[%d]", np))
	if err != nil {
		t.Fatal(err)
	}
	want := spmdtest.KeyValue(local, 1) + spmdtest.SaveAndRead(local, t.TempDir())
	local.Close()
	if strings.Contains(want, "MISMATCH") {
		t.Fatalf("local[%d] disagrees with plain Go:\n%s", np, want)
	}
	for _, arg := range []string{"", "spill"} {
		out, err, _, dir := mpirun(t, np, "keyvalue", arg)
		if err != nil {
			t.Fatalf("mpirun %s: %v\n%s", arg, err, out)
		}
		for r := 0; r < np; r++ {
			if got := readOut(t, dir, r); got != want {
				t.Errorf("%s: rank %d of the MPI job found\n%s\nlocal[%d] found\n%s", arg, r, got, np, want)
			}
		}
	}
}

// TestMPICollectives checks every collective of the binding on 3 ranks.
func TestMPICollectives(t *testing.T) {
	const np = 3
	out, err, _, dir := mpirun(t, np, "collectives", "")
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	for r := 0; r < np; r++ {
		if got := readOut(t, dir, r); !strings.HasPrefix(got, "ok ") {
			t.Errorf("rank %d: %s", r, got)
		}
	}
	t.Log(readOut(t, dir, 0))
}

// TestMPIOneContext checks that a process holds one mpi Context.
func TestMPIOneContext(t *testing.T) {
	out, err, _, dir := mpirun(t, 2, "twice", "")
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	got := readOut(t, dir, 1)
	for _, want := range []string{"open mpi Context already", "cannot start again"} {
		if !strings.Contains(got, want) {
			t.Errorf("rank 1: %q lacks %q", got, want)
		}
	}
}

// TestMPIFailures checks that a failure of one rank ends the whole job
// with an error that names the cause, instead of hanging.
func TestMPIFailures(t *testing.T) {
	tests := []struct {
		scenario string
		want     []string // in mpirun's output
	}{
		{"diverge", []string{"aborts the job: the ranks diverged", "rank 1: closing its Context", "ranks 0, 2: job"}},
		{"panic", []string{"aborts the job", "panic: boom on rank 1", "mpi_test.go"}},
		{"agree", []string{"aborts the job", "rank 1: Agree (open train.idx: no such file)"}},
		{"kill", []string{"signal 9"}}, // "signal: 9" from MPICH
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			out, err, took, _ := mpirun(t, 3, tt.scenario, "")
			if err == nil {
				t.Fatalf("the job succeeded:\n%s", out)
			}
			t.Logf("the job ended in %v: %v", took.Round(time.Millisecond), err)
			lower := strings.ReplaceAll(strings.ToLower(out), "signal: ", "signal ")
			for _, w := range tt.want {
				if !strings.Contains(lower, strings.ToLower(w)) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// BenchmarkMPIAllreduce times MPI_Allreduce of LeNet's weights (431,080
// floats) and of an AlexNet-sized vector (61M floats) over 2 and 4 ranks
// of this machine, and LeNet's through an mpi Context's Comm, which
// checks first that the ranks agree. Each run starts mpirun once, whose
// ranks time enough allreduces for a second; ns/op is theirs, without
// mpirun's start.
func BenchmarkMPIAllreduce(b *testing.B) {
	for _, size := range []struct {
		name string
		arg  string
	}{{"lenet", "431080"}, {"alexnet", "61000000"}, {"lenet-checked", "431080:checked"}} {
		for _, np := range []int{2, 4} {
			b.Run(fmt.Sprintf("%s/ranks=%d", size.name, np), func(b *testing.B) {
				out, err, _, _ := mpirun(b, np, "bench", size.arg)
				if err != nil {
					b.Fatalf("mpirun: %v\n%s", err, out)
				}
				var n, iters int
				var sec float64
				i := strings.Index(out, "allreduce ")
				if i < 0 {
					b.Fatalf("no timing in the output:\n%s", out)
				}
				if _, err := fmt.Sscanf(out[i:], "allreduce %d floats: %g s/op over %d", &n, &sec, &iters); err != nil {
					b.Fatalf("reading the timing: %v\n%s", err, out)
				}
				b.ReportMetric(sec*1e9, "ns/op")
				b.ReportMetric(sec*1e3, "ms/allreduce")
				b.ReportMetric(float64(4*n)/sec/1e9, "algGB/s")
				b.ReportMetric(float64(4*n)/sec/1e9*2*float64(np-1)/float64(np), "busGB/s")
			})
		}
	}
}
