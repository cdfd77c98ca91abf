package caffe

import (
	"strings"
	"testing"
)

func TestLayerTypes(t *testing.T) {
	types := LayerTypes()
	if len(types) != 61 {
		t.Errorf("%d layer types, want Caffe's 61", len(types))
	}
	names := LayerTypeNames()
	for i, lt := range types {
		if lt.Name != names[i] || (i > 0 && names[i-1] >= names[i]) {
			t.Fatalf("types not sorted or names differ at %d: %q %q", i, lt.Name, names[i])
		}
	}
	for _, name := range []string{"Python", "HDF5Data", "WindowData", "LSTM", "Convolution", "Swish", "Clip", "Im2col"} {
		if _, err := LookupLayerType(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	loss := 0
	for _, lt := range types {
		if lt.Loss {
			loss++
		}
	}
	if loss != 7 {
		t.Errorf("%d loss layer types, want 7", loss)
	}
	if lt, _ := LookupLayerType("SoftmaxWithLoss"); !lt.Loss {
		t.Error("SoftmaxWithLoss is not a loss layer")
	}
	if lt, _ := LookupLayerType("Accuracy"); lt.Loss {
		t.Error("Accuracy is not a loss layer in Caffe")
	}
}

func TestLookupLayerTypeErrors(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Convolutoin", `unknown layer type "Convolutoin" (did you mean "Convolution"?); known types: AbsVal, Accuracy, ArgMax, BNLL,`},
		{"relu", `(did you mean "ReLU"?)`},
		{"CONVOLUTION", `(did you mean "Convolution"?)`},
		{"SomethingElse", `unknown layer type "SomethingElse"; known types:`},
	}
	for _, tt := range tests {
		_, err := LookupLayerType(tt.name)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LookupLayerType(%q): %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestMarkComputed(t *testing.T) {
	const name = "Tile"
	if lt, _ := LookupLayerType(name); lt.Computed {
		t.Skipf("%s is already computed", name)
	}
	markComputed(name)
	defer func() {
		computedMu.Lock()
		delete(computedTypes, name)
		computedMu.Unlock()
	}()
	if lt, _ := LookupLayerType(name); !lt.Computed {
		t.Error("Computed not reported after markComputed")
	}
	for _, bad := range []string{name, "NoSuchLayer"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("markComputed(%q) did not panic", bad)
				}
			}()
			markComputed(bad)
		}()
	}
}
