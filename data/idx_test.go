package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// idxCases holds one array of every element type.
func idxCases() []struct {
	name string
	x    *IDX
} {
	return []struct {
		name string
		x    *IDX
	}{
		{"uint8", &IDX{Type: IDXUint8, Dims: []int{2, 3}, Uint8: []uint8{0, 1, 2, 253, 254, 255}}},
		{"int8", &IDX{Type: IDXInt8, Dims: []int{4}, Int8: []int8{-128, -1, 0, 127}}},
		{"int16", &IDX{Type: IDXInt16, Dims: []int{1, 2, 2}, Int16: []int16{-32768, -2, 300, 32767}}},
		{"int32", &IDX{Type: IDXInt32, Dims: []int{3}, Int32: []int32{-1 << 31, 65536, 1<<31 - 1}}},
		{"float32", &IDX{Type: IDXFloat32, Dims: []int{2, 1, 1, 1}, Float32: []float32{-1.5, 3.25e10}}},
		{"float64", &IDX{Type: IDXFloat64, Dims: []int{2}, Float64: []float64{1e-300, -2.5}}},
		{"empty", &IDX{Type: IDXUint8, Dims: []int{0, 28, 28}, Uint8: []uint8{}}},
	}
}

func TestIDXRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range idxCases() {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range []string{"a.idx", "a.idx.gz"} {
				path := filepath.Join(dir, tc.name+name)
				if err := WriteIDXFile(path, tc.x); err != nil {
					t.Fatal(err)
				}
				got, err := ReadIDXFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.x) {
					t.Errorf("%s: read %+v, wrote %+v", name, got, tc.x)
				}
				raw, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				got, err = ReadIDX(bytes.NewReader(raw), name)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.x) {
					t.Errorf("%s via ReadIDX: read %+v, wrote %+v", name, got, tc.x)
				}
			}
		})
	}
}

func TestIDXBigEndian(t *testing.T) {
	// 0x0B int16, 1 dimension of 2: 0x0102 and 0xFFFE.
	raw := []byte{0, 0, 0x0B, 1, 0, 0, 0, 2, 0x01, 0x02, 0xFF, 0xFE}
	x, err := ReadIDX(bytes.NewReader(raw), "x")
	if err != nil {
		t.Fatal(err)
	}
	if want := []int16{0x0102, -2}; !reflect.DeepEqual(x.Int16, want) {
		t.Errorf("values %v, want %v", x.Int16, want)
	}
}

// idxHeader builds an IDX header.
func idxHeader(typ byte, dims ...uint32) []byte {
	b := []byte{0, 0, typ, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return b
}

func TestIDXCorrupt(t *testing.T) {
	tests := []struct {
		name   string
		raw    []byte
		kind   error
		offset int64
		msg    string
	}{
		{"empty", nil, ErrTruncated, 0, "header"},
		{"short header", []byte{0, 0, 8}, ErrTruncated, 3, "header"},
		{"bad magic", []byte{1, 0, 8, 1, 0, 0, 0, 0}, ErrFormat, 0, "two zero bytes"},
		{"unknown type", []byte{0, 0, 7, 1, 0, 0, 0, 0}, ErrFormat, 2, "0x07"},
		{"no dims", []byte{0, 0, 8, 0}, ErrFormat, 3, "0 dimensions"},
		{"short dims", []byte{0, 0, 8, 2, 0, 0, 0, 1, 0, 0}, ErrTruncated, 10, "dimension sizes"},
		{"short data", append(idxHeader(8, 2, 3), 1, 2, 3), ErrTruncated, 12, "declare 6 bytes"},
		{"short int32", append(idxHeader(0x0C, 2), 0, 0, 0, 1, 0, 0), ErrTruncated, 8, "declare 8 bytes"},
		{"extra data", append(idxHeader(8, 2), 1, 2, 3), ErrFormat, 10, "extra"},
		{"huge dims", append(idxHeader(8, 1<<32-1, 1<<32-1, 1<<32-1), 1), ErrTooLarge, 4, "more than"},
		{"large dims short data", append(idxHeader(0x0E, 1<<20, 1<<10), 1, 2, 3), ErrTruncated, 12, "declare"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, err error, wantOffset bool) {
				t.Helper()
				if err == nil {
					t.Fatalf("%s: no error", how)
				}
				if !errors.Is(err, tc.kind) {
					t.Errorf("%s: error %q is not %v", how, err, tc.kind)
				}
				var de *Error
				if !errors.As(err, &de) {
					t.Fatalf("%s: error %q is not a *data.Error", how, err)
				}
				if wantOffset && de.Offset != tc.offset {
					t.Errorf("%s: error %q at offset %d, want %d", how, err, de.Offset, tc.offset)
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("%s: error %q does not mention %q", how, err, tc.msg)
				}
			}
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := os.WriteFile(path, tc.raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadIDXFile(path)
			check("file", err, true)
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			_, err = ReadIDX(bytes.NewReader(tc.raw), "stream")
			// Streams of unknown length learn of truncation while reading,
			// so only the kind and message are checked.
			check("stream", err, tc.kind != ErrTruncated)

			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(tc.raw)
			zw.Close()
			gzPath := path + ".gz"
			if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = ReadIDXFile(gzPath)
			check("gzip", err, tc.kind != ErrTruncated)
		})
	}
}

// TestIDXNoOverAllocation reads a gzip stream whose header declares 4 GB
// but holds a few bytes: the reader must not allocate anything like that.
func TestIDXNoOverAllocation(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(append(idxHeader(0x0D, 1<<20, 1<<10), make([]byte, 1000)...))
	zw.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadIDX(bytes.NewReader(gz.Bytes()), "big")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("error %v, want truncated", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d bytes reading a 4 GB header over 1000 bytes", alloc)
	}
}

func TestIDXSamples(t *testing.T) {
	tests := []struct {
		name    string
		x       *IDX
		c, h, w int
		float   bool
	}{
		{"vectors", &IDX{Type: IDXUint8, Dims: []int{2, 3}, Uint8: make([]uint8, 6)}, 1, 1, 3, false},
		{"images", &IDX{Type: IDXUint8, Dims: []int{2, 2, 3}, Uint8: make([]uint8, 12)}, 1, 2, 3, false},
		{"color", &IDX{Type: IDXInt16, Dims: []int{1, 3, 2, 2}, Int16: make([]int16, 12)}, 3, 2, 2, true},
		{"scalars", &IDX{Type: IDXFloat64, Dims: []int{4}, Float64: []float64{1, 2, 3, 4}}, 1, 1, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.x.Samples()
			if err != nil {
				t.Fatal(err)
			}
			if s.N != tc.x.Dims[0] || s.C != tc.c || s.H != tc.h || s.W != tc.w || s.IsFloat() != tc.float {
				t.Errorf("got %v, want N=%d %d×%d×%d float=%v", s, tc.x.Dims[0], tc.c, tc.h, tc.w, tc.float)
			}
		})
	}
	if _, err := (&IDX{Type: IDXUint8, Dims: []int{1, 1, 1, 1, 1}, Uint8: []uint8{1}}).Samples(); err == nil {
		t.Error("5-D array made samples")
	}
}

func TestIDXWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		x    *IDX
	}{
		{"no dims", &IDX{Type: IDXUint8}},
		{"wrong length", &IDX{Type: IDXUint8, Dims: []int{3}, Uint8: []uint8{1}}},
		{"unknown type", &IDX{Type: 3, Dims: []int{1}}},
		{"negative dim", &IDX{Type: IDXUint8, Dims: []int{-1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.x.WriteTo(&bytes.Buffer{}); err == nil {
				t.Error("no error")
			}
		})
	}
}

// FuzzReadIDX checks that no input panics the reader and that whatever it
// accepts survives a write and a second read unchanged.
func FuzzReadIDX(f *testing.F) {
	for _, tc := range idxCases() {
		var b bytes.Buffer
		tc.x.WriteTo(&b)
		f.Add(b.Bytes())
	}
	f.Add(append(idxHeader(8, 1<<31, 1<<31), 1))
	f.Fuzz(func(t *testing.T, raw []byte) {
		x, err := ReadIDX(bytes.NewReader(raw), "fuzz")
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %q is not a *data.Error", err)
			}
			return
		}
		var b bytes.Buffer
		if _, err := x.WriteTo(&b); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		y, err := ReadIDX(&b, "again")
		if err != nil {
			t.Fatalf("cannot read what was written: %v", err)
		}
		if !reflect.DeepEqual(x, y) && !hasNaN(x) {
			t.Fatalf("read %+v, then %+v", x, y)
		}
	})
}

// hasNaN reports whether a float array holds NaNs (which DeepEqual never
// finds equal).
func hasNaN(x *IDX) bool {
	for _, v := range x.Float32 {
		if v != v {
			return true
		}
	}
	for _, v := range x.Float64 {
		if v != v {
			return true
		}
	}
	return false
}
