package caffe

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
)

func TestLayerInputShapes(t *testing.T) {
	cases := []struct {
		name  string
		param string
		tops  int
		want  [][]int
		err   string
	}{
		{"one-shape", `shape { dim: 2 dim: 3 }`, 2, [][]int{{2, 3}, {2, 3}}, ""},
		{"per-top", `shape { dim: 1 } shape { dim: 4 dim: 5 }`, 2, [][]int{{1}, {4, 5}}, ""},
		{"none", ``, 1, [][]int{{7}}, ""},
		{"mismatch", `shape { dim: 1 } shape { dim: 2 }`, 3, nil, "give 0, 1 or one per top"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := NewLayer(parseLayerDef(t, `type: "Input" input_param { `+c.param+` }`), nil)
			if err != nil {
				t.Fatal(err)
			}
			top := make([]*Blob, c.tops)
			for i := range top {
				top[i] = NewBlob(7)
			}
			err = l.Setup(nil, top)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, tp := range top {
				if fmt.Sprint(tp.Shape()) != fmt.Sprint(c.want[i]) {
					t.Errorf("top %d shape %v, want %v", i, tp.Shape(), c.want[i])
				}
			}
		})
	}
}

func newMemoryDataLayer(t *testing.T, param string) (*MemoryData, []*Blob) {
	t.Helper()
	top := blobs(NewBlob(), NewBlob())
	l := setupLayer(t, `name: "data" type: "MemoryData" `+param, nil, nil, top)
	return l.(*MemoryData), top
}

func TestLayerMemoryDataReset(t *testing.T) {
	l, top := newMemoryDataLayer(t, `memory_data_param { batch_size: 2 channels: 1 height: 1 width: 2 }`)
	if fmt.Sprint(top[0].Shape(), top[1].Shape()) != "[2 1 1 2] [2]" {
		t.Fatalf("shapes %v %v", top[0].Shape(), top[1].Shape())
	}
	data := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	labels := []float32{0, 1, 2, 3}
	if err := l.Reset(data, labels); err != nil {
		t.Fatal(err)
	}
	wantData := [][]float32{{1, 2, 3, 4}, {5, 6, 7, 8}, {1, 2, 3, 4}}
	wantLabels := [][]float32{{0, 1}, {2, 3}, {0, 1}}
	for i := range wantData {
		if err := l.Forward(nil, top); err != nil {
			t.Fatal(err)
		}
		if !closeSlices(top[0].DataSlice(), wantData[i], 0) || !closeSlices(top[1].DataSlice(), wantLabels[i], 0) {
			t.Errorf("batch %d: %v %v, want %v %v", i, top[0].DataSlice(), top[1].DataSlice(), wantData[i], wantLabels[i])
		}
	}
	for _, bad := range []struct {
		data, labels []float32
		want         string
	}{
		{data[:6], labels[:3], "multiple of the batch size"},
		{data[:6], labels, "want 8"},
		{nil, nil, "multiple"},
	} {
		if err := l.Reset(bad.data, bad.labels); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Reset(%d values, %d labels): %v, want %q", len(bad.data), len(bad.labels), err, bad.want)
		}
	}
}

func TestLayerMemoryDataFeeder(t *testing.T) {
	l, top := newMemoryDataLayer(t, `memory_data_param { batch_size: 3 channels: 2 height: 1 width: 1 }
		transform_param { scale: 0.5 mean_value: 1 mean_value: 2 }`)
	if err := l.Forward(nil, top); err == nil || !strings.Contains(err.Error(), "SetFeeder or Reset") {
		t.Errorf("Forward without data: %v", err)
	}
	calls := 0
	l.SetFeeder(func(data, label []float32) error {
		calls++
		if len(data) != 6 || len(label) != 3 {
			return fmt.Errorf("got %d values and %d labels", len(data), len(label))
		}
		for i := range data {
			data[i] = float32(i + calls)
		}
		for i := range label {
			label[i] = float32(i)
		}
		return nil
	})
	if err := l.Forward(nil, top); err != nil {
		t.Fatal(err)
	}
	// (x − mean[c]) · 0.5 with x = 1..6 and channels alternating.
	if want := []float32{0, 0, 1, 1, 2, 2}; !closeSlices(top[0].DataSlice(), want, 0) {
		t.Errorf("data %v, want %v", top[0].DataSlice(), want)
	}
	bs, ts := []*Blob(nil), top
	if allocs, sites := alloctest.Count(5, func() {
		if raceEnabled {
			return
		}
		if err := l.Forward(bs, ts); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per fed Forward, want 0:%s", allocs, alloctest.String(sites))
	}

	boom := errors.New("boom")
	l.SetFeeder(func(data, label []float32) error { return boom })
	if err := l.Forward(nil, top); !errors.Is(err, boom) || !strings.Contains(err.Error(), `layer "data"`) {
		t.Errorf("feeder error: %v", err)
	}
	l.SetFeeder(func(data, label []float32) error { panic("bad feeder") })
	if err := l.Forward(nil, top); err == nil || !strings.Contains(err.Error(), "bad feeder") {
		t.Errorf("feeder panic: %v", err)
	}
}

func TestLayerMemoryDataBatchSize(t *testing.T) {
	l, top := newMemoryDataLayer(t, `memory_data_param { batch_size: 2 channels: 1 height: 1 width: 1 }`)
	if err := l.Reset([]float32{1, 2, 3, 4, 5, 6}, []float32{1, 2, 3, 4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	if err := l.SetBatchSize(4); err == nil {
		t.Error("SetBatchSize(4) with 6 samples succeeded")
	}
	if err := l.SetBatchSize(3); err != nil {
		t.Fatal(err)
	}
	if err := l.Forward(nil, top); err != nil {
		t.Fatal(err)
	}
	if b, _, _, _ := l.BatchShape(); b != 3 || !closeSlices(top[1].DataSlice(), []float32{1, 2, 3}, 0) || top[0].Dim(0) != 3 {
		t.Errorf("batch %d labels %v data shape %v", b, top[1].DataSlice(), top[0].Shape())
	}
}

func TestLayerMemoryDataErrors(t *testing.T) {
	cases := []struct{ def, want string }{
		{`memory_data_param { batch_size: 2 channels: 1 height: 0 width: 1 }`, "> 0"},
		{`memory_data_param { batch_size: 2 channels: 1 height: 1 width: 1 } transform_param { mirror: true }`, "scale and mean_value"},
		{`memory_data_param { batch_size: 2 channels: 3 height: 1 width: 1 } transform_param { mean_value: 1 mean_value: 2 }`, "one per channel"},
	}
	for _, c := range cases {
		if _, err := NewLayer(parseLayerDef(t, `type: "MemoryData" `+c.def), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.def, err, c.want)
		}
	}
}
