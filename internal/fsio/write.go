package fsio

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WriteFile writes data to path atomically: see WriteFileFunc.
func WriteFile(path string, data []byte) error {
	return WriteFileFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFileFunc writes path atomically with what write writes: into a
// temporary file .NAME.tmp-HOST-PID-RANDOM beside it, flushed to disk,
// made readable by all (0644) and renamed over path; on any error the
// temporary file is removed and path is left as it was. Temporary files of
// the same name that a killed writer left behind are removed first.
//
// A path that is a folder is an error naming it; a path that is a device
// or a pipe (/dev/null, /dev/stdout) is written into directly.
//
// Errors are *fs.PathError values for path (never for the temporary file).
func WriteFileFunc(path string, write func(io.Writer) error) error {
	if err := writeFile(path, write); err != nil {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err
		case errors.As(err, &le):
			err = le.Err
		}
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) (err error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return errors.New("is a directory; name a file to write")
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	RemoveStaleTemps(path)
	tmp := filepath.Join(dir, tempName(base))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir flushes a folder's entries, so that a rename survives a crash;
// file systems that cannot do it are left alone.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

var hostname = func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.ReplaceAll(h, string(filepath.Separator), "_")
}()

func tempName(base string) string {
	var r [4]byte
	rand.Read(r[:])
	return fmt.Sprintf(".%s.tmp-%s-%d-%s", strings.TrimPrefix(base, "."), hostname, os.Getpid(), hex.EncodeToString(r[:]))
}

// staleAge is how old a temporary file whose writer cannot be identified
// must be before it is taken for abandoned.
const staleAge = time.Hour

// RemoveStaleTemps removes the temporary files that writers of path killed
// while writing left beside it: those of a process on this host that no
// longer runs, and older ones (.NAME.tmpNNN) not modified for an hour.
// It returns the files it removed.
func RemoveStaleTemps(path string) []string {
	base := strings.TrimPrefix(filepath.Base(path), ".")
	return removeStaleTemps(path, func(name string) []string {
		rest, ok := strings.CutPrefix(name, "."+base+".tmp")
		if !ok {
			return nil
		}
		return []string{rest}
	})
}

// RemoveStaleTempsPrefix is RemoveStaleTemps for every file whose path
// starts with prefix: a run writing numbered files (checkpoints
// PREFIX_round_10, PREFIX_round_20, ...) removes what killed writers of
// any of them left, though it never writes the same name again.
func RemoveStaleTempsPrefix(prefix string) []string {
	base := filepath.Base(prefix)
	if strings.HasSuffix(prefix, string(filepath.Separator)) {
		base = ""
	}
	base = strings.TrimPrefix(base, ".")
	return removeStaleTemps(prefix, func(name string) []string {
		after, ok := strings.CutPrefix(name, "."+base)
		if !ok {
			return nil
		}
		// The written file's own name may hold ".tmp": try each.
		var rests []string
		for {
			i := strings.Index(after, ".tmp")
			if i < 0 {
				return rests
			}
			after = after[i+len(".tmp"):]
			rests = append(rests, after)
		}
	})
}

// removeStaleTemps removes the entries of path's folder that split, given
// an entry's name, finds to be temporary files (the parts after their
// ".tmp") and that are stale.
func removeStaleTemps(path string, split func(name string) []string) []string {
	dir := filepath.Dir(path)
	if strings.HasSuffix(path, string(filepath.Separator)) {
		dir = path
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		for _, rest := range split(e.Name()) {
			if stale(rest, e) {
				p := filepath.Join(dir, e.Name())
				if os.Remove(p) == nil {
					removed = append(removed, p)
				}
				break
			}
		}
	}
	return removed
}

// stale decides about one temporary file, given what follows ".NAME.tmp"
// in its name.
func stale(rest string, e fs.DirEntry) bool {
	if tail, ok := strings.CutPrefix(rest, "-"); ok {
		// -HOST-PID-RANDOM: the host may itself hold dashes.
		i := strings.LastIndexByte(tail, '-')
		j := strings.LastIndexByte(tail[:max(i, 0)], '-')
		if i < 0 || j < 0 {
			return false
		}
		host, pidText := tail[:j], tail[j+1:i]
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			return false
		}
		if host == hostname && runtime.GOOS != "windows" {
			return pid != os.Getpid() && !running(pid)
		}
		return oldEnough(e)
	}
	// An older writer's name: .NAME.tmp followed by digits.
	if rest == "" || strings.Trim(rest, "0123456789") != "" {
		return false
	}
	return oldEnough(e)
}

func oldEnough(e fs.DirEntry) bool {
	fi, err := e.Info()
	return err == nil && time.Since(fi.ModTime()) > staleAge
}

// running reports whether a process with this id exists on this host.
func running(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
