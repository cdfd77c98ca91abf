//go:build mpi

package tests

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/repl/jupyter"
)

// TestKernelMPI runs the kernel under mpirun -np 2 --master mpi: rank 0
// answers the front end, every rank runs each cell, RDD actions span the
// ranks, errors come back once, and a shutdown ends every rank.
func TestKernelMPI(t *testing.T) {
	dir := t.TempDir()
	file := newConnectionFile(t, dir)
	j := startMPI(t, dir, 2, nil, "--kernel", file)
	var info *jupyter.ConnectionInfo
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		if i, err := jupyter.ParseConnectionInfo(b); err == nil && i.ShellPort != 0 && i.HBPort != 0 {
			info = i
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank 0 did not write its ports; output:\n%s", j.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c, err := jupyter.Dial(*info)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitReady(30 * time.Second); err != nil {
		t.Fatalf("%v; output:\n%s", err, j.out)
	}
	k := &kernelProc{t: t, c: c, log: j.out}
	for _, tc := range []struct{ code, want string }{
		{"sc.Workers()", "2 (int)\n"},
		{"n, _ := sc.Range(0, 100, 1, 4).Map(func(v any) any { return v.(int) * 2 }).Count()\nn", "100 (int)\n"},
		{"sum, _ := sc.Range(0, 10, 1, 4).Reduce(func(a, b any) any { return a.(int) + b.(int) })\nfmt.Println(\"sum\", sum)", "sum 45\n"},
	} {
		if got := outputText(t, k.execute(tc.code)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.code, got, tc.want)
		}
	}
	ex := k.execute("undefinedName + 1")
	if rc := content(t, ex.Reply); rc["status"] != "error" || !strings.Contains(rc["evalue"].(string), "cell[4]:1:1") {
		t.Errorf("error reply: %s", ex.Reply.Content)
	}
	if _, err := c.Request(jupyter.Control, "shutdown_request", map[string]any{"restart": false}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-j.done:
		if err != nil {
			t.Errorf("the job ended with %v; output:\n%s", err, j.out)
		}
		j.done <- err
	case <-time.After(30 * time.Second):
		t.Fatalf("the ranks did not end after shutdown_request; output:\n%s", j.out)
	}
}
