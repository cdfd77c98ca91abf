package caffe

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func dataNet(source, transform string, batch int, phase string) string {
	return `
name: "d"
layer { name: "data" type: "Data" top: "data" top: "label"
  include { phase: ` + phase + ` }
  transform_param { ` + transform + ` }
  data_param { source: "` + source + `" batch_size: ` + strconv.Itoa(batch) + ` } }
`
}

func buildDataNet(t *testing.T, src string, phase Phase, dir string) (*Net, error) {
	t.Helper()
	np, err := ParseNetParameter("data.prototxt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return NewNet(np, NetOptions{State: &NetState{Phase: phase}, Threads: 1, Dir: dir})
}

func TestDataLayerMNIST(t *testing.T) {
	mnist := writeFakeMNIST(t, 25)
	n, err := buildDataNet(t, dataNet("mnist:"+mnist, "scale: 0.5", 10, "TRAIN"), Train, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Blob("data").Shape(); !slices.Equal(got, []int{10, 1, 28, 28}) {
		t.Errorf("data shape %v, want [10 1 28 28]", got)
	}
	if got := n.Blob("label").Shape(); !slices.Equal(got, []int{10}) {
		t.Errorf("label shape %v, want [10]", got)
	}
	s, err := loadSource("mnist:"+mnist, "", caffepb.DataParameter_LEVELDB, true)
	if err != nil {
		t.Fatal(err)
	}
	// Batches run through the samples in order and wrap around.
	for batch := 0; batch < 3; batch++ {
		if _, err := n.Forward(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10; i++ {
			k := (batch*10 + i) % 25
			if got := n.Blob("label").DataSlice()[i]; got != s.Labels[k] {
				t.Fatalf("batch %d item %d: label %g, want sample %d's %g", batch, i, got, k, s.Labels[k])
			}
			if got, want := n.Blob("data").DataSlice()[i*784+100], float32(s.Pixels[k*784+100])*0.5; got != want {
				t.Fatalf("batch %d item %d: pixel %g, want %g", batch, i, got, want)
			}
		}
	}
	// SkipBatches lands where reading would have.
	m, err := buildDataNet(t, dataNet("mnist:"+mnist, "scale: 0.5", 10, "TRAIN"), Train, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Layer("data").(*DataLayer).SkipBatches(2); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forward(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Blob("label").DataSlice(), n.Blob("label").DataSlice()) {
		t.Error("after skipping two batches the third differs")
	}
}

func TestDataLayerSources(t *testing.T) {
	mnist := writeFakeMNIST(t, 12)
	lmdb := t.TempDir()
	if err := os.WriteFile(filepath.Join(lmdb, "data.mdb"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, source string
		dir          string
		wantErr      string
	}{
		{"kind and path", "mnist:" + mnist, "", ""},
		{"detected folder", mnist, "", ""},
		{"relative to the net's folder", filepath.Base(mnist), filepath.Dir(mnist), ""},
		{"missing LMDB", "examples/mnist/mnist_train_lmdb", "", "LMDB"},
		{"LMDB written by the LMDB library", filepath.Join("..", "data", "testdata", "lmdb", "small"), "", ""},
		{"LMDB written by the LMDB library, by kind", "lmdb:" + filepath.Join("..", "data", "testdata", "lmdb", "big"), "", ""},
		{"LevelDB written by the LevelDB library", copyDir(t, filepath.Join("..", "data", "testdata", "leveldb", "table")), "", ""},
		{"Parquet written by DuckDB, through data's registry", "parquet:" + filepath.Join("..", "data", "testdata", "parquet", "bytes.parquet"), "", ""},
		{"a folder of Parquet part files, detected", filepath.Join("..", "data", "testdata", "parquet", "parts"), "", ""},
		{"text is not a data set", "text:" + filepath.Join("..", "data", "testdata", "parquet", "make_fixtures.cjs"), "", "the text format holds a text file"},
		{"empty", "", "", "source is empty"},
		{"unknown folder", t.TempDir(), "", "no known kind"},
	}
	// A damaged LMDB: the error names the file and what is wrong there.
	if _, err := buildDataNet(t, dataNet(lmdb, "", 4, "TEST"), Test, ""); err == nil || !strings.Contains(err.Error(), filepath.Join(lmdb, "data.mdb")) || !strings.Contains(err.Error(), "meta page") {
		t.Errorf("damaged LMDB: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := buildDataNet(t, dataNet(tc.source, "", 4, "TEST"), Test, tc.dir)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "mnist (") {
				t.Errorf("error %v, want one containing %q and listing the supported kinds", err, tc.wantErr)
			}
		})
	}
}

func TestDataLayerTransform(t *testing.T) {
	mnist := writeFakeMNIST(t, 4)
	meanFile := filepath.Join(t.TempDir(), "mean.binaryproto")
	mean := make([]float32, 28*28)
	for i := range mean {
		mean[i] = float32(i % 7)
	}
	bp := &caffepb.BlobProto{Num: proto.Int32(1), Channels: proto.Int32(1), Height: proto.Int32(28), Width: proto.Int32(28), Data: mean}
	if err := WriteBlobProto(meanFile, bp); err != nil {
		t.Fatal(err)
	}
	n, err := buildDataNet(t, dataNet("mnist:"+mnist, `crop_size: 20 mean_file: "`+meanFile+`" scale: 2`, 2, "TEST"), Test, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Blob("data").Shape(); !slices.Equal(got, []int{2, 1, 20, 20}) {
		t.Fatalf("cropped data shape %v, want [2 1 20 20]", got)
	}
	if _, err := n.Forward(); err != nil {
		t.Fatal(err)
	}
	s, err := loadSource("mnist:"+mnist, "", caffepb.DataParameter_LEVELDB, false)
	if err != nil {
		t.Fatal(err)
	}
	// TEST crops the centre: offset 4, so output (0,0) is input (4,4).
	in := 4*28 + 4
	if got, want := n.Blob("data").DataSlice()[0], (float32(s.Pixels[in])-mean[in])*2; got != want {
		t.Errorf("first value %g, want %g", got, want)
	}
	if _, err := buildDataNet(t, dataNet("mnist:"+mnist, `mean_file: "nope.binaryproto"`, 2, "TEST"), Test, ""); err == nil ||
		!strings.Contains(err.Error(), "mean_file") {
		t.Errorf("missing mean file gave %v", err)
	}
}

func TestReplaceDataLayers(t *testing.T) {
	dir := sharedModels(t)
	np, err := LoadNetParameter(filepath.Join(dir, "mnist", "lenet_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := ReplaceDataLayers(np, 1, 28, 28)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 2 || inputs[0].BatchSize != 64 || inputs[1].BatchSize != 100 ||
		inputs[0].Transform.GetScale() != 0.00390625 || !slices.Equal(inputs[0].Tops, []string{"data", "label"}) {
		t.Fatalf("inputs %+v", inputs)
	}
	n, err := NewNet(np, NetOptions{State: &NetState{Phase: Train}, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	mds := n.MemoryDataLayers()
	if len(mds) != 1 {
		t.Fatalf("%d MemoryData layers in the train net, want 1", len(mds))
	}
	md, err := n.MemoryDataLayer(inputs[0].Layer)
	if err != nil || md != mds[0] {
		t.Fatalf("MemoryDataLayer(%q) = %v, %v", inputs[0].Layer, md, err)
	}
	fed := 0
	md.SetFeeder(func(data, label []float32) error {
		fed++
		for i := range label {
			label[i] = float32(i % 10)
		}
		return nil
	})
	if _, err := n.ForwardBackward(); err != nil {
		t.Fatal(err)
	}
	if fed != 1 {
		t.Errorf("feeder called %d times, want 1", fed)
	}
	if _, err := n.MemoryDataLayer("conv1"); err == nil || !strings.Contains(err.Error(), "Convolution") {
		t.Errorf("MemoryDataLayer(conv1) = %v", err)
	}
}

func TestDataLayerCIFAR(t *testing.T) {
	dir := t.TempDir()
	rec := make([]byte, 3*(1+3072))
	for i := 0; i < 3; i++ {
		rec[i*3073] = byte(7 - i)
		for j := 1; j <= 3072; j++ {
			rec[i*3073+j] = byte(i + j)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "test_batch.bin"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := buildDataNet(t, dataNet(dir, `mean_value: 1 mean_value: 2 mean_value: 3`, 2, "TEST"), Test, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Forward(); err != nil {
		t.Fatal(err)
	}
	if got := n.Blob("data").Shape(); !slices.Equal(got, []int{2, 3, 32, 32}) {
		t.Errorf("shape %v", got)
	}
	if got := n.Blob("label").DataSlice(); got[0] != 7 || got[1] != 6 {
		t.Errorf("labels %v, want [7 6]", got)
	}
	// Channel 1 of sample 0 starts at byte 1+1024, value (1024+1) % 256,
	// minus the channel's mean 2.
	if got, want := n.Blob("data").DataSlice()[1024], float32(1025%256)-2; got != want {
		t.Errorf("first value of channel 1: %g, want %g", got, want)
	}
}

// copyDir copies the files of a folder into a temporary one (database
// libraries write lock files beside their data).
func copyDir(t *testing.T, src string) string {
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

// TestImageDataLayer reads a Caffe image list through the ImageData layer:
// resized color images in list order, then shuffled per epoch.
func TestImageDataLayer(t *testing.T) {
	dir := t.TempDir()
	var list strings.Builder
	for i := 0; i < 3; i++ {
		img := image.NewNRGBA(image.Rect(0, 0, 4+i, 3))
		for j := range img.Pix {
			img.Pix[j] = uint8(40*i + 1)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("im %d.png", i)
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&list, "%s %d\n", name, 10+i)
	}
	if err := os.WriteFile(filepath.Join(dir, "list.txt"), []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	def := `type: "ImageData" top: "data" top: "label" image_data_param { source: "list.txt" batch_size: 2 new_height: 3 new_width: 4 }
		transform_param { scale: 0.5 }`
	env := &LayerEnv{Phase: caffepb.Phase_TRAIN, Seed: 1, Dir: dir}
	x, y := NewBlob(), NewBlob()
	l := setupLayer(t, def, env, nil, blobs(x, y))
	if !slices.Equal(x.Shape(), []int{2, 3, 3, 4}) || !slices.Equal(y.Shape(), []int{2}) {
		t.Fatalf("tops %v and %v", x.Shape(), y.Shape())
	}
	var labels []float32
	for range 3 {
		if err := l.Forward(nil, blobs(x, y)); err != nil {
			t.Fatal(err)
		}
		labels = append(labels, y.DataSlice()...)
	}
	if want := []float32{10, 11, 12, 10, 11, 12}; !slices.Equal(labels, want) {
		t.Errorf("labels in list order %v, want %v", labels, want)
	}
	if got := x.DataSlice()[0]; got != 0.5*41 {
		t.Errorf("first value of the last batch %g, want %g (image 1 scaled by 0.5)", got, 0.5*41)
	}
	// Shuffled: every epoch holds every image once.
	def = strings.Replace(def, "new_width: 4", "new_width: 4 shuffle: true", 1)
	l = setupLayer(t, def, env, nil, blobs(x, y))
	seen := map[float32]int{}
	for range 3 {
		if err := l.Forward(nil, blobs(x, y)); err != nil {
			t.Fatal(err)
		}
		for _, v := range y.DataSlice() {
			seen[v]++
		}
	}
	if seen[10] != 2 || seen[11] != 2 || seen[12] != 2 {
		t.Errorf("shuffled labels over two epochs: %v", seen)
	}
	missing, err := NewLayer(parseLayerDef(t, `type: "ImageData" image_data_param { source: "none.txt" batch_size: 1 }`), env)
	if err != nil {
		t.Fatalf("the constructor reads no files: %v", err)
	}
	if err := missing.Setup(nil, blobs(NewBlob(), NewBlob())); err == nil || !strings.Contains(err.Error(), "none.txt") {
		t.Errorf("a missing list: %v", err)
	}
}

// TestReplaceImageDataLayers checks that ImageData layers, too, become
// MemoryData layers with their batch size, source and transform.
func TestReplaceImageDataLayers(t *testing.T) {
	np, err := ParseNetParameter("net.prototxt", []byte(`
layer { name: "images" type: "ImageData" top: "data" top: "label"
        image_data_param { source: "train.txt" batch_size: 8 new_height: 32 new_width: 32 }
        transform_param { mirror: true crop_size: 28 } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }`))
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := ReplaceDataLayers(np, 3, 32, 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 1 || inputs[0].BatchSize != 8 || inputs[0].Source != "train.txt" || !inputs[0].Transform.GetMirror() {
		t.Fatalf("inputs %+v", inputs)
	}
	l := np.GetLayer()[0]
	if l.GetType() != "MemoryData" || l.GetImageDataParam() != nil || l.GetMemoryDataParam().GetHeight() != 28 || l.GetMemoryDataParam().GetBatchSize() != 8 {
		t.Errorf("replaced layer %v", l)
	}
}
