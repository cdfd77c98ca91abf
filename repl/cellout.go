package repl

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sparknet-go/sparknet/repl/display"
)

// A cellSink receives the output of one cell of a notebook front end:
// the Jupyter kernel publishes it, a notebook run keeps it in the
// notebook it writes.
type cellSink interface {
	// stream appends text to the cell's "stdout" or "stderr".
	stream(name, text string)
	// display shows a MIME bundle; with a display id, update replaces
	// the display shown earlier with that id.
	display(data, meta map[string]any, id string, update bool)
	// result shows the cell's result.
	result(data, meta map[string]any)
	// fail shows the cell's error.
	fail(ename, evalue string, traceback []string)
}

// router sends what a session writes and shows to the sink of the cell
// it comes from (see Session.Origin): each cell's output stays with its
// cell, also when a goroutine the cell started writes later. Writes to
// the output streams are gathered for a moment, so that a loop of
// prints makes few messages; anything else a cell shows goes out after
// the text written before it.
type router struct {
	s *Session

	mu       sync.Mutex
	cur      cellSink // the running cell, or the last one
	pending  []streamText
	timer    *time.Timer
	displays int // display ids made so far
}

// streamText is text written to a stream and not yet sent.
type streamText struct {
	sink cellSink
	name string
	text strings.Builder
}

// streamDelay is how long written text waits for more before it is sent.
const streamDelay = 20 * time.Millisecond

// begin makes sink the running cell.
func (r *router) begin(sink cellSink) {
	r.mu.Lock()
	r.cur = sink
	r.mu.Unlock()
}

// sink returns the sink of the cell the calling goroutine works for.
func (r *router) sink() cellSink {
	if r.s != nil {
		if cs, ok := r.s.Origin().(cellSink); ok && cs != nil {
			return cs
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// writer returns the writer of a stream, "stdout" or "stderr".
func (r *router) writer(name string) io.Writer { return streamWriter{r, name} }

type streamWriter struct {
	r    *router
	name string
}

func (w streamWriter) Write(p []byte) (int, error) {
	sink := w.r.sink()
	if sink == nil || len(p) == 0 {
		return len(p), nil
	}
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.pending); n > 0 && r.pending[n-1].sink == sink && r.pending[n-1].name == w.name {
		r.pending[n-1].text.Write(p)
	} else {
		r.pending = append(r.pending, streamText{sink: sink, name: w.name})
		r.pending[len(r.pending)-1].text.Write(p)
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(streamDelay, r.flushSome)
	}
	return len(p), nil
}

// flushSome is the timer's flush: the text written so far, less the
// bytes of a character that the last write cut (the rest of it comes
// with the next write; sent apart, each part would show as U+FFFD).
func (r *router) flushSome() {
	r.mu.Lock()
	defer r.mu.Unlock()
	var tail string
	var last struct {
		sink cellSink
		name string
	}
	if n := len(r.pending); n > 0 {
		text := r.pending[n-1].text.String()
		if k := partialRune([]byte(text[max(0, len(text)-3):])); k > 0 {
			tail = text[len(text)-k:]
			last.sink, last.name = r.pending[n-1].sink, r.pending[n-1].name
			r.pending[n-1].text.Reset()
			r.pending[n-1].text.WriteString(text[:len(text)-k])
		}
	}
	r.flushLocked()
	if tail != "" {
		r.pending = append(r.pending, streamText{sink: last.sink, name: last.name})
		r.pending[len(r.pending)-1].text.WriteString(tail)
	}
}

// partialRune returns the length of the incomplete UTF-8 encoding of a
// character at the end of b, or 0.
func partialRune(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c&0xC0 == 0x80 {
			continue // a continuation byte: look further back
		}
		if c < 0x80 {
			return 0
		}
		if !utf8.FullRune(b[len(b)-k:]) {
			return k
		}
		return 0
	}
	return 0
}

// flush sends the text written so far.
func (r *router) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
}

func (r *router) flushLocked() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	for i := range r.pending {
		p := &r.pending[i]
		if p.text.Len() > 0 {
			p.sink.stream(p.name, p.text.String())
		}
	}
	r.pending = r.pending[:0]
}

// show is the session's Options.Show: every displayed value becomes a
// display of its cell.
func (r *router) show(v any) bool {
	sink := r.sink()
	if sink == nil {
		return false
	}
	data, meta := mimeBundle(v)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	sink.display(data, meta, "", false)
	return true
}

// result is the session's Options.Result: an echoed value becomes the
// cell's result.
func (r *router) result(v any) bool {
	sink := r.sink()
	if sink == nil {
		return false
	}
	data, meta := mimeBundle(v)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	sink.result(data, meta)
	return true
}

// fail shows err as the error of the running cell.
func (r *router) fail(sink cellSink, err error) {
	ename, evalue, tb := errorParts(err)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	sink.fail(ename, evalue, tb)
}

// newLive makes a live display (display.SetLive) in the calling
// goroutine's cell.
func (r *router) newLive() display.Live {
	return &liveDisplay{r: r}
}

// liveDisplay is a display updated in place through its display id.
// When it is updated from a later cell (a training run resumed there), it
// starts again in that cell.
type liveDisplay struct {
	r    *router
	mu   sync.Mutex
	sink cellSink
	id   string
}

func (l *liveDisplay) Update(v any) {
	sink := l.r.sink()
	if sink == nil {
		return
	}
	data, meta := mimeBundle(v)
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	if sink != l.sink {
		r.displays++
		l.sink, l.id = sink, fmt.Sprintf("sparknet-live-%d-%d", time.Now().UnixNano(), r.displays)
		sink.display(data, meta, l.id, false)
		return
	}
	sink.display(data, meta, l.id, true)
}

func (l *liveDisplay) Close() {}

// mimeBundle returns the MIME bundle of v for a notebook: text/plain
// always (the text the terminal shows), text/html for tables and arrays,
// image/png for figures, heat maps and images, text/markdown for
// Markdown.
func mimeBundle(v any) (data, meta map[string]any) {
	data = map[string]any{}
	meta = map[string]any{}
	name := ""
	if nv, ok := v.(namedValue); ok {
		v, name = nv.v, nv.name
	}
	switch x := v.(type) {
	case display.Markdown:
		data["text/plain"] = string(x)
		data["text/markdown"] = string(x)
		return data, meta
	case display.HTML:
		data["text/plain"] = string(x)
		data["text/html"] = string(x)
		return data, meta
	case *display.ProgressView:
		data["text/plain"] = x.String()
		data["text/html"] = x.HTML()
		return data, meta
	}
	text := formatNamed(v, name)
	if h, ok := display.RichHTML(v); ok {
		data["text/html"] = h
	}
	if png, ok, err := display.RichPNG(v); ok {
		if err != nil {
			text += fmt.Sprintf("\n(no image: %v)", err)
		} else {
			data["image/png"] = base64.StdEncoding.EncodeToString(png)
		}
	}
	data["text/plain"] = text
	return data, meta
}

// namedValue is a result whose type has a name the value's dynamic type
// lacks (a type declared in the session).
type namedValue struct {
	v    any
	name string
}

// errorParts returns the name, value and traceback lines of a cell's
// error as Jupyter shows them.
func errorParts(err error) (ename, evalue string, traceback []string) {
	text := FormatError(err)
	traceback = strings.Split(text, "\n")
	evalue, _, _ = strings.Cut(text, "\n")
	var pe *PanicError
	var ex *ExitError
	var re *RankError
	switch {
	case errors.Is(err, ErrInterrupted):
		ename = "Interrupted"
	case errors.As(err, &pe):
		ename = "panic"
		evalue = strings.TrimPrefix(evalue, "panic: ")
	case errors.As(err, &ex):
		ename = "Exit"
	case errors.As(err, &re):
		ename = "RankError"
	default:
		ename = "Error"
	}
	return ename, evalue, traceback
}
