package alloctest

import (
	"strings"
	"testing"
)

var sink []byte

func allocateOne() { sink = make([]byte, 16+len(sink)%2) }

func TestCountSites(t *testing.T) {
	n, sites := Count(10, allocateOne)
	if n != 1 {
		t.Errorf("one allocation a run counted as %d:%s", n, String(sites))
	}
	if len(sites) != 1 || sites[0].Objects != 10 || !strings.Contains(sites[0].Stack[0], "alloctest.allocateOne") {
		t.Errorf("sites:%s, want 10 at allocateOne", String(sites))
	}
	if n, sites := Count(10, func() {}); n != 0 || len(sites) != 0 {
		t.Errorf("an empty function counted %d:%s", n, String(sites))
	}
}

// TestCountHandOffs hands values between goroutines that block on
// channels, as pooled goroutines do: the wait records the runtime
// allocates for them are its own, not counted.
func TestCountHandOffs(t *testing.T) {
	in, out := make(chan int), make(chan int)
	go func() {
		for v := range in {
			out <- v + 1
		}
	}()
	defer close(in)
	n, sites := Count(200, func() {
		in <- 1
		<-out
	})
	if n != 0 {
		t.Errorf("hand-offs counted %d allocations a run:%s", n, String(sites))
	}
}
