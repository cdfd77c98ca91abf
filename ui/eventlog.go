package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// LogExt ends the name of a finished event log; a log still being
// written (or of a run that died) ends in LogExt + InProgressExt.
const (
	LogExt        = ".jsonl"
	InProgressExt = ".inprogress"
)

// flushEvery bounds how long a record waits in the log's buffer.
const flushEvery = time.Second

// eventLog writes records as JSON lines to DIR/APP.jsonl.inprogress and
// renames the file to DIR/APP.jsonl when closed, as Spark's event log
// does. Records reach the disk at the end of every job and round, and
// at least every second.
type eventLog struct {
	mu    sync.Mutex
	path  string // the file being written
	final string // its name once closed
	f     *os.File
	w     *bufio.Writer
	err   error // the first write error; later records are dropped
	flush time.Time
}

// createLog starts the event log of application app in dir.
func createLog(dir, app string) (*eventLog, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("ui: event log: %w", err)
	}
	final := filepath.Join(dir, app+LogExt)
	path := final + InProgressExt
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ui: event log: %w", err)
	}
	return &eventLog{path: path, final: final, f: f, w: bufio.NewWriterSize(f, 64<<10), flush: time.Now()}, nil
}

// write appends r. The first error is kept, returned by close and, the
// one time it happens, by write; later records are dropped.
func (l *eventLog) write(r Record) error {
	b, err := json.Marshal(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil || l.f == nil {
		return nil
	}
	if err != nil {
		l.err = fmt.Errorf("ui: event log %s: encoding a %s record: %w", l.path, r.Event, err)
		return l.err
	}
	b = append(b, '\n')
	if _, err := l.w.Write(b); err != nil {
		l.err = fmt.Errorf("ui: event log %s: %w", l.path, err)
		return l.err
	}
	switch r.Event {
	case EvJobEnd, EvRoundEnd, EvTrainerStart, EvApplicationStart, EvApplicationEnd:
	default:
		if time.Since(l.flush) < flushEvery {
			return nil
		}
	}
	l.flush = time.Now()
	if err := l.w.Flush(); err != nil {
		l.err = fmt.Errorf("ui: event log %s: %w", l.path, err)
		return l.err
	}
	return nil
}

// close flushes the log and gives it its final name.
func (l *eventLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return l.err
	}
	err := l.err
	if ferr := l.w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("ui: event log %s: %w", l.path, ferr)
	}
	if serr := l.f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("ui: event log %s: %w", l.path, serr)
	}
	if cerr := l.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("ui: event log %s: %w", l.path, cerr)
	}
	l.f = nil
	if rerr := os.Rename(l.path, l.final); err == nil && rerr != nil {
		err = fmt.Errorf("ui: event log: %w", rerr)
	}
	return err
}

// ReadLog reads the records of an event log. A log still in progress may
// end in a torn line, which is skipped; any other line that is not a
// record is an error naming the file and line.
func ReadLog(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	defer f.Close()
	return readRecords(f, path, strings.HasSuffix(path, InProgressExt))
}

func readRecords(r io.Reader, name string, inProgress bool) ([]Record, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Record
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("ui: %s:%d: %w", name, line, err)
		}
		torn := errors.Is(err, io.EOF) && len(b) > 0
		b = bytes.TrimSpace(b)
		if len(b) > 0 {
			var rec Record
			if derr := json.Unmarshal(b, &rec); derr != nil || rec.Event == "" {
				if torn && inProgress {
					break // the run stopped while writing this line
				}
				if derr == nil {
					derr = errors.New(`no "event" field`)
				}
				return nil, fmt.Errorf("ui: %s:%d: not an event record: %v", name, line, derr)
			}
			if len(out) == 0 && rec.Event != EvApplicationStart {
				return nil, fmt.Errorf("ui: %s:%d: not a sparknet event log: it starts with a %q record, not %q", name, line, rec.Event, EvApplicationStart)
			}
			out = append(out, rec)
		}
		if err != nil {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ui: %s: empty event log", name)
	}
	return out, nil
}

// FindLogs returns the event logs at path: path itself when it is a
// file, else the logs in the folder, finished or in progress, sorted by
// name (which starts with the application's start time).
func FindLogs(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	var logs []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && (strings.HasSuffix(n, LogExt) || strings.HasSuffix(n, LogExt+InProgressExt)) {
			logs = append(logs, filepath.Join(path, n))
		}
	}
	if len(logs) == 0 {
		return nil, fmt.Errorf("ui: no event logs (*%s) in %s; write some with sparknet-shell --event-log %s", LogExt, path, path)
	}
	sort.Strings(logs)
	return logs, nil
}
