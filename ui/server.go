package ui

import (
	"bufio"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed assets
var assets embed.FS

// pageInterval is the shortest time between two live updates of a page;
// tickInterval is how often a page with running work is redrawn so that
// its clocks move.
const (
	pageInterval = time.Second
	tickInterval = 2 * time.Second
)

// app serves one application's pages and API from its state.
type app struct {
	id     string
	state  *State
	base   string        // the path the pages live under: "" or "/history/ID"
	stream *recordStream // live records, or nil for a replayed log
	replay []Record      // a replayed log's records, for /api/v1/events

	// sync, for a live application, waits until the events that happened
	// so far are in the state.
	sync func()
}

// newLiveHandler serves the UI of a running application.
func newLiveHandler(st *State, id string, stream *recordStream) (http.Handler, *app) {
	a := &app{id: id, state: st, stream: stream}
	mux := http.NewServeMux()
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("GET /api/v1/applications", func(w http.ResponseWriter, r *http.Request) {
		d, _ := st.Application()
		writeJSON(w, http.StatusOK, []ApplicationData{d})
	})
	mux.HandleFunc("/api/v1/applications/{app}/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("app") != id {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no application %q: this UI shows %s", r.PathValue("app"), id))
			return
		}
		a.api(w, r, r.PathValue("rest"))
	})
	mux.HandleFunc("/api/v1/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		a.api(w, r, r.PathValue("rest"))
	})
	mux.HandleFunc("/", a.page)
	return mux, a
}

// staticHandler serves the embedded style sheet and script.
func staticHandler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err)
	}
	files := http.StripPrefix("/static/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		files.ServeHTTP(w, r)
	})
}

// apiEndpoints lists the endpoints under /api/v1/, for error messages.
var apiEndpoints = []string{
	"applications", "jobs", "jobs/{id}", "stages", "stages/{id}", "workers", "storage", "storage/{id}",
	"trainers", "trainers/{id}", "trainers/{id}/rounds", "trainers/{id}/steps", "trainers/{id}/schedule",
	"environment", "events",
}

// api answers /api/v1/REST for the application.
func (a *app) api(w http.ResponseWriter, r *http.Request, rest string) {
	if a.sync != nil {
		a.sync()
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: the API is read-only; use GET", r.Method, r.URL.Path))
		return
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	st := a.state
	id := func(what string) (int, bool) {
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("%s ID %q is not an integer", what, parts[1]))
			return 0, false
		}
		return n, true
	}
	answer := func(v any, err error) {
		var nf *NotFoundError
		switch {
		case errors.As(err, &nf):
			writeError(w, http.StatusNotFound, err.Error())
		case err != nil:
			writeError(w, http.StatusInternalServerError, err.Error())
		default:
			writeJSON(w, http.StatusOK, v)
		}
	}
	switch {
	case len(parts) == 1 && parts[0] == "":
		writeJSON(w, http.StatusOK, apiEndpoints)
	case len(parts) == 1 && parts[0] == "applications":
		d, _ := st.Application()
		writeJSON(w, http.StatusOK, []ApplicationData{d})
	case len(parts) == 1 && parts[0] == "jobs":
		status := strings.ToUpper(r.URL.Query().Get("status"))
		switch status {
		case "", "RUNNING", "SUCCEEDED", "FAILED":
		default:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown job status %q (known: running, succeeded, failed)", r.URL.Query().Get("status")))
			return
		}
		writeJSON(w, http.StatusOK, st.Jobs(status))
	case len(parts) == 2 && parts[0] == "jobs":
		if n, ok := id("job"); ok {
			answer(st.Job(n))
		}
	case len(parts) == 1 && parts[0] == "stages":
		writeJSON(w, http.StatusOK, st.Stages())
	case len(parts) == 2 && parts[0] == "stages":
		if n, ok := id("stage"); ok {
			answer(st.Stage(n))
		}
	case len(parts) == 1 && parts[0] == "workers":
		writeJSON(w, http.StatusOK, st.Workers())
	case len(parts) == 1 && parts[0] == "storage":
		writeJSON(w, http.StatusOK, st.Storage())
	case len(parts) == 2 && parts[0] == "storage":
		if n, ok := id("RDD"); ok {
			answer(st.RDD(n))
		}
	case len(parts) == 1 && parts[0] == "trainers":
		writeJSON(w, http.StatusOK, st.Trainers())
	case len(parts) == 2 && parts[0] == "trainers":
		if n, ok := id("trainer"); ok {
			answer(st.Trainer(n))
		}
	case len(parts) == 3 && parts[0] == "trainers" && parts[2] == "rounds":
		if n, ok := id("trainer"); ok {
			answer(st.Rounds(n))
		}
	case len(parts) == 3 && parts[0] == "trainers" && parts[2] == "steps":
		if n, ok := id("trainer"); ok {
			answer(st.Steps(n))
		}
	case len(parts) == 3 && parts[0] == "trainers" && parts[2] == "schedule":
		if n, ok := id("trainer"); ok {
			answer(st.Schedule(n))
		}
	case len(parts) == 1 && parts[0] == "environment":
		writeJSON(w, http.StatusOK, st.Environment())
	case len(parts) == 1 && parts[0] == "events":
		a.events(w, r)
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown endpoint /api/v1/%s (known: %s)", rest, strings.Join(apiEndpoints, ", ")))
	}
}

// writeJSON writes v as indented JSON with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeError writes {"error": msg} with the status.
func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(apiError{Error: msg})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// sse starts a server-sent event stream, or reports why it cannot.
func sse(w http.ResponseWriter) (http.Flusher, bool) {
	f, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "this connection cannot stream events")
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	return f, true
}

// writeEvent writes one server-sent event; data may span lines.
func writeEvent(w io.Writer, name string, data []byte) error {
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	for _, line := range strings.Split(string(data), "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// events streams the application's records as server-sent events named
// "record", one JSON record each: from now on for a running application,
// all of them for a replayed log. The stream ends with an "end" event
// when the application ends.
func (a *app) events(w http.ResponseWriter, r *http.Request) {
	if a.stream == nil {
		f, ok := sse(w)
		if !ok {
			return
		}
		for _, rec := range a.replay {
			b, _ := json.Marshal(rec)
			if writeEvent(w, "record", b) != nil {
				return
			}
		}
		writeEvent(w, "end", []byte("{}"))
		f.Flush()
		return
	}
	ch, cancel := a.stream.subscribe()
	defer cancel()
	f, ok := sse(w)
	if !ok {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case rec, open := <-ch:
			if !open {
				writeEvent(w, "end", []byte("{}"))
				f.Flush()
				return
			}
			b, _ := json.Marshal(rec)
			if writeEvent(w, "record", b) != nil {
				return
			}
			// Send what else is queued before flushing.
			for more := true; more; {
				select {
				case rec, open = <-ch:
					if !open {
						more = false
						ch = nil
						break
					}
					b, _ := json.Marshal(rec)
					if writeEvent(w, "record", b) != nil {
						return
					}
				default:
					more = false
				}
			}
			f.Flush()
			if ch == nil {
				writeEvent(w, "end", []byte("{}"))
				f.Flush()
				return
			}
		}
	}
}

// recordStream fans live records out to the /api/v1/events streams. A
// stream that falls behind by more than its buffer is ended rather than
// slowing the job down.
type recordStream struct {
	mu     sync.Mutex
	subs   map[chan Record]struct{}
	closed bool
}

const streamBuffer = 4096

func newRecordStream() *recordStream {
	return &recordStream{subs: map[chan Record]struct{}{}}
}

func (s *recordStream) subscribe() (<-chan Record, func()) {
	ch := make(chan Record, streamBuffer)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		close(ch)
		return ch, func() {}
	}
	s.subs[ch] = struct{}{}
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.subs[ch]; ok {
			delete(s.subs, ch)
			close(ch)
		}
	}
}

func (s *recordStream) publish(r Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- r:
		default: // too slow: end its stream
			delete(s.subs, ch)
			close(ch)
		}
	}
}

func (s *recordStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for ch := range s.subs {
		delete(s.subs, ch)
		close(ch)
	}
}

// recoverer turns a panic in a handler into a 500 answer (JSON under
// /api/, a page elsewhere) and a report on errs, so that a broken page
// never ends the job.
func recoverer(next http.Handler, errs io.Writer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil || v == http.ErrAbortHandler {
				if v != nil {
					panic(v)
				}
				return
			}
			fmt.Fprintf(errs, "ui: panic serving %s %s: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
			if tw.wrote {
				return // too late for a status; the answer stops here
			}
			msg := fmt.Sprintf("internal error serving %s: %v", r.URL.Path, v)
			if strings.HasPrefix(r.URL.Path, "/api/") || strings.Contains(r.URL.Path, "/api/v1/") {
				writeError(w, http.StatusInternalServerError, msg)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, errorPage("Internal error", msg))
		}()
		next.ServeHTTP(tw, r)
	})
}

// trackingWriter notes whether the answer has started.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(code int) { t.wrote = true; t.ResponseWriter.WriteHeader(code) }
func (t *trackingWriter) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}
func (t *trackingWriter) Flush() {
	t.wrote = true
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
func (t *trackingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := t.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("ui: connection cannot be hijacked")
}
func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// pagePath checks the page a stream is asked for.
func pagePath(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || !strings.HasPrefix(u.Path, "/") || u.Host != "" || u.Scheme != "" {
		return nil, fmt.Errorf("page %q is not a path of this UI", s)
	}
	return u, nil
}
