package repl

import (
	"bytes"
	"io"
	"sync"
)

// traceFilter is the interpreter's standard error. It passes output
// through to w, except for the lines the interpreter writes as a panic
// unwinds, which it keeps for the panic's report.
type traceFilter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	traces []frame
}

// frame is a function a panic unwound: the interpreter's name for it
// (main.f, main.func, main) and a position in it.
type frame struct{ pos, fn string }

func (t *traceFilter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		line := string(t.buf[:i])
		t.buf = t.buf[i+1:]
		if m := panicLine.FindStringSubmatch(line); m != nil {
			t.traces = append(t.traces, frame{pos: m[1], fn: m[2]})
			continue
		}
		if _, err := io.WriteString(t.w, line+"\n"); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// take returns and forgets the frames kept so far.
func (t *traceFilter) take() []frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := t.traces
	t.traces = nil
	return tr
}
