package fsio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.prototxt")
	if err := os.WriteFile(small, []byte("name: \"n\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.caffemodel")
	if err := os.WriteFile(big, make([]byte, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		limit      int64
		want       string // the error's text, "" for none
		is         error
	}{
		{name: "regular file", path: small, limit: 100},
		{name: "at the limit", path: big, limit: 3000},
		{name: "over the limit", path: big, limit: 2048, want: "read " + big + ": file too large: 2.9 KiB, more than the limit of 2 KiB", is: ErrTooLarge},
		{name: "directory", path: dir, limit: 100, want: "open " + dir + ": is a directory, not a regular file", is: ErrNotRegular},
		{name: "endless device", path: "/dev/zero", limit: 100, want: "open /dev/zero: is a character device, not a regular file", is: ErrNotRegular},
		{name: "random device", path: "/dev/urandom", limit: 1 << 40, want: "open /dev/urandom: is a character device, not a regular file", is: ErrNotRegular},
		{name: "missing", path: filepath.Join(dir, "none"), limit: 100, want: "no such file or directory", is: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.path, "/dev/") {
				if _, err := os.Stat(tt.path); err != nil {
					t.Skip(err)
				}
			}
			b, err := ReadFile(tt.path, tt.limit)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := os.ReadFile(tt.path); string(b) != string(want) {
					t.Errorf("read %d bytes, want %d", len(b), len(want))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %q (is %v)", err, tt.want, tt.is)
			}
		})
	}
}

// A pipe is read up to the limit: more is an error, not an endless read.
func TestReadFilePipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, tt := range []struct {
		size    int
		limit   int64
		tooLong bool
	}{{100, 1000, false}, {1 << 20, 1000, true}} {
		done := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				done <- err
				return
			}
			_, err = f.Write(make([]byte, tt.size))
			f.Close()
			if errors.Is(err, syscall.EPIPE) {
				err = nil // the reader stopped at its limit
			}
			done <- err
		}()
		b, err := ReadFile(fifo, tt.limit)
		if tt.tooLong {
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over 1000 bytes") {
				t.Errorf("%d bytes through a pipe with limit %d: %v, want too large", tt.size, tt.limit, err)
			}
		} else if err != nil || len(b) != tt.size {
			t.Errorf("%d bytes through a pipe: got %d, %v", tt.size, len(b), err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.caffemodel")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" || fi.Mode().Perm() != 0o644 {
		t.Errorf("file holds %q with mode %v, want \"two\" with 0644", b, fi.Mode().Perm())
	}
	// A failed write leaves the old file and no temporary file.
	err = WriteFileFunc(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("disk on fire")
	})
	if err == nil || err.Error() != "write "+path+": disk on fire" {
		t.Errorf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
	// A folder is an error; a device is written into.
	if err := WriteFile(dir, []byte("x")); err == nil || err.Error() != "write "+dir+": is a directory; name a file to write" {
		t.Errorf("writing a folder: %v", err)
	}
	if _, err := os.Stat(os.DevNull); err == nil {
		if err := WriteFile(os.DevNull, []byte("x")); err != nil {
			t.Errorf("writing %s: %v", os.DevNull, err)
		}
	}
}

// The temporary files of a writer that was killed are removed by the next
// write of the same file; those of live writers and of other files stay.
func TestWriteFileRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "net.caffemodel")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := cmd.Process.Pid
	old := time.Now().Add(-2 * staleAge)
	files := []struct {
		name  string
		old   bool
		stays bool
	}{
		{name: fmt.Sprintf(".net.caffemodel.tmp-%s-%d-0a1b2c3d", hostname, dead)},
		{name: ".net.caffemodel.tmp123456", old: true},
		{name: ".net.caffemodel.tmp654321", stays: true}, // too recent to tell
		{name: fmt.Sprintf(".net.caffemodel.tmp-%s-%d-0a1b2c3d", hostname, os.Getppid()), stays: true},
		{name: fmt.Sprintf(".net.caffemodel.tmp-other-host-%d-0a1b2c3d", dead), stays: true},
		{name: fmt.Sprintf(".net.caffemodel.tmp-other-host-%d-0a1b2c3e", dead), old: true},
		{name: fmt.Sprintf(".other.caffemodel.tmp-%s-%d-0a1b2c3d", hostname, dead), stays: true},
		{name: ".net.caffemodel.tmpnotdigits", old: true, stays: true},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.old {
			os.Chtimes(p, old, old)
		}
	}
	if err := WriteFile(path, []byte("whole")); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if exists := err == nil; exists != f.stays {
			t.Errorf("%s: exists %v, want %v", f.name, exists, f.stays)
		}
	}
}

// RemoveStaleTempsPrefix removes the stale temporary files of every file
// with the prefix, though the file's own name may hold ".tmp".
func TestRemoveStaleTempsPrefix(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := cmd.Process.Pid
	old := time.Now().Add(-2 * staleAge)
	files := []struct {
		name  string
		old   bool
		stays bool
	}{
		{name: fmt.Sprintf(".run.tmp_round_10.caffemodel.tmp-%s-%d-0a1b2c3d", hostname, dead)},
		{name: ".run.tmp_round_20.part1.solverstate.tmp99", old: true},
		{name: ".run.tmp_round_30.sparknet.tmp98", stays: true}, // too recent to tell
		{name: fmt.Sprintf(".run.tmp_round_10.caffemodel.tmp-%s-%d-0a1b2c3d", hostname, os.Getppid()), stays: true},
		{name: fmt.Sprintf(".run.tmp_iter_10.caffemodel.tmp-%s-%d-0a1b2c3d", hostname, dead), stays: true},
		{name: "run.tmp_round_10.caffemodel", stays: true},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.old {
			os.Chtimes(p, old, old)
		}
	}
	removed := RemoveStaleTempsPrefix(filepath.Join(dir, "run.tmp_round_"))
	if len(removed) != 2 {
		t.Errorf("removed %v, want 2 files", removed)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if exists := err == nil; exists != f.stays {
			t.Errorf("%s: exists %v, want %v", f.name, exists, f.stays)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 1 << 30: "1 GiB", BinaryLimit: "2 GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWriteFileErrorsNameTheTarget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	path := filepath.Join(dir, "w.caffemodel")
	err := WriteFile(path, []byte("x"))
	if want := "write " + path + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
