package rdd_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sparknet-go/sparknet/rdd"
	"github.com/sparknet-go/sparknet/rdd/internal/spmdtest"
)

// TestKeyValue checks every key-value operation against plain Go on
// random data under local[1], local[3] and an SPMD engine of 3 goroutine
// ranks; every engine must find the same results in the same order.
func TestKeyValue(t *testing.T) {
	var outputs []string
	for _, master := range []string{"local[1]", "local[3]"} {
		sc, err := rdd.NewContext(master)
		if err != nil {
			t.Fatal(err)
		}
		out := spmdtest.KeyValue(sc, 1)
		sc.Close()
		checkKeyValue(t, master, out)
		outputs = append(outputs, out)
	}
	for r, out := range onLocalRanks(t, 3, func(sc *rdd.Context) string { return spmdtest.KeyValue(sc, 1) }) {
		name := fmt.Sprintf("rank %d of 3", r)
		checkKeyValue(t, name, out)
		outputs = append(outputs, out)
	}
	for i, out := range outputs[1:] {
		if out != outputs[0] {
			t.Errorf("engine %d found other results than local[1]:\n%s\nlocal[1]:\n%s", i+1, out, outputs[0])
		}
	}
}

// TestSaveAndReadEngines writes and reads Parquet and text folders under
// local[3] and 3 SPMD ranks, which each write their own partitions.
func TestSaveAndReadEngines(t *testing.T) {
	sc, err := rdd.NewContext("local[3]")
	if err != nil {
		t.Fatal(err)
	}
	want := spmdtest.SaveAndRead(sc, t.TempDir())
	sc.Close()
	for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
		if !strings.Contains(l, " ok ") {
			t.Errorf("local[3]: %s", l)
		}
	}
	dir := t.TempDir()
	for r, out := range onLocalRanks(t, 3, func(sc *rdd.Context) string { return spmdtest.SaveAndRead(sc, dir) }) {
		if out != want {
			t.Errorf("rank %d of 3 found\n%s\nlocal[3] found\n%s", r, out, want)
		}
	}
}

func checkKeyValue(t *testing.T, name, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 50 {
		t.Errorf("%s: only %d checks ran:\n%s", name, len(lines), out)
	}
	for _, l := range lines {
		if !strings.Contains(l, " ok ") {
			t.Errorf("%s: %s", name, l)
		}
	}
}

// onLocalRanks runs f on n goroutine ranks of an SPMD engine and
// returns what each returned; each rank's Context is closed after f.
func onLocalRanks(t *testing.T, n int, f func(sc *rdd.Context) string) []string {
	t.Helper()
	comms, err := rdd.NewLocalComms(n)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, n)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, err := rdd.NewContextWith(rdd.Options{Engine: rdd.NewSPMDEngine(c)})
			if err != nil {
				got[r] = err.Error()
				return
			}
			got[r] = f(sc)
			if err := sc.Close(); err != nil {
				got[r] += "close: " + err.Error()
			}
		}()
	}
	wg.Wait()
	return got
}
