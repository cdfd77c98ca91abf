package data

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The fixtures in testdata/lmdb were written by the LMDB C library
// (testdata/lmdb/gen.py): pixel j of record i is (31i + 7j) mod 256, its
// label i mod 10.
func fixturePixel(i, j int) uint8 { return uint8((31*i + 7*j) % 256) }

func TestReadLMDB(t *testing.T) {
	tests := []struct {
		dir        string
		n, c, h, w int
	}{
		{"small", 200, 3, 6, 6}, // a branch page over seven leaves
		{"big", 5, 3, 32, 32},   // one overflow page per value
		{"huge", 2, 3, 48, 48},  // values spanning several overflow pages
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			s, err := ReadLMDB(filepath.Join("testdata", "lmdb", tc.dir), ImageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.N != tc.n || s.C != tc.c || s.H != tc.h || s.W != tc.w || s.Floats != nil {
				t.Fatalf("got %d samples of %d×%d×%d (floats %v), want %d of %d×%d×%d bytes", s.N, s.C, s.H, s.W, s.Floats != nil, tc.n, tc.c, tc.h, tc.w)
			}
			size := tc.c * tc.h * tc.w
			for i := 0; i < s.N; i++ {
				if s.Labels[i] != float32(i%10) {
					t.Fatalf("label %d = %g, want %d", i, s.Labels[i], i%10)
				}
				for j, v := range s.Pixels[i*size : (i+1)*size] {
					if v != fixturePixel(i, j) {
						t.Fatalf("record %d pixel %d = %d, want %d", i, j, v, fixturePixel(i, j))
					}
				}
			}
		})
	}
}

func TestReadLMDBFloatAndEncoded(t *testing.T) {
	s, err := ReadLMDB(filepath.Join("testdata", "lmdb", "float"), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 10 || s.C != 1 || s.H != 2 || s.W != 3 || s.Pixels != nil {
		t.Fatalf("float records: %d of %d×%d×%d", s.N, s.C, s.H, s.W)
	}
	for i := 0; i < s.N; i++ {
		for j := 0; j < 6; j++ {
			if want := float32(i) + float32(j)/8; s.Floats[i*6+j] != want {
				t.Fatalf("record %d value %d = %g, want %g", i, j, s.Floats[i*6+j], want)
			}
		}
	}
	// PNG records: 5×4 RGB images, stored B, G, R planes by default.
	s, err = ReadLMDB(filepath.Join("testdata", "lmdb", "encoded"), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 3 || s.C != 3 || s.H != 4 || s.W != 5 {
		t.Fatalf("encoded records: %d of %d×%d×%d", s.N, s.C, s.H, s.W)
	}
	for i := 0; i < s.N; i++ {
		for y := 0; y < 4; y++ {
			for x := 0; x < 5; x++ {
				for k := 0; k < 3; k++ { // k: R, G, B in the PNG
					got := s.Pixels[i*60+(2-k)*20+y*5+x]
					if want := fixturePixel(i, (y*5+x)*3+k); got != want {
						t.Fatalf("record %d channel %d at (%d, %d) = %d, want %d", i, k, y, x, got, want)
					}
				}
			}
		}
		if s.Labels[i] != float32(i) {
			t.Fatalf("label %d = %g", i, s.Labels[i])
		}
	}
}

// TestLMDBDamaged reads truncated and corrupted copies of the fixtures:
// every one must give an error (or, for bytes the reader never looks at,
// the same records), never a panic.
func TestLMDBDamaged(t *testing.T) {
	for _, name := range []string{"small", "big", "huge"} {
		orig, err := os.ReadFile(filepath.Join("testdata", "lmdb", name, "data.mdb"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "data.mdb")
		try := func(what string, b []byte) {
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := ReadLMDB(dir, ImageOptions{})
			if err == nil && s.N == 0 {
				t.Errorf("%s %s: no error and no records", name, what)
			}
			var de *Error
			if err != nil && !errors.As(err, &de) {
				t.Errorf("%s %s: error %v is not a *data.Error", name, what, err)
			}
		}
		for _, n := range []int{0, 10, 100, 4096, 4096 + 200, 8192, len(orig) - 4096, len(orig) - 1} {
			if n >= 0 && n < len(orig) {
				try(fmt.Sprintf("truncated to %d bytes", n), orig[:n])
			}
		}
		for off := 0; off < len(orig); off += 97 {
			b := append([]byte(nil), orig...)
			b[off] ^= 0xA5
			try(fmt.Sprintf("byte %d flipped", off), b)
		}
	}
}

func TestReadLMDBErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadLMDB(dir, ImageOptions{}); err == nil {
		t.Error("a folder without data.mdb: no error")
	}
	file := filepath.Join(dir, "data.mdb")
	if err := os.WriteFile(file, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLMDB(dir, ImageOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("zeros: %v, want ErrFormat", err)
	}
}

func FuzzReadLMDB(f *testing.F) {
	// Small seeds: the fuzzing engine slows down badly with inputs of
	// tens of kilobytes.
	for _, name := range []string{"float", "encoded"} {
		b, err := os.ReadFile(filepath.Join("testdata", "lmdb", name, "data.mdb"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		db, err := openLMDB("fuzz.mdb", bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		s, err := db.samples(ImageOptions{})
		if err == nil {
			if verr := s.Validate(); verr != nil {
				t.Fatalf("ReadLMDB returned invalid samples: %v", verr)
			}
		}
	})
}

func TestParseDatum(t *testing.T) {
	bad := [][]byte{
		{0x08},                                  // truncated varint
		{0x22, 0x05, 1, 2},                      // data shorter than its length
		{0x08, 1, 0x10, 1, 0x18, 2, 0x22, 1, 9}, // 1×1×2 with one byte
		{0x08, 0xff, 0xff, 0xff, 0xff, 0x07},    // channels too large
		{},                                      // no shape
	}
	for _, b := range bad {
		if _, err := ParseDatum(b); err == nil {
			t.Errorf("ParseDatum(% x): no error", b)
		}
	}
	d, err := ParseDatum([]byte{0x08, 1, 0x10, 1, 0x18, 2, 0x22, 2, 7, 9, 0x28, 3, 0x50, 1})
	if err != nil || d.Channels != 1 || d.Width != 2 || string(d.Data) != "\x07\x09" || d.Label != 3 {
		t.Errorf("ParseDatum: %+v, %v", d, err)
	}
}
