package stack

import "testing"

// deep recurses n times and returns the stack use at the bottom.
func deep(n int) uintptr {
	var pad [256]byte
	if n == 0 {
		u, _ := Used()
		return u + uintptr(pad[0])
	}
	return deep(n-1) + uintptr(pad[n%256]&0)
}

func TestUsedGrowsWithDepth(t *testing.T) {
	if !Supported {
		t.Skip("stack use is not measured on this platform")
	}
	shallow := deep(1)
	far := deep(10000)
	if shallow == 0 || shallow > 64<<10 {
		t.Fatalf("Used near the top = %d", shallow)
	}
	// Each frame holds at least the 256-byte pad.
	if far < shallow+10000*256 {
		t.Fatalf("Used at depth 10000 = %d, at depth 1 = %d", far, shallow)
	}
	if far > shallow+10000*4096 {
		t.Fatalf("Used at depth 10000 = %d, more than 4 KiB a frame", far)
	}
}

func TestUsedOnAnotherGoroutine(t *testing.T) {
	if !Supported {
		t.Skip()
	}
	done := make(chan uintptr)
	go func() { done <- deep(5000) }()
	if u := <-done; u < 5000*256 {
		t.Fatalf("Used on a new goroutine at depth 5000 = %d", u)
	}
}

func BenchmarkUsed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Used()
	}
}
