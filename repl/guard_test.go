package repl

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/repl/internal/stack"
)

// newLimitedSession starts a session with a small stack limit and memory
// budget.
func newLimitedSession(t *testing.T, stackLimit, budget int64) (*Session, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: &errb, Master: "local[1]", StackLimit: stackLimit, MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &out, &errb
}

func TestRecursionLimit(t *testing.T) {
	if !stack.Supported {
		t.Skip("the stack is not measured on this platform")
	}
	s, out, _ := newLimitedSession(t, 4<<20, 0)
	ctx := context.Background()
	if err := s.Eval(ctx, "func down(n int) int { return down(n+1) + 1 }"); err != nil {
		t.Fatal(err)
	}
	err := s.Eval(ctx, "down(0)")
	var so *StackOverflowError
	if !errors.As(err, &so) || so.Func != "down" {
		t.Fatalf("unbounded recursion: %v, want a *StackOverflowError in down", err)
	}
	for _, want := range []string{"runtime error: stack overflow: calls of down nest too deeply", "in down at in[1]:1:6", "at in[2]:1:1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report %q lacks %q", err, want)
		}
	}
	// Bounded recursion below the limit runs as before, and so does the
	// session.
	out.Reset()
	if err := s.Eval(ctx, "func depth(n int) int { if n == 0 { return 0 }; return depth(n-1) + 1 }\ndepth(3000)"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "3000 (int)\n" {
		t.Fatalf("depth(3000) printed %q", got)
	}
	// Recursion through a closure and a method is caught too.
	if err := s.Eval(ctx, "type walker struct{}\nfunc (w walker) walk(n int) int { f := func() int { return w.walk(n + 1) }; return f() }"); err != nil {
		t.Fatal(err)
	}
	if err := s.Eval(ctx, "walker{}.walk(0)"); !errors.As(err, &so) {
		t.Fatalf("recursion through a method and a closure: %v", err)
	}
}

func TestRecursionLimitInGoroutine(t *testing.T) {
	if !stack.Supported {
		t.Skip("the stack is not measured on this platform")
	}
	if raceEnabled {
		t.Skip("interpreted goroutines race with the interpreter")
	}
	s, out, errb := newLimitedSession(t, 4<<20, 0)
	ctx := context.Background()
	if err := s.Eval(ctx, "func down(n int) int { return down(n+1) + 1 }\ngo func() { down(0) }()"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(errb.String(), "stack overflow") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(errb.String(), "panic: runtime error: stack overflow: calls of down") {
		t.Fatalf("a goroutine's runaway recursion reported %q", errb.String())
	}
	if err := s.Eval(ctx, "1 + 1"); err != nil || !strings.Contains(out.String(), "2 (int)") {
		t.Fatalf("after the goroutine stopped: %v, %q", err, out.String())
	}
}

func TestMakeBudget(t *testing.T) {
	s, out, _ := newLimitedSession(t, 0, 256<<20)
	ctx := context.Background()
	for _, tc := range []struct{ in, what string }{
		{"make([]float64, 1<<40)", "make([]float64, 1099511627776) needs 8 TiB"},
		{"n := 1 << 30; make([]int64, 0, n)", "make([]int64, …, 1073741824) needs 8 GiB"},
		{"make(map[string]int, 1<<40)", "make(map[string]int, 1099511627776)"},
		{"type point struct{ X, Y float64 }; make(chan point, uint64(1)<<35)", "make(chan point, 34359738368) needs 512 GiB"},
		{"type ids []int32; k := int8(100); make(ids, int64(k)<<30)", "make(ids, 107374182400) needs 400 GiB"},
		{"type point struct{ X, Y, Z float64 }; make([]point, 1<<40)", "make([]point, 1099511627776) needs 24 TiB"}, // point declared again
	} {
		err := s.Eval(ctx, tc.in)
		var me *MemoryError
		if !errors.As(err, &me) {
			t.Errorf("%s: %v, want a *MemoryError", tc.in, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.what) || !strings.Contains(msg, "memory budget of 256 MiB") {
			t.Errorf("%s: %q lacks %q and the budget", tc.in, msg, tc.what)
		}
	}
	// Sizes within the budget are made as before; a refusal can be
	// recovered like any run-time error.
	out.Reset()
	src := `func try() (err error) {
	defer func() { err = recover().(runtime.Error) }()
	_ = make([]byte, 1<<40)
	return nil
}
len(make([]float32, 1<<20)) + len(make([]int, 3, 10)) + cap(make(chan int, 7)) + len(make(map[int]int, 5))`
	if err := s.Eval(ctx, "import \"runtime\"\n"+src); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "1048586 (int)\n" {
		t.Fatalf("makes within the budget printed %q", got)
	}
	out.Reset()
	if err := s.Eval(ctx, "try()"); err != nil || !strings.Contains(out.String(), "needs 1 TiB") {
		t.Fatalf("recovering a refused make: %v, %q", err, out.String())
	}
}

// TestMakeRange checks make's run-time errors in Go's words: negative
// sizes, and a length past the capacity.
func TestMakeRange(t *testing.T) {
	s, out, _ := newTestSession(t)
	src := `func try(f func()) {
	defer func() { fmt.Println(recover()) }()
	f()
}
n, c := -1, 2
try(func() { _ = make([]int, n) })
try(func() { _ = make([]int, 1, n) })
try(func() { _ = make([]int, 3, c) })
try(func() { _ = make(chan int, n) })
try(func() { fmt.Println(len(make(map[int]int, n))) })`
	if err := s.Eval(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	want := "runtime error: makeslice: len out of range\nruntime error: makeslice: cap out of range\n" +
		"runtime error: makeslice: cap out of range\nmakechan: size out of range\n0\n<nil>\n"
	if got := out.String(); got != want {
		t.Fatalf("make's errors printed %q, want %q", got, want)
	}
	err := s.Eval(context.Background(), "k := make([]float64, n)")
	if err == nil || !strings.Contains(err.Error(), "panic: runtime error: makeslice: len out of range") {
		t.Fatalf("an unrecovered make: %v", err)
	}
}

func TestMemoryWatch(t *testing.T) {
	s, _, _ := newLimitedSession(t, 0, 64<<20)
	src := `var keep [][]byte
for {
	keep = append(keep, []byte(strings.Repeat("x", 1<<16)))
}`
	err := s.Eval(context.Background(), src)
	var me *MemoryError
	if !errors.As(err, &me) || me.What != "" || me.InUse <= 64<<20 {
		t.Fatalf("a heap that keeps growing: %v, want a *MemoryError about the heap", err)
	}
	if !strings.Contains(err.Error(), "the heap grew to") {
		t.Errorf("report: %q", err)
	}
}

func TestStopGoroutines(t *testing.T) {
	if raceEnabled {
		t.Skip("interpreted goroutines race with the interpreter")
	}
	s, out, _ := newTestSession(t)
	ctx := context.Background()
	if err := s.Eval(ctx, "n := 0\ngo func() { for { n++ } }()\ngo func() { for { time.Sleep(time.Millisecond) } }()"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if g := s.Goroutines(); g != 2 {
		t.Fatalf("Goroutines() = %d, want 2", g)
	}
	ran, left := s.StopGoroutines(5 * time.Second)
	if ran != 2 || left != 0 {
		t.Fatalf("StopGoroutines() = %d, %d; want 2, 0", ran, left)
	}
	if err := s.Eval(ctx, "a := n; time.Sleep(20 * time.Millisecond); a == n"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "true (bool)\n" {
		t.Fatalf("n changed after the stop: %q", got)
	}
	// Functions defined before the stop still work, and so do new
	// goroutines.
	out.Reset()
	if err := s.Eval(ctx, "func twice(v int) int { return 2 * v }\nch := make(chan int)\ngo func() { ch <- twice(21) }()\n<-ch"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "42 (int)\n" {
		t.Fatalf("after the stop: %q", got)
	}
	// Reset stops them too.
	if err := s.Eval(ctx, "go func() { for { n++ } }()"); err != nil {
		t.Fatal(err)
	}
	next := s.Number()
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if g := s.Goroutines(); g != 0 {
		t.Fatalf("after Reset, %d goroutines run", g)
	}
	// The inputs' numbers go on (in[N] names one input alone).
	if n := s.Number(); n != next {
		t.Errorf("after Reset, the next input is number %d, want %d", n, next)
	}
}

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"1024": 1024, "8GiB": 8 << 30, "8G": 8 << 30, "8GB": 8e9, "512 MiB": 512 << 20, "1.5KiB": 1536, "2t": 2 << 40,
	} {
		got, err := ParseMemory(in)
		if err != nil || got != want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if physicalMemory() > 0 {
		half, err := ParseMemory("50%")
		if err != nil || half <= 0 || half > physicalMemory() {
			t.Errorf("ParseMemory(50%%) = %d, %v", half, err)
		}
	}
	for _, bad := range []string{"", "x", "-1G", "8 parsecs", "0%", "150%"} {
		if _, err := ParseMemory(bad); err == nil {
			t.Errorf("ParseMemory(%q) accepted", bad)
		}
	}
}

// TestRecover checks recover in inputs: it returns the value panic was
// given, and a recovered panic leaves nothing in the report of a later one.
func TestRecover(t *testing.T) {
	s, out, _ := newTestSession(t)
	ctx := context.Background()
	src := `var errBad = errors.New("bad")
func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}
func inner() { panic(errBad) }
err, ok := catch(inner).(error)
fmt.Println(ok, errors.Is(err, errBad), catch(func() { panic(7) }), catch(func() {}))`
	if err := s.Eval(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "true true 7 <nil>\n" {
		t.Fatalf("recovered values printed %q", got)
	}
	err := s.Eval(ctx, "func outer() { panic(\"last\") }\nouter()")
	if err == nil || strings.Contains(err.Error(), "inner") || strings.Contains(err.Error(), "func literal") {
		t.Fatalf("the report of an unrecovered panic: %v; it must name only outer", err)
	}
	// A recover the input declares itself is its own.
	out.Reset()
	if err := s.Eval(ctx, "func mine(recover func() int) int { return recover() }\nmine(func() int { return 3 })"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "3 (int)\n" {
		t.Fatalf("a parameter named recover: %q", got)
	}
}

// TestBigValues checks that values of fixed types beyond the memory
// budget, which the interpreter would allocate when a function starts,
// are refused before the input runs, and that strings.Repeat and
// bytes.Repeat check their sizes.
func TestBigValues(t *testing.T) {
	s, out, _ := newLimitedSession(t, 0, 256<<20)
	ctx := context.Background()
	for _, tc := range []struct{ in, want string }{
		{"x := new([1 << 30]byte)", "in[1]:1:6: new([1 << 30]byte) needs 1 GiB, more than the session's memory budget of 256 MiB"},
		{"var big [1 << 28]int32", "variable big of type [268435456]int32 needs 1 GiB"},
		{"type grid [1 << 15][1 << 15]float64\nfunc f() { fmt.Println(\"ran\"); g := grid{}; _ = g }", "variable g of type grid needs 8 GiB"},
		{"p := struct{ a [1 << 31]byte }{}", "needs 2 GiB"},
		{`strings.Repeat("ab", 1 << 30)`, "strings.Repeat(2 bytes, 1073741824) needs 2 GiB"},
		{"import \"bytes\"\nbytes.Repeat([]byte{1}, 1 << 29)", "bytes.Repeat(1 bytes, 536870912) needs 512 MiB"},
	} {
		err := s.Eval(ctx, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.in, err, tc.want)
		}
	}
	if strings.Contains(out.String(), "ran") {
		t.Errorf("a refused input ran: %q", out.String())
	}
	out.Reset()
	// Types that depend on type parameters have no size to check.
	if err := s.Eval(ctx, "type box[T any] struct{ v T; a [4]T }\nfunc mk[T any](v T) box[T] { var b box[T]; b.v = v; return b }\nmk(3).v"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := s.Eval(ctx, `ok := new([1 << 20]byte); len(ok) + len(strings.Repeat("ab", 3))`); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "1048582 (int)\n" {
		t.Errorf("sizes within the budget: %q", got)
	}
}

// TestDeadlock checks that an input whose goroutines all wait for each
// other stops with a *DeadlockError, and that waits something else ends
// (a sleeping goroutine, a deadline, ctx) are left alone.
func TestDeadlock(t *testing.T) {
	s, out, _ := newTestSession(t)
	ctx := context.Background()
	for _, in := range []string{
		"ch, ch2 := make(chan int), make(chan int)",
		"go func() { v := <-ch; ch2 <- v }()", // waits from an earlier input
	} {
		if err := s.Eval(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	err := s.Eval(ctx, "fmt.Println(\"waiting\")\n<-ch2")
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatalf("a deadlock ended with %v", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "fatal error: all goroutines are asleep - deadlock!\n\tat in[3]:2:1") ||
		!strings.Contains(msg, "2 goroutines waiting") {
		t.Fatalf("a deadlock's message: %q", msg)
	}
	out.Reset()
	for _, in := range []string{
		`c := make(chan int); go func() { time.Sleep(150 * time.Millisecond); c <- 1 }(); <-c`,
		`c, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond); <-c.Done(); cancel()`,
		`<-time.After(150 * time.Millisecond)`,
		`1 + 1`,
	} {
		if err := s.Eval(ctx, "import \"context\"\n"+in); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
	}
	if got := out.String(); !strings.HasPrefix(got, "1 (int)\n") || !strings.HasSuffix(got, "(time.Time)\n2 (int)\n") {
		t.Fatalf("printed %q", got)
	}
	// Waiting for Ctrl-C is no deadlock.
	cctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
	defer cancel()
	if err := s.Eval(cctx, "<-ctx.Done()"); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("waiting for ctx: %v", err)
	}
	// (Last: the input's goroutine waits on in the compiled Lock.)
	if err := s.Eval(ctx, "var mu sync.Mutex\nmu.Lock()\nmu.Lock()"); !errors.As(err, &de) || !strings.Contains(err.Error(), "sync.Mutex.Lock") {
		t.Fatalf("a lock taken twice: %v", err)
	}
}

// Functions whose parameters have no names get their arguments: func
// literals (a layer factory passed to caffe.RegisterLayer, say),
// functions and methods, called from the session and from compiled code.
func TestUnnamedParameters(t *testing.T) {
	s, out, _ := newLimitedSession(t, 0, 0)
	ctx := context.Background()
	src := `x := 1
g := func(*int, string) int { return 7 }
func h(*int) int { return 8 }
type T struct{}
func (T) M(*int, ...string) int { return 9 }
k := func(int) int { return 10 }
fmt.Println(g(&x, ""), h(&x), T{}.M(&x), k(1))
fmt.Println(strings.Map(func(rune) rune { return 'z' }, "ab"))`
	if err := s.Eval(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "7 8 9 10\nzz\n" {
		t.Errorf("printed %q", got)
	}
}

// TestStoppedInputGoesNoFurther checks that an input stopped while its
// goroutine waits in a compiled call (a WaitGroup whose goroutines the
// stop unwinds) does not run its next statements, as a Go program that
// died there would not.
func TestStoppedInputGoesNoFurther(t *testing.T) {
	s, out, _ := newTestSession(t)
	err := s.Eval(context.Background(), `var wg sync.WaitGroup
c := make(chan int)
wg.Add(1)
go func() { defer wg.Done(); c <- 1 }()
wg.Wait()
fmt.Println("not reached")`)
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatalf("a deadlock ended with %v", err)
	}
	s.StopGoroutines(time.Second) // as a script's end and :reset do
	time.Sleep(100 * time.Millisecond)
	if got := out.String(); strings.Contains(got, "not reached") {
		t.Fatalf("the stopped input went on: %q", got)
	}
}
