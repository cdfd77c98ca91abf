package rdd

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparknet-go/sparknet/data"
)

// mnistDir finds the real MNIST files or skips.
func mnistDir(t testing.TB) string {
	t.Helper()
	dir, err := data.MNISTDir()
	if err != nil {
		t.Skipf("real MNIST not available: %v", err)
	}
	return dir
}

func TestMNISTSource(t *testing.T) {
	dir := mnistDir(t)
	sc := newTestContext(t, "local[2]")
	r, err := sc.MNIST(dir, false, 4)
	if err != nil {
		t.Fatal(err)
	}
	r.Cache()
	sizes, err := r.RunPartitions(nil, func(tc *TaskContext) (any, error) { return tc.Samples().N, nil })
	if err != nil || !reflect.DeepEqual(sizes, []any{2500, 2500, 2500, 2500}) {
		t.Fatalf("partition sizes %v, %v", sizes, err)
	}
	got, err := r.CollectSamples()
	if err != nil {
		t.Fatal(err)
	}
	want, err := data.LoadMNIST(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pixels, want.Pixels) || !reflect.DeepEqual(got.Labels, want.Labels) {
		t.Error("the RDD's samples differ from data.LoadMNIST's")
	}
	if _, err := sc.MNIST(t.TempDir(), true, 4); err == nil {
		t.Error("MNIST from an empty folder: no error")
	}
}

func TestFileSources(t *testing.T) {
	dir := t.TempDir()
	sc := newTestContext(t, "local[2]")

	// CIFAR-10: three records with labels 4, 5, 6.
	var rec []byte
	for i := 0; i < 3; i++ {
		rec = append(rec, byte(4+i))
		rec = append(rec, bytes.Repeat([]byte{byte(i)}, 3072)...)
	}
	os.WriteFile(filepath.Join(dir, "test_batch.bin"), rec, 0o644)
	cifar, err := sc.CIFAR10(dir, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := cifar.CollectSamples()
	if err != nil || cs.N != 3 || !reflect.DeepEqual(cs.Labels, []float32{4, 5, 6}) || cs.C != 3 {
		t.Errorf("CIFAR10: %v %v, %v", cs, cs.Labels, err)
	}

	// LMDB: the data package's fixture, 200 records of 3×6×6 bytes.
	lmdb, err := sc.LMDB(filepath.Join("..", "data", "testdata", "lmdb", "small"), data.ImageOptions{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want, err := data.ReadLMDB(filepath.Join("..", "data", "testdata", "lmdb", "small"), data.ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := lmdb.CollectSamples()
	if err != nil || ls.N != 200 || lmdb.NumPartitions() != 3 || !bytes.Equal(ls.Pixels, want.Pixels) || !reflect.DeepEqual(ls.Labels, want.Labels) {
		t.Errorf("LMDB: %d samples in %d partitions, %v", ls.N, lmdb.NumPartitions(), err)
	}

	// Text lines and CSV.
	os.WriteFile(filepath.Join(dir, "lines.txt"), []byte("a\nb\nc\n"), 0o644)
	lines, err := sc.TextFile(filepath.Join(dir, "lines.txt"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := collect(t, lines); !reflect.DeepEqual(got, []any{"a", "b", "c"}) {
		t.Errorf("TextFile: %v", got)
	}
	os.WriteFile(filepath.Join(dir, "d.csv"), []byte("1,0.5,2\n0,1.5,3\n"), 0o644)
	csv, err := sc.CSV(filepath.Join(dir, "d.csv"), data.CSVOptions{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := csv.CollectSamples()
	if err != nil || !reflect.DeepEqual(ds.Floats, []float32{0.5, 2, 1.5, 3}) || !reflect.DeepEqual(ds.Labels, []float32{1, 0}) {
		t.Errorf("CSV: %v, %v", ds, err)
	}

	// Image folder: two classes of one image each.
	for i, class := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(dir, "img", class), 0o755)
		img := image.NewGray(image.Rect(0, 0, 3, 2))
		for k := range img.Pix {
			img.Pix[k] = uint8(10*i + k)
		}
		var b bytes.Buffer
		png.Encode(&b, img)
		os.WriteFile(filepath.Join(dir, "img", class, "x.png"), b.Bytes(), 0o644)
	}
	imgs, err := sc.ImageFolder(filepath.Join(dir, "img"), data.ImageOptions{Gray: true}, 2)
	if err != nil {
		t.Fatal(err)
	}
	is, err := imgs.CollectSamples()
	if err != nil || is.N != 2 || !reflect.DeepEqual(is.Labels, []float32{0, 1}) || is.Pixels[6] != 10 || !reflect.DeepEqual(is.Classes, []string{"a", "b"}) {
		t.Errorf("ImageFolder: %v %v, %v", is, is.Pixels, err)
	}

	// An IDX pair of float images and byte labels.
	data.WriteIDXFile(filepath.Join(dir, "x.idx"), &data.IDX{Type: data.IDXFloat32, Dims: []int{2, 1, 3}, Float32: []float32{1, 2, 3, 4, 5, 6}})
	data.WriteIDXFile(filepath.Join(dir, "y.idx.gz"), &data.IDX{Type: data.IDXUint8, Dims: []int{2}, Uint8: []uint8{7, 8}})
	idx, err := sc.IDX(filepath.Join(dir, "x.idx"), filepath.Join(dir, "y.idx.gz"), 2)
	if err != nil {
		t.Fatal(err)
	}
	xs, err := idx.CollectSamples()
	if err != nil || xs.W != 3 || !reflect.DeepEqual(xs.Floats, []float32{1, 2, 3, 4, 5, 6}) || !reflect.DeepEqual(xs.Labels, []float32{7, 8}) {
		t.Errorf("IDX: %v %v, %v", xs, xs.Labels, err)
	}

	for name, err := range map[string]error{
		"CIFAR10":     func() error { _, err := sc.CIFAR10(filepath.Join(dir, "none"), true, 1); return err }(),
		"TextFile":    func() error { _, err := sc.TextFile(filepath.Join(dir, "none"), 1); return err }(),
		"CSV":         func() error { _, err := sc.CSV(filepath.Join(dir, "lines.txt"), data.CSVOptions{}, 1); return err }(),
		"ImageFolder": func() error { _, err := sc.ImageFolder(filepath.Join(dir, "none"), data.ImageOptions{}, 1); return err }(),
		"LMDB":        func() error { _, err := sc.LMDB(filepath.Join(dir, "none"), data.ImageOptions{}, 1); return err }(),
	} {
		if err == nil {
			t.Errorf("%s of a bad file: no error", name)
		}
	}
}

// BenchmarkMNISTCache reads the MNIST training set into a cached RDD of
// 4 partitions and materializes it. resident-MB is the heap the cached
// RDD keeps.
func BenchmarkMNISTCache(b *testing.B) {
	dir := mnistDir(b)
	sc := newTestContext(b, "local[4]")
	b.ReportAllocs()
	var resident float64
	for i := 0; i < b.N; i++ {
		before := heapInUse()
		r, err := sc.MNIST(dir, true, 4)
		if err != nil {
			b.Fatal(err)
		}
		r.Cache()
		if n, err := r.Count(); err != nil || n != 60000 {
			b.Fatal(n, err)
		}
		b.StopTimer()
		resident = float64(heapInUse()-before) / 1e6
		r.Unpersist()
		b.StartTimer()
	}
	b.ReportMetric(resident, "resident-MB")
}

// BenchmarkMinibatch fills minibatches of 64 (scaled by 1/256, as LeNet's
// data layer) from a cached partition of the MNIST training set.
func BenchmarkMinibatch(b *testing.B) {
	dir := mnistDir(b)
	sc := newTestContext(b, "local[4]")
	r, err := sc.MNIST(dir, true, 4)
	if err != nil {
		b.Fatal(err)
	}
	r.Cache()
	res, err := r.RunPartitions(nil, func(tc *TaskContext) (any, error) { return tc.Samples(), nil })
	if err != nil {
		b.Fatal(err)
	}
	part := res[0].(*data.Samples)
	for _, order := range []data.Order{data.Sequential, data.Shuffle} {
		b.Run(order.String(), func(b *testing.B) {
			bt, err := data.NewBatcher(part, data.BatchOptions{Size: 64, Order: order, Seed: 1, Transform: data.Transform{Scale: 1.0 / 256}})
			if err != nil {
				b.Fatal(err)
			}
			x := make([]float32, bt.DataLen())
			y := make([]float32, bt.Size())
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := bt.Next(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
