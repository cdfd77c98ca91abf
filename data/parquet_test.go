package data

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureImage is byte j of the image in row i of the DuckDB fixtures:
// (7i + 3j) mod 256 (see testdata/parquet/make_fixtures.cjs).
func fixtureImage(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte((i*7 + j*3) % 256)
	}
	return b
}

// TestParquetFixtures reads the files DuckDB wrote and checks every
// value against the formulas that made them.
func TestParquetFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "parquet")
	t.Run("bytes", func(t *testing.T) {
		s, err := ReadParquet(filepath.Join(dir, "bytes.parquet"), ParquetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 50 || s.C != 1 || s.H != 4 || s.W != 4 || s.IsFloat() {
			t.Fatalf("read %v", s)
		}
		for i := 0; i < s.N; i++ {
			if got := s.Pixels[i*16 : (i+1)*16]; !bytes.Equal(got, fixtureImage(i, 16)) || s.Labels[i] != float32(i%10) {
				t.Fatalf("row %d: %v label %v", i, got, s.Labels[i])
			}
		}
	})
	t.Run("floats", func(t *testing.T) {
		s, err := ReadParquet(filepath.Join(dir, "floats.parquet"), ParquetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 20 || s.Dim() != 6 || !s.IsFloat() {
			t.Fatalf("read %v", s)
		}
		for i := 0; i < s.N; i++ {
			for j := 0; j < 6; j++ {
				if got, want := s.Floats[i*6+j], float32(float64(i)+float64(j)/4); got != want {
					t.Fatalf("row %d value %d: %v, want %v", i, j, got, want)
				}
			}
			if s.Labels[i] != float32(i%3)*0.5 {
				t.Fatalf("row %d label %v", i, s.Labels[i])
			}
		}
	})
	t.Run("rows", func(t *testing.T) {
		rows, err := ReadParquetRows(filepath.Join(dir, "rows.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 30 {
			t.Fatalf("%d rows", len(rows))
		}
		for i, r := range rows {
			want := map[string]any{
				"id": i, "small": i*3 - 7, "score": float64(i) / 8, "ratio": float32(i) * 0.25, "flag": i%2 == 0,
				"name": fmt.Sprintf("name%d", i%5), "payload": fixtureImage(i, 3),
			}
			if i%4 == 3 {
				want["name"] = nil
			}
			tags := []string{}
			for j := 0; j < i%3; j++ {
				tags = append(tags, fmt.Sprintf("t%d", j))
			}
			want["tags"] = tags
			if i%5 == 4 {
				want["tags"] = nil
			}
			if !reflect.DeepEqual(r, want) {
				t.Fatalf("row %d: %#v\nwant %#v", i, r, want)
			}
		}
	})
	t.Run("parts", func(t *testing.T) {
		s, err := ReadParquet(filepath.Join(dir, "parts"), ParquetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 45 {
			t.Fatalf("read %v from the parts", s)
		}
		for i := 0; i < s.N; i++ {
			if !bytes.Equal(s.Pixels[i*16:(i+1)*16], fixtureImage(i, 16)) || s.Labels[i] != float32(i%10) {
				t.Fatalf("row %d differs", i)
			}
		}
	})
	t.Run("spark image schema", func(t *testing.T) {
		s, err := ReadParquet(filepath.Join(dir, "spark_image.parquet"), ParquetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 10 || s.C != 1 || s.H != 3 || s.W != 4 {
			t.Fatalf("read %v", s)
		}
		if !bytes.Equal(s.Pixels[12*7:12*8], fixtureImage(7, 12)) || s.Labels[7] != 1 {
			t.Errorf("row 7 differs")
		}
	})
	t.Run("registry", func(t *testing.T) {
		d, err := Read("parquet:"+filepath.Join(dir, "rows.parquet"), ReadOptions{})
		if err != nil || d.Samples != nil || len(d.Rows) != 30 {
			t.Fatalf("Read rows: %v, %v", d, err)
		}
		d, err = Read(filepath.Join(dir, "bytes.parquet"), ReadOptions{})
		if err != nil || d.Format != "parquet" || d.Samples == nil || d.Samples.N != 50 {
			t.Fatalf("Read detected bytes.parquet as %v, %v", d, err)
		}
		d, err = Read(filepath.Join(dir, "parts"), ReadOptions{})
		if err != nil || d.Samples == nil || d.Samples.N != 45 {
			t.Fatalf("Read detected parts as %v, %v", d, err)
		}
	})
}

// TestParquetRoundTrip writes samples and rows and reads them back.
func TestParquetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, floats := range []bool{false, true} {
		s, err := NewSamples(37, 3, 2, 5, floats)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Pixels {
			s.Pixels[i] = byte(i * 13)
		}
		for i := range s.Floats {
			s.Floats[i] = float32(math.Sin(float64(i)))
		}
		for i := range s.Labels {
			s.Labels[i] = float32(i % 7)
		}
		if floats {
			s.Labels[3] = 2.5 // not whole: FLOAT labels
		}
		path := filepath.Join(dir, fmt.Sprintf("s%v.parquet", floats))
		if err := WriteParquet(path, s); err != nil {
			t.Fatal(err)
		}
		got, err := ReadParquet(path, ParquetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Pixels, s.Pixels) || !reflect.DeepEqual(got.Floats, s.Floats) || !reflect.DeepEqual(got.Labels, s.Labels) ||
			got.C != 3 || got.H != 2 || got.W != 5 {
			t.Errorf("floats=%v: read back %v, wrote %v", floats, got, s)
		}
	}
	type rec struct {
		ID    int
		Name  string
		Score float64
		Tags  []string
		skip  int
	}
	rows := []any{rec{1, "a", 0.5, []string{"x"}, 0}, rec{2, "b", 1.5, nil, 0}, rec{3, "", -2, []string{}, 0}}
	path := filepath.Join(dir, "rows.parquet")
	if err := WriteParquetRows(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquetRows(path)
	want := []map[string]any{
		{"ID": 1, "Name": "a", "Score": 0.5, "Tags": []string{"x"}},
		{"ID": 2, "Name": "b", "Score": 1.5, "Tags": nil},
		{"ID": 3, "Name": "", "Score": -2.0, "Tags": []string{}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("rows read back: %v, %v\nwant %v", got, err, want)
	}
	err = WriteParquetRows(filepath.Join(dir, "bad.parquet"), []any{map[string]any{"x": 1}, map[string]any{"x": "one"}})
	if err == nil || !strings.Contains(err.Error(), `row 1, column "x": string, but the column holds int`) {
		t.Errorf("mixed types: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.parquet")); !os.IsNotExist(err) {
		t.Errorf("a failed write left a file: %v", err)
	}
}

// TestParquetCorrupt checks that damaged files are errors naming the
// file and the problem.
func TestParquetCorrupt(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "parquet", "bytes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	footerLen := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	footerAt := len(good) - 8 - footerLen
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a Parquet file"},
		{"not parquet", []byte("hello, this is text and not a table"), "not a Parquet file"},
		{"truncated", good[:len(good)-100], "does not end with PAR1"},
		{"footer too long", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-8:], 1<<31)
			return b
		}), "a footer of 2147483648 bytes"},
		{"footer garbage", edit(func(b []byte) []byte {
			for i := footerAt; i < len(b)-8; i++ {
				b[i] = 0xff
			}
			return b
		}), "the footer"},
		{"huge list in the footer", edit(func(b []byte) []byte {
			// The footer starts with the version (15 02), then the
			// schema list's header (19 4c: 4 structs), made to claim
			// 2^28 structs.
			at := footerAt + 3
			if b[at-1] != 0x19 {
				t.Fatalf("the fixture's footer starts % x", b[footerAt:footerAt+4])
			}
			b = append(append(append([]byte(nil), b[:at]...), 0xfc, 0x80, 0x80, 0x80, 0x01), b[at+1:]...)
			binary.LittleEndian.PutUint32(b[len(b)-8:], uint32(footerLen+4))
			return b
		}), "bytes left"},
		{"pages damaged", edit(func(b []byte) []byte {
			for i := 4; i < footerAt; i += 7 {
				b[i] ^= 0x5a
			}
			return b
		}), "bytes.parquet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeParquet(tc.b, "bytes.parquet", ParquetOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), "bytes.parquet") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one naming the file and %q", err, tc.want)
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Errorf("error %v is not a *data.Error", err)
			}
		})
	}
}

// FuzzParquet feeds damaged Parquet files to the reader: it must return
// an error or rows, never panic or allocate beyond the checked bounds.
func FuzzParquet(f *testing.F) {
	for _, name := range []string{"bytes.parquet", "floats.parquet", "rows.parquet", "spark_image.parquet"} {
		b, err := os.ReadFile(filepath.Join("testdata", "parquet", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := DecodeParquetRows(b, "fuzz.parquet")
		if err != nil && !strings.Contains(err.Error(), "fuzz.parquet") {
			t.Errorf("error %v does not name the file", err)
		}
		if err == nil && len(rows) > maxParquetRatio*len(b)+1<<20 {
			t.Errorf("%d rows from %d bytes", len(rows), len(b))
		}
		DecodeParquet(b, "fuzz.parquet", ParquetOptions{})
	})
}

// TestParquetDuckDBReadsOurs writes samples and rows, has DuckDB read
// them, and compares. It needs node and DuckDB's npm package:
// SPARKNET_DUCKDB names the folder that holds node_modules/@duckdb
// (npm install --prefix DIR @duckdb/node-api); CI sets it.
func TestParquetDuckDBReadsOurs(t *testing.T) {
	mods := os.Getenv("SPARKNET_DUCKDB")
	if mods == "" {
		t.Skip("SPARKNET_DUCKDB unset: no DuckDB to read the files (npm install --prefix DIR @duckdb/node-api, then SPARKNET_DUCKDB=DIR)")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "parquet", "read_duckdb.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	duck := func(path string) []map[string]any {
		t.Helper()
		cmd := exec.Command("node", script, path)
		cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(mods, "node_modules"))
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("DuckDB could not read %s: %v\n%s", path, err, ee.Stderr)
			}
			t.Fatal(err)
		}
		var rows []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			rows = append(rows, m)
		}
		return rows
	}
	dir := t.TempDir()
	s, _ := NewSamples(25, 1, 3, 3, false)
	for i := range s.Pixels {
		s.Pixels[i] = byte(i * 31)
	}
	for i := range s.Labels {
		s.Labels[i] = float32(i % 4)
	}
	path := filepath.Join(dir, "samples.parquet")
	if err := WriteParquet(path, s); err != nil {
		t.Fatal(err)
	}
	rows := duck(path)
	if len(rows) != 26 || rows[0]["metadata"] != "sparknet.shape=1,3,3" {
		t.Fatalf("DuckDB read %d lines, first %v", len(rows), rows[0])
	}
	for i, r := range rows[1:] {
		if r["data"] != "hex:"+hex.EncodeToString(s.Pixels[i*9:(i+1)*9]) || r["label"] != float64(i%4) {
			t.Fatalf("DuckDB read row %d as %v", i, r)
		}
	}
	f, _ := NewSamples(4, 1, 1, 3, true)
	for i := range f.Floats {
		f.Floats[i] = float32(i) * 0.5
	}
	f.Labels[2] = 0.25
	path = filepath.Join(dir, "floats.parquet")
	if err := WriteParquet(path, f); err != nil {
		t.Fatal(err)
	}
	rows = duck(path)
	if fmt.Sprint(rows[3]) != "map[data:[3 3.5 4] label:0.25]" {
		t.Errorf("DuckDB read the float samples as %v", rows)
	}
	path = filepath.Join(dir, "rows.parquet")
	err = WriteParquetRows(path, []any{
		map[string]any{"id": 1, "name": "ada", "score": 1.5, "ok": true, "v": []float32{1, 2}},
		map[string]any{"id": 2, "name": nil, "score": -0.5, "ok": false, "v": nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	rows = duck(path)
	if got := fmt.Sprint(rows); got != "[map[id:1 name:ada ok:true score:1.5 v:[1 2]] map[id:2 name:<nil> ok:false score:-0.5 v:<nil>]]" {
		t.Errorf("DuckDB read the rows as %s", got)
	}
}
