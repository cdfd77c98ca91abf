package ndarray

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadNumPyFixtures reads the files NumPy wrote (see
// testdata/npy/make_fixtures.py) and checks every value.
func TestLoadNumPyFixtures(t *testing.T) {
	seq := func(n int, f func(i int) float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(f(i))
		}
		return out
	}
	tests := []struct {
		file  string
		shape []int
		data  []float32
	}{
		{"f4_c.npy", []int{2, 3, 4}, seq(24, func(i int) float64 { return float64(i) / 4 })},
		// Fortran order: the array is arange(12).reshape(3, 4) * 1.5
		// all the same, in C order once loaded.
		{"f8_fortran.npy", []int{3, 4}, seq(12, func(i int) float64 { return float64(i) * 1.5 })},
		{"i4_fortran_3d.npy", []int{2, 3, 4}, seq(24, func(i int) float64 { return float64(i - 10) })},
		{"u1.npy", []int{16, 16}, seq(256, func(i int) float64 { return float64(i) })},
		{"i4_big_endian.npy", []int{10}, seq(10, func(i int) float64 { return float64(i - 5) })},
		{"i8.npy", []int{4}, []float32{-(1 << 40), 0, 7, 1 << 20}},
		{"f2.npy", []int{4}, []float32{0.5, -2, 65504, 1.1920928955078125e-07}},
		{"bool.npy", []int{3}, []float32{1, 0, 1}},
		{"scalar.npy", []int{1}, []float32{3.5}},
		{"empty.npy", []int{0, 3}, []float32{}},
	}
	for _, tc := range tests {
		a, err := Load(filepath.Join("testdata", "npy", tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if !reflect.DeepEqual(a.Shape(), tc.shape) || !reflect.DeepEqual(a.Contiguous().Data(), tc.data) {
			t.Errorf("%s: shape %v values %v, want %v %v", tc.file, a.Shape(), a.Contiguous().Data(), tc.shape, tc.data)
		}
	}
	for _, file := range []string{"arrays.npz", "arrays_compressed.npz"} {
		m, err := LoadNpz(filepath.Join("testdata", "npy", file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(m) != 2 || !reflect.DeepEqual(m["x"].Shape(), []int{2, 3}) || !reflect.DeepEqual(m["x"].Data(), []float32{0, 1, 2, 3, 4, 5}) ||
			!reflect.DeepEqual(m["y"].Data(), []float32{1, 2, 3}) {
			t.Errorf("%s: %v", file, m)
		}
	}
}

// TestNpyRoundTrip writes every dtype and reads it back.
func TestNpyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a := Arange(0, 24, 1).Reshape(2, 3, 4)
	for _, dtype := range Dtypes {
		path := filepath.Join(dir, dtype+".npy")
		if err := SaveAs(path, a, dtype); err != nil {
			t.Fatalf("%s: %v", dtype, err)
		}
		b, err := Load(path)
		if err != nil || !reflect.DeepEqual(b.Shape(), a.Shape()) || !reflect.DeepEqual(b.Data(), a.Data()) {
			t.Errorf("%s: read back %v, %v", dtype, b, err)
		}
	}
	// A transposed view is written in C order.
	if err := Save(filepath.Join(dir, "t.npy"), a.T()); err != nil {
		t.Fatal(err)
	}
	b, _ := Load(filepath.Join(dir, "t.npy"))
	if !reflect.DeepEqual(b.Shape(), []int{4, 3, 2}) || b.At(3, 2, 1) != a.At(1, 2, 3) {
		t.Errorf("transposed: %v", b)
	}
	err := SaveAs(filepath.Join(dir, "bad.npy"), FromValues(1, 2.5), "int32")
	if err == nil || !strings.Contains(err.Error(), "value 2.5 at index [1] does not fit dtype int32") {
		t.Errorf("2.5 as int32: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.npy")); !os.IsNotExist(err) {
		t.Error("a failed save left a file")
	}
	if err := SaveAs(filepath.Join(dir, "x.npy"), a, "complex64"); err == nil || !strings.Contains(err.Error(), "known: float32") {
		t.Errorf("unknown dtype: %v", err)
	}
	m := map[string]*Array{"w": a, "b": FromValues(1, 2)}
	for _, compress := range []bool{false, true} {
		path := filepath.Join(dir, "m.npz")
		if err := SaveNpz(path, m, compress); err != nil {
			t.Fatal(err)
		}
		got, err := LoadNpz(path)
		if err != nil || len(got) != 2 || !reflect.DeepEqual(got["w"].Data(), a.Data()) || !reflect.DeepEqual(got["b"].Data(), []float32{1, 2}) {
			t.Errorf("npz compress=%v read back %v, %v", compress, got, err)
		}
	}
}

// TestNpyCorrupt checks that damaged files are errors naming the file
// and the problem, and that declared sizes are checked before anything
// is allocated.
func TestNpyCorrupt(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "npy", "f4_c.npy"))
	if err != nil {
		t.Fatal(err)
	}
	header := func(h string) []byte {
		b := append([]byte(npyMagic), 1, 0, byte(len(h)), 0)
		return append(b, h...)
	}
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"not npy", []byte("PK\x03\x04 a zip, not an npy file"), "does not start with \\x93NUMPY"},
		{"version", append([]byte(npyMagic), 9, 0, 10, 0), "format version 9.0"},
		{"header past the end", append([]byte(npyMagic), 1, 0, 0xff, 0xff), "a header of 65535 bytes"},
		{"truncated data", good[:len(good)-7], "truncated: shape [2 3 4] of float32 needs 96 bytes of data, the file has 89"},
		{"extra data", append(append([]byte(nil), good...), 1, 2), "2 bytes after the data"},
		{"huge shape", header("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100000), }\n"), "too large"},
		{"huge but plausible shape", header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }\n"), "needs 8000000000 bytes of data, the file has 0"},
		{"negative dimension", header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1), }\n"), "negative dimension"},
		{"object dtype", header("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }\n"), `dtype "|O" is not supported`},
		{"structured dtype", header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }\n"), "structured dtypes are not supported"},
		{"no shape", header("{'descr': '<f4', 'fortran_order': False, }\n"), `no "shape"`},
		{"bad order", header("{'descr': '<f4', 'fortran_order': maybe, 'shape': (3,), }\n"), "neither True nor False"},
		{"not a dict", header("['<f4']\n"), "not a Python dict"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeNpy(tc.b, "x.npy")
			if err == nil || !strings.Contains(err.Error(), "x.npy") || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrNpy) {
				t.Errorf("error %v, want one naming x.npy and %q", err, tc.want)
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "bad.npz")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	if _, err := LoadNpz(bad); err == nil || !strings.Contains(err.Error(), "bad.npz") {
		t.Errorf("LoadNpz of a non-zip: %v", err)
	}
}

// FuzzNpy feeds damaged .npy files to the reader: it must return an
// error or an array whose data the input held, never panic.
func FuzzNpy(f *testing.F) {
	for _, name := range []string{"f4_c.npy", "f8_fortran.npy", "i4_fortran_3d.npy", "u1.npy", "f2.npy", "scalar.npy", "empty.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", "npy", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeNpy(b, "fuzz.npy")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.npy") {
				t.Errorf("error %v does not name the file", err)
			}
			return
		}
		if a.Size() > len(b) {
			t.Errorf("%d values from %d bytes", a.Size(), len(b))
		}
		var buf bytes.Buffer
		if err := WriteNpy(&buf, a, "float32"); err != nil {
			t.Fatal(err)
		}
		c, err := DecodeNpy(buf.Bytes(), "again.npy")
		if err != nil || !reflect.DeepEqual(c.Shape(), a.Shape()) {
			t.Errorf("rewritten: %v, %v", c, err)
		}
	})
}

// TestNumPyReadsOurs has NumPy read the files Save, SaveAs and SaveNpz
// write. It needs python3 with numpy (Debian's python3-numpy).
func TestNumPyReadsOurs(t *testing.T) {
	if err := exec.Command("python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("python3 with numpy unavailable (apt-get install python3-numpy):", err)
	}
	dir := t.TempDir()
	a := Arange(0, 6, 1).Reshape(2, 3).Scale(2)
	var files []string
	for _, dtype := range Dtypes {
		p := filepath.Join(dir, dtype+".npy")
		if err := SaveAs(p, a, dtype); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	p := filepath.Join(dir, "m.npz")
	if err := SaveNpz(p, map[string]*Array{"a": a.T(), "b": FromValues(0.25)}, true); err != nil {
		t.Fatal(err)
	}
	files = append(files, p)
	out, err := exec.Command("python3", append([]string{filepath.Join("testdata", "npy", "read_numpy.py")}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	type entry struct {
		File, Name, Dtype string
		Shape             []int
		Values            []float64
	}
	var got []entry
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var e entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, e)
	}
	want := []entry{}
	for _, dtype := range Dtypes {
		want = append(want, entry{dtype + ".npy", "", dtype, []int{2, 3}, []float64{0, 2, 4, 6, 8, 10}})
	}
	want = append(want, entry{"m.npz", "a", "float32", []int{3, 2}, []float64{0, 6, 2, 8, 4, 10}}, entry{"m.npz", "b", "float32", []int{1}, []float64{0.25}})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("numpy read\n%v\nwant\n%v", got, want)
	}
}
