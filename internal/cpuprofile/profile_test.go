package cpuprofile

import (
	"bytes"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

//go:noinline
func spin(d time.Duration) float64 {
	x := 1.0
	for start := time.Now(); time.Since(start) < d; {
		for range 10000 {
			x = x*1.0000001 + 1e-9
		}
	}
	return x
}

var sink float64

// TestRecord profiles a busy loop and finds its function in most samples,
// innermost frames first.
func TestRecord(t *testing.T) {
	samples, err := Record(func() error {
		sink = spin(300 * time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var all, inSpin int64
	for _, s := range samples {
		all += s.Count
		for i, f := range s.Stack {
			if strings.HasSuffix(f, "cpuprofile.spin") {
				inSpin += s.Count
				// Innermost first: what spin called (the clock's
				// functions, when the sample fell in time.Since) before
				// it, its caller after it.
				for _, g := range s.Stack[:i] {
					if !strings.HasPrefix(g, "runtime.") && !strings.HasPrefix(g, "time.") {
						t.Errorf("%s is inside spin in %q, want only the clock's functions there", g, s.Stack)
					}
				}
				if i+1 >= len(s.Stack) || !strings.HasSuffix(s.Stack[i+1], "TestRecord.func1") {
					t.Errorf("spin is not called by TestRecord.func1 in %q", s.Stack)
				}
				break
			}
		}
	}
	if all < 10 || inSpin < all/2 {
		t.Errorf("%d of %d samples in spin, want most of at least 10", inSpin, all)
	}
}

// TestRecordBusy: a second profile while one runs is an error, not a
// corrupted profile.
func TestRecordBusy(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skip("a CPU profile is already running:", err)
	}
	defer pprof.StopCPUProfile()
	if _, err := Record(func() error { return nil }); err == nil {
		t.Error("Record while a profile runs: no error")
	}
}

// TestParseMalformed: truncated and corrupt profiles give errors.
func TestParseMalformed(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skip(err)
	}
	sink = spin(50 * time.Millisecond)
	pprof.StopCPUProfile()
	good := buf.Bytes()
	if _, err := Parse(good); err != nil {
		t.Fatalf("a whole profile: %v", err)
	}
	if _, err := Parse(good[:len(good)/2]); err == nil {
		t.Error("a gzipped profile cut in half: no error")
	}
	for _, bad := range [][]byte{{0x12, 0x05, 0x0a}, {0x0a}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(% x): no error", bad)
		}
	}
}
