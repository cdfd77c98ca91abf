package data

import (
	"bytes"
	"encoding/gob"
	"errors"
	"reflect"
	"testing"
)

func TestSamplesBinary(t *testing.T) {
	withClasses := testSamples(t, 3, 2, 2, 2, false)
	withClasses.Classes = []string{"a", "", "ccc"}
	tests := []struct {
		name string
		s    *Samples
	}{
		{"bytes", testSamples(t, 4, 1, 2, 3, false)},
		{"floats", testSamples(t, 2, 3, 1, 1, true)},
		{"classes", withClasses},
		{"empty floats", testSamples(t, 0, 1, 2, 2, true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Samples
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&got, tc.s) {
				t.Errorf("decoded %+v, want %+v", got, tc.s)
			}
			// gob uses the binary form, so empty float sets stay float.
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(tc.s); err != nil {
				t.Fatal(err)
			}
			var viaGob *Samples
			if err := gob.NewDecoder(&buf).Decode(&viaGob); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(viaGob, tc.s) || viaGob.IsFloat() != tc.s.IsFloat() {
				t.Errorf("through gob %+v, want %+v", viaGob, tc.s)
			}
			// Every truncation is an error.
			for n := 0; n < len(b); n++ {
				var s Samples
				if err := s.UnmarshalBinary(b[:n]); !errors.Is(err, ErrFormat) {
					t.Fatalf("%d of %d bytes: error %v", n, len(b), err)
				}
			}
		})
	}
}

func FuzzSamplesBinary(f *testing.F) {
	s := &Samples{N: 2, C: 1, H: 1, W: 2, Pixels: []uint8{1, 2, 3, 4}, Labels: []float32{0, 1}, Classes: []string{"x"}}
	b, _ := s.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Samples
		if err := s.UnmarshalBinary(b); err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("decoded invalid samples: %v", err)
		}
		again, err := s.MarshalBinary()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs: %v", err)
		}
	})
}
