package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparknet-go/sparknet/rdd"
)

// DefaultPort is where the web UI listens unless told otherwise, as
// Spark's does; when it is taken the next free port is used.
const DefaultPort = 4040

// DefaultPortRetries is how many ports after the asked one are tried.
const DefaultPortRetries = 16

// ErrServe marks a failure to start the web server (no free port, a bad
// host); a front end may go on without the server.
var ErrServe = errors.New("ui: cannot serve")

// Options configures the UI of a context.
type Options struct {
	// NoServer turns the web server off; the event log, if any, is still
	// written.
	NoServer bool
	// Host is the address the server listens on; "" means 127.0.0.1, so
	// that only this machine can see the UI.
	Host string
	// Port is the first port tried (DefaultPort is Spark's 4040); 0 lets
	// the system pick a free one, as tests do.
	Port int
	// PortRetries is how many following ports are tried when Port is
	// taken; 0 means DefaultPortRetries.
	PortRetries int
	// EventLog, when set, is a folder where every event is written as a
	// JSON line, to APP-ID.jsonl (see ReadLog and NewHistory).
	EventLog string
	// Name names the application, such as the script that runs; "" means
	// "sparknet".
	Name string
	// Properties are shown on the Environment page under the front end's
	// name, such as its version and the command line.
	Properties [][2]string
	// Errors receives the UI's own problems, such as a full disk under
	// the event log; nil means os.Stderr. They never stop the job.
	Errors io.Writer
}

// UI is the web UI and event log of one RDD context: a subscriber to its
// events and its trainers'. Under an SPMD engine only rank 0 serves and
// logs, and shows every rank; the other ranks' UIs do nothing.
type UI struct {
	sc     *rdd.Context
	opts   Options
	app    AppInfo
	state  *State
	stream *recordStream
	lis    *listener
	log    *eventLog
	ln     net.Listener
	srv    *http.Server
	url    string
	errs   io.Writer

	// Records travel from the job's goroutines through queue to one
	// goroutine that applies them to the state, the log and the streams,
	// in order; the jobs never wait for the UI's locks or its disk.
	qmu     sync.RWMutex // guards closed against sends on a closed queue
	closed  bool
	queue   chan Record
	done    chan struct{} // closed when the queue is drained
	sent    atomic.Uint64
	applied atomic.Uint64
}

// The kinds of work measureHook measures.
const (
	workQueue = iota // queueing a record, on the goroutine of a job or round
	workApply        // applying it to the state, the log and the streams
	workDraw         // drawing a page for a live update
)

// measureHook, when set (by benchmarks, before Start), is called at the
// start of each piece of the UI's work and returns the function to call
// at its end.
var measureHook func(kind int) (end func())

// queueSize is how many records may wait for the UI's goroutine before
// the jobs that make them wait too.
const queueSize = 1 << 16

var appSeq atomic.Int64

// Start starts the UI of sc: its event log and web server, as o says.
// Close it when the context closes. On ranks other than 0 of an SPMD job
// it returns a UI that does nothing, since rank 0's shows every rank.
func Start(sc *rdd.Context, o Options) (*UI, error) {
	if sc == nil {
		return nil, errors.New("ui: Start needs a context")
	}
	u := &UI{sc: sc, opts: o, errs: o.Errors}
	if u.errs == nil {
		u.errs = os.Stderr
	}
	if !sc.IsDriver() {
		return u, nil
	}
	now := time.Now()
	name := o.Name
	if name == "" {
		name = "sparknet"
	}
	ranks := 1
	if c := sc.Comm(); c != nil {
		ranks = c.Size()
	}
	u.app = AppInfo{
		ID:      fmt.Sprintf("app-%s-%d-%d", now.Format("20060102150405"), os.Getpid(), appSeq.Add(1)),
		Name:    name,
		Master:  sc.Master(),
		Workers: sc.Workers(),
		Ranks:   ranks,
	}
	u.state = NewState(true)
	u.stream = newRecordStream()
	if o.EventLog != "" {
		var err error
		if u.log, err = createLog(o.EventLog, u.app.ID); err != nil {
			return nil, err
		}
	}
	if !o.NoServer {
		if err := u.serve(); err != nil {
			if u.log != nil {
				u.log.close()
			}
			return nil, err
		}
	}
	u.queue = make(chan Record, queueSize)
	u.done = make(chan struct{})
	env := environment(u.app, now, o)
	u.record(Record{Event: EvApplicationStart, Time: now, App: &u.app, Env: &env})
	u.lis = listen(sc, u.record)
	go u.run()
	return u, nil
}

// serve listens on the first free port from Port and serves the pages.
func (u *UI) serve() error {
	host := u.opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := listenFrom(host, u.opts.Port, u.opts.PortRetries)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrServe, strings.TrimPrefix(err.Error(), "ui: "))
	}
	u.ln = ln
	u.url = "http://" + ln.Addr().String() + "/"
	h, a := newLiveHandler(u.state, u.app.ID, u.stream)
	a.sync = u.sync
	u.srv = &http.Server{
		Handler:           recoverer(h, u.errs),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go u.srv.Serve(ln)
	return nil
}

// listenFrom listens on port, or the first free one of the retries
// after it (port 0: any free port).
func listenFrom(host string, port, retries int) (net.Listener, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("ui: port %d is not a port number (0 to 65535; 0 picks a free one)", port)
	}
	if retries <= 0 {
		retries = DefaultPortRetries
	}
	if port == 0 {
		retries = 0
	}
	var first error
	for p := port; p <= min(port+retries, 65535); p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err == nil {
			return ln, nil
		}
		if first == nil {
			first = err
		}
	}
	if port == 0 {
		return nil, fmt.Errorf("ui: %w", first)
	}
	return nil, fmt.Errorf("ui: no free port from %d to %d on %s (%v); choose another with --ui-port, or --no-ui", port, min(port+retries, 65535), host, first)
}

// record queues r for the UI's goroutine.
func (u *UI) record(r Record) {
	if measureHook != nil {
		defer measureHook(workQueue)()
	}
	u.qmu.RLock()
	if !u.closed {
		u.sent.Add(1)
		u.queue <- r
	}
	u.qmu.RUnlock()
}

// run applies the queued records, and after every job what the workers
// hold, until the queue is closed.
func (u *UI) run() {
	defer close(u.done)
	for r := range u.queue {
		var done func()
		if measureHook != nil {
			done = measureHook(workApply)
		}
		u.apply(r)
		if r.Event == EvJobEnd {
			if s, changed := u.lis.storage(); changed {
				u.apply(s)
			}
		}
		u.applied.Add(1)
		if done != nil {
			done()
		}
	}
}

// apply adds r to the state, the log and the streams.
func (u *UI) apply(r Record) {
	u.state.Apply(r)
	if u.log != nil {
		if err := u.log.write(r); err != nil {
			fmt.Fprintf(u.errs, "%v; the event log stops here, the job goes on\n", err)
		}
	}
	u.stream.publish(r)
}

// syncTimeout bounds how long an answer waits for the UI to catch up.
const syncTimeout = 2 * time.Second

// sync waits until the records queued so far are applied, so that an
// answer reflects every event that happened before the question.
func (u *UI) sync() {
	target := u.sent.Load()
	deadline := time.Now().Add(syncTimeout)
	for u.applied.Load() < target && time.Now().Before(deadline) {
		select {
		case <-u.state.Changed():
		case <-u.done:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// URL is the web UI's address, such as "http://127.0.0.1:4040/", or ""
// when it has no server (NoServer, or a rank other than 0).
func (u *UI) URL() string { return u.url }

// App is the application's ID, which names its event log.
func (u *UI) App() string { return u.app.ID }

// LogPath is the event log's file once the UI is closed (while it runs
// the file is named LogPath() + InProgressExt); "" without a log.
func (u *UI) LogPath() string {
	if u.log == nil {
		return ""
	}
	return u.log.final
}

// LogDir is the folder of the event log, or "" without one.
func (u *UI) LogDir() string {
	if u.log == nil {
		return ""
	}
	return u.opts.EventLog
}

// State is what the UI shows, for tests and tools, once the events that
// happened so far are in it.
func (u *UI) State() *State {
	if u.state != nil {
		u.sync()
	}
	return u.state
}

// Close records the end of the application, closes the event log and
// stops the server. It reports a failure of the event log.
func (u *UI) Close() error {
	if u == nil || u.state == nil {
		return nil
	}
	u.qmu.Lock()
	if u.closed {
		u.qmu.Unlock()
		return nil
	}
	u.qmu.Unlock()
	if u.lis != nil {
		u.lis.stop()
	}
	u.record(Record{Event: EvApplicationEnd, Time: time.Now()})
	u.qmu.Lock()
	u.closed = true
	close(u.queue)
	u.qmu.Unlock()
	<-u.done
	u.stream.close()
	var err error
	if u.log != nil {
		err = u.log.close()
	}
	if u.srv != nil {
		// The streams end on their own now; give them a moment to say so.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		u.srv.Shutdown(ctx)
		cancel()
		u.srv.Close()
	}
	return err
}
