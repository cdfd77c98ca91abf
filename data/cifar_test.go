package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cifarRecords builds n records with labelBytes label bytes each; labels
// are given by label(i, k) and pixels encode the record index.
func cifarRecords(n, labelBytes int, label func(i, k int) byte) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		for k := 0; k < labelBytes; k++ {
			b = append(b, label(i, k))
		}
		for p := 0; p < cifarPixels; p++ {
			b = append(b, byte(i*31+p))
		}
	}
	return b
}

func TestReadCIFAR10(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "cifar-10-batches-bin")
	os.Mkdir(sub, 0o755)
	names := []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"}
	for k, name := range names {
		raw := cifarRecords(3, 1, func(i, _ int) byte { return byte((i + k) % 10) })
		if k == 2 { // one file gzipped: detected by magic bytes
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(raw)
			zw.Close()
			raw = gz.Bytes()
		}
		if err := os.WriteFile(filepath.Join(sub, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(sub, "test_batch.bin"), cifarRecords(2, 1, func(i, _ int) byte { return 9 }), 0o644)

	s, err := LoadCIFAR10(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 15 || s.C != 3 || s.H != 32 || s.W != 32 || len(s.Classes) != 10 {
		t.Fatalf("got %v with %d classes", s, len(s.Classes))
	}
	for k := 0; k < 5; k++ {
		for i := 0; i < 3; i++ {
			n := k*3 + i
			if s.Labels[n] != float32((i+k)%10) {
				t.Errorf("label %d = %v, want %d", n, s.Labels[n], (i+k)%10)
			}
			if s.Pixels[n*cifarPixels+5] != byte(i*31+5) {
				t.Errorf("sample %d pixel 5 = %d, want %d", n, s.Pixels[n*cifarPixels+5], byte(i*31+5))
			}
		}
	}
	test, err := LoadCIFAR10(sub, false)
	if err != nil {
		t.Fatal(err)
	}
	if test.N != 2 || test.Labels[1] != 9 {
		t.Errorf("test set %v labels %v", test, test.Labels)
	}
	if _, err := LoadCIFAR10(t.TempDir(), true); err == nil || !strings.Contains(err.Error(), "data_batch_1.bin") {
		t.Errorf("empty folder: error %v", err)
	}
}

func TestReadCIFAR100(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.bin")
	os.WriteFile(path, cifarRecords(4, 2, func(i, k int) byte { return byte(k*50 + i) }), 0o644)
	tests := []struct {
		which CIFAR100Label
		want  []float32
	}{
		{Coarse, []float32{0, 1, 2, 3}},
		{Fine, []float32{50, 51, 52, 53}},
	}
	for _, tc := range tests {
		s, err := ReadCIFAR100(tc.which, path)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 4 || !equalFloats(s.Labels, tc.want) || s.Pixels[cifarPixels] != 31 {
			t.Errorf("label %d: got %v labels %v", tc.which, s, s.Labels)
		}
	}
	if _, err := ReadCIFAR100(7, path); err == nil {
		t.Error("unknown label kind: no error")
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCIFARCorrupt(t *testing.T) {
	good := cifarRecords(3, 1, func(i, _ int) byte { return byte(i) })
	tests := []struct {
		name   string
		raw    []byte
		kind   error
		record int
		offset int64
	}{
		{"cut in record 2", good[:2*3073+100], ErrTruncated, 2, 2 * 3073},
		{"label 10", append(append([]byte{}, good[:3073]...), cifarRecords(1, 1, func(int, int) byte { return 10 })...), ErrFormat, 1, 3073},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "batch.bin")
			os.WriteFile(path, tc.raw, 0o644)
			for _, how := range []string{"file", "stream"} {
				var err error
				if how == "file" {
					_, err = ReadCIFAR10(path)
				} else {
					_, err = DecodeCIFAR10(bytes.NewReader(tc.raw), path)
				}
				var de *Error
				if !errors.As(err, &de) || !errors.Is(err, tc.kind) {
					t.Fatalf("%s: error %v, want a *data.Error wrapping %v", how, err, tc.kind)
				}
				if de.Record != tc.record || de.Offset != tc.offset || de.File != path {
					t.Errorf("%s: error %q at record %d byte %d, want record %d byte %d", how, err, de.Record, de.Offset, tc.record, tc.offset)
				}
			}
		})
	}
	if _, err := ReadCIFAR10(); err == nil {
		t.Error("no files: no error")
	}
}

// FuzzDecodeCIFAR10 checks that no input panics the reader and that every
// accepted stream is a whole number of records with valid labels.
func FuzzDecodeCIFAR10(f *testing.F) {
	f.Add(cifarRecords(1, 1, func(int, int) byte { return 3 }))
	f.Add(cifarRecords(2, 1, func(i, _ int) byte { return byte(i) })[:4000])
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := DecodeCIFAR10(bytes.NewReader(raw), "fuzz")
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %q is not a *data.Error", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, l := range s.Labels {
			if l < 0 || l > 9 {
				t.Fatalf("label %v accepted", l)
			}
		}
	})
}
