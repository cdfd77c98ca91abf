package repl

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// How output finds its input. A front end that shows each input's
// output apart (the Jupyter kernel shows it under its cell) evaluates
// each input with a context made by WithOrigin, and asks Origin, when
// output arrives, which input it belongs to: the input running on the
// calling goroutine, or the input that started the goroutine with a go
// statement, however much later it writes. Other goroutines (an RDD
// engine's workers) count for the input running now.

type originKey struct{}

// WithOrigin returns a context whose inputs carry tag: output they write,
// and output of the goroutines they start, has tag as its Origin.
func WithOrigin(ctx context.Context, tag any) context.Context {
	return context.WithValue(ctx, originKey{}, tag)
}

// Origin returns the tag (see WithOrigin) of the input the calling
// goroutine works for: the input that started it with a go statement,
// else the input running now; nil when neither has one.
func (s *Session) Origin() any {
	if origins.n.Load() > 0 {
		if tag, ok := origins.m.Load(goid()); ok {
			return tag.(originTag).tag
		}
	}
	return s.ctx.get().Value(originKey{})
}

// originTag is the origin of a goroutine of a session.
type originTag struct{ tag any }

// origins maps the ids of goroutines that inputs started to their tags.
var origins struct {
	m sync.Map // goroutine id → originTag
	n atomic.Int64
}

// adopt makes tag the origin of the calling goroutine and returns the
// function that forgets it.
func (s *Session) adopt(tag any) func() {
	id := goid()
	origins.m.Store(id, originTag{tag})
	origins.n.Add(1)
	return func() {
		origins.m.Delete(id)
		origins.n.Add(-1)
	}
}

// goid returns the id of the calling goroutine, from the first line of
// its stack trace ("goroutine 42 [running]:").
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
