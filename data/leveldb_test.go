package data

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The fixtures in testdata/leveldb were written by Google's LevelDB
// library (testdata/leveldb/gen.py): the records of testdata/lmdb/small,
// compacted into a snappy-compressed sorted table ("table"), and the first
// 50 of them left in the write-ahead log ("log").
func TestReadLevelDB(t *testing.T) {
	for _, tc := range []struct {
		dir string
		n   int
	}{{"table", 200}, {"log", 50}} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := copyFixture(t, filepath.Join("testdata", "leveldb", tc.dir))
			s, err := ReadLevelDB(dir, ImageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.N != tc.n || s.C != 3 || s.H != 6 || s.W != 6 {
				t.Fatalf("got %d samples of %d×%d×%d, want %d of 3×6×6", s.N, s.C, s.H, s.W, tc.n)
			}
			for i := 0; i < s.N; i++ {
				if s.Labels[i] != float32(i%10) {
					t.Fatalf("label %d = %g", i, s.Labels[i])
				}
				for j, v := range s.Pixels[i*108 : (i+1)*108] {
					if v != fixturePixel(i, j) {
						t.Fatalf("record %d pixel %d = %d, want %d", i, j, v, fixturePixel(i, j))
					}
				}
			}
		})
	}
}

// copyFixture copies a database folder, so that the library's lock file
// is not written into the source tree.
func copyFixture(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestLevelDBDamaged reads damaged copies of the table fixture: errors
// (or unchanged records, for bytes the reader never checks), no panics.
func TestLevelDBDamaged(t *testing.T) {
	src := filepath.Join("testdata", "leveldb", "table")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		orig, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil || len(orig) == 0 {
			continue
		}
		for _, damage := range []string{"truncate", "flip"} {
			for off := 0; off < len(orig); off += max(1, len(orig)/23) {
				dir := copyFixture(t, src)
				b := append([]byte(nil), orig...)
				if damage == "truncate" {
					b = b[:off]
				} else {
					b[off] ^= 0x5A
				}
				if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
					t.Fatal(err)
				}
				s, err := ReadLevelDB(dir, ImageOptions{})
				var de *Error
				switch {
				case err != nil && !errors.As(err, &de):
					t.Errorf("%s %s at %d: error %v is not a *data.Error", e.Name(), damage, off, err)
				case err == nil && s.N == 0:
					t.Errorf("%s %s at %d: no error and no records", e.Name(), damage, off)
				}
			}
		}
	}
}

func TestReadLevelDBErrors(t *testing.T) {
	if _, err := ReadLevelDB(t.TempDir(), ImageOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("an empty folder: %v, want ErrFormat", err)
	}
	if _, err := ReadLevelDB(filepath.Join(t.TempDir(), "none"), ImageOptions{}); err == nil {
		t.Error("a missing folder: no error")
	}
}
