// Package fsio reads and writes the files sparknet opens for its users:
// net and solver definitions, weights, checkpoints, data sets, scripts.
//
// Reads are bounded. A path the user names may be anything: a folder, a
// device that never ends (/dev/zero, /dev/urandom), a pipe. Open and
// ReadFile refuse folders, devices and sockets with an error naming the
// path and what it is, and ReadFile refuses files longer than a limit
// (a pipe is read up to the limit and no further).
//
// Writes are atomic. WriteFile writes a temporary file beside the target,
// flushes it to disk, makes it readable by all (0644) and renames it over
// the target, so a crash or a kill never leaves a torn file; the temporary
// files a killed writer left behind are removed by the next write of the
// same file, and (RemoveStaleTempsPrefix) by the next snapshot of a run
// writing numbered files with a common prefix.
package fsio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Limits for ReadFile, by what a file holds.
const (
	// TextLimit bounds text definitions (.prototxt, solver files) and
	// scripts.
	TextLimit = 1 << 30
	// BinaryLimit bounds binary protobuf files (.caffemodel, .solverstate,
	// .binaryproto): Caffe's own limit, the largest int32.
	BinaryLimit = 1<<31 - 1
	// DataLimit bounds data-set files read whole (Parquet).
	DataLimit = 1 << 36
)

// ErrNotRegular is wrapped by the errors Open and ReadFile return for a
// path that names a folder, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error ReadFile returns for a file longer
// than its limit.
var ErrTooLarge = errors.New("file too large")

// kindError says what a path is instead of a regular file.
type kindError struct{ what string }

func (e *kindError) Error() string { return "is " + e.what + ", not a regular file" }
func (e *kindError) Unwrap() error { return ErrNotRegular }

// describe names the kind of a file that is not regular.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	}
	return "not a plain file (" + m.Type().String() + ")"
}

// readable reports whether a file of mode m may be read: regular files,
// and pipes (a stream the user chose to give, read with a limit).
func readable(m fs.FileMode) bool {
	return m.IsRegular() || m&fs.ModeNamedPipe != 0
}

// Open opens path for reading. It refuses folders, devices and sockets
// (errors wrapping ErrNotRegular) before opening them, so that neither a
// device that never ends nor one that blocks is read. The FileInfo is the
// opened file's.
func Open(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !readable(fi.Mode()) {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: &kindError{describe(fi.Mode())}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	// The path may have been replaced between the two looks.
	if fi, err = f.Stat(); err != nil || !readable(fi.Mode()) {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "open", Path: path, Err: &kindError{describe(fi.Mode())}}
		}
		return nil, nil, err
	}
	return f, fi, nil
}

// OpenRegular is Open for readers that need a regular file (random access,
// a known size): it refuses pipes too.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: &kindError{describe(fi.Mode())}}
	}
	return f, fi, nil
}

// ReadFile reads the file at path whole, as os.ReadFile does, but refuses
// folders, devices and sockets, and files longer than limit bytes (an error
// wrapping ErrTooLarge that gives the size and the limit).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func(size string) error {
		return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %s, more than the limit of %s", ErrTooLarge, size, FormatSize(limit))}
	}
	if fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, tooLarge(FormatSize(fi.Size()))
	}
	buf := make([]byte, 0, min(max(fi.Size(), 512), limit)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), int(limit)+1)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, tooLarge("over " + FormatSize(limit))
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// FormatSize renders a byte count for messages: "512 bytes", "3.2 MiB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	v := strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/float64(div)), ".0")
	return fmt.Sprintf("%s %ciB", v, "KMGTPE"[exp])
}
