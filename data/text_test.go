package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	text := "first\r\nsecond\n\nlast"
	plain := filepath.Join(dir, "a.txt")
	os.WriteFile(plain, []byte(text), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	zipped := filepath.Join(dir, "a.txt.gz")
	os.WriteFile(zipped, gz.Bytes(), 0o644)
	want := []string{"first", "second", "", "last"}
	for _, p := range []string{plain, zipped} {
		got, err := ReadLines(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
}

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		o        CSVOptions
		w        int
		features []float32
		labels   []float32
	}{
		{"label first", "1,2,3\n0,4.5,6\n", CSVOptions{}, 2, []float32{2, 3, 4.5, 6}, []float32{1, 0}},
		{"label last with header", "a,b,y\n1,2,7\n3,4,8\n", CSVOptions{Header: true, LabelColumn: -1}, 2, []float32{1, 2, 3, 4}, []float32{7, 8}},
		{"no label", "1;2\n3;4\n", CSVOptions{Comma: ';', NoLabel: true}, 2, []float32{1, 2, 3, 4}, []float32{0, 0}},
		{"middle label, spaces", "1, 9 ,2\n", CSVOptions{LabelColumn: 1}, 2, []float32{1, 2}, []float32{9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := DecodeCSV(strings.NewReader(tc.text), "t.csv", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if s.W != tc.w || s.C != 1 || s.H != 1 || !reflect.DeepEqual(s.Floats, tc.features) || !reflect.DeepEqual(s.Labels, tc.labels) {
				t.Errorf("got %v features %v labels %v", s, s.Floats, s.Labels)
			}
			if err := s.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		o         CSVOptions
		line, col int
		msg       string
	}{
		{"not a number", "1,2\n3,x\n", CSVOptions{}, 2, 3, `"x"`},
		{"ragged", "1,2\n3,4,5\n", CSVOptions{}, 2, 1, "number of fields"},
		{"bad quote", "1,\"2\n", CSVOptions{}, 1, 0, ""},
		{"label column", "1,2\n", CSVOptions{LabelColumn: 5}, 1, 0, "label column 5"},
		{"label only", "1\n", CSVOptions{}, 1, 0, "no feature columns"},
		{"empty", "", CSVOptions{}, 0, 0, "no data records"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeCSV(strings.NewReader(tc.text), "t.csv", tc.o)
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *data.Error", err)
			}
			if de.Line != tc.line || (tc.col > 0 && de.Column != tc.col) || !strings.Contains(err.Error(), tc.msg) || de.File != "t.csv" {
				t.Errorf("error %q at line %d column %d, want line %d column %d mentioning %q", err, de.Line, de.Column, tc.line, tc.col, tc.msg)
			}
		})
	}
}
