package data

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// Every reader refuses devices that never end and folders, naming the path,
// instead of reading forever.
func TestReadersRefuseDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	readers := []struct {
		name string
		read func(path string) error
	}{
		{"IDX", func(p string) error { _, err := ReadIDXFile(p); return err }},
		{"MNIST", func(p string) error { _, err := ReadMNIST(p, p); return err }},
		{"CIFAR-10", func(p string) error { _, err := ReadCIFAR10(p); return err }},
		{"lines", func(p string) error { _, err := ReadLines(p); return err }},
		{"CSV", func(p string) error { _, err := ReadCSV(p, CSVOptions{}); return err }},
		{"image", func(p string) error { _, err := ReadImage(p, ImageOptions{}); return err }},
		{"LMDB", func(p string) error { _, err := OpenLMDB(p); return err }},
		{"Parquet", func(p string) error { _, err := ReadParquet(p, ParquetOptions{}); return err }},
	}
	for _, r := range readers {
		for _, path := range []string{"/dev/zero", "/dev/urandom", dir} {
			if path == dir && (r.name == "LMDB" || r.name == "Parquet" || r.name == "lines" || r.name == "CSV") {
				continue // a folder holds data.mdb, or part files
			}
			err := r.read(path)
			if !errors.Is(err, fsio.ErrNotRegular) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s reader on %s: %v, want an error naming it as not a regular file", r.name, path, err)
			}
		}
	}
}
