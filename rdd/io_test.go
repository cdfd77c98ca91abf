package rdd

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/data"
)

func TestSaveAndReadText(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	dir := filepath.Join(t.TempDir(), "out")
	words := []string{"a b", "c", "", "d e f", "g"}
	r := sc.Parallelize(words, 3)
	if err := r.SaveAsTextFile(dir); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if want := []string{"_SUCCESS", "part-00000", "part-00001", "part-00002"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	for _, read := range []func() (*RDD, error){
		func() (*RDD, error) { return sc.TextFile(dir, 2) },
		func() (*RDD, error) { return sc.Read("text:"+dir, 0) },
	} {
		back, err := read()
		if err != nil {
			t.Fatal(err)
		}
		got, err := back.Collect()
		if err != nil || !reflect.DeepEqual(got, []any{"a b", "c", "", "d e f", "g"}) {
			t.Errorf("read back %q, %v", got, err)
		}
	}
	// A folder of text parts is not taken for Parquet.
	if _, err := sc.Read(dir, 0); err == nil || !strings.Contains(err.Error(), "no known format") {
		t.Errorf("reading a folder of text parts without a format: %v", err)
	}
	err := r.SaveAsTextFile(dir)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("saving over existing output: %v", err)
	}
	pairs := sc.Parallelize([]Pair{{Key: "x", Value: 1}, {Key: "y", Value: 2}}, 1)
	if err := pairs.SaveAsTextFile(filepath.Join(t.TempDir(), "pairs")); err != nil {
		t.Fatal(err)
	}
}

func TestSaveAndReadParquet(t *testing.T) {
	sc := newTestContext(t, "local[3]")
	s, err := data.NewSamples(100, 1, 4, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Pixels {
		s.Pixels[i] = byte(i)
	}
	for i := range s.Labels {
		s.Labels[i] = float32(i % 10)
	}
	dir := filepath.Join(t.TempDir(), "train")
	if err := sc.ParallelizeSamples(s, 4).SaveAsParquet(dir); err != nil {
		t.Fatal(err)
	}
	back, err := sc.Read("parquet:"+dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !back.IsSamples() || back.NumPartitions() != 5 {
		t.Fatalf("read back %v", back)
	}
	got, err := back.CollectSamples()
	if err != nil || !reflect.DeepEqual(got.Pixels, s.Pixels) || !reflect.DeepEqual(got.Labels, s.Labels) || got.H != 4 {
		t.Fatalf("read back %v, %v", got, err)
	}
	if !strings.Contains(back.Lineage(), "Read parquet") {
		t.Errorf("lineage %s", back.Lineage())
	}

	// Pairs become rows with key and value columns.
	counts := sc.Parallelize([]string{"a", "b", "a", "c", "a"}, 2).
		Map(func(w string) Pair { return Pair{Key: w, Value: 1} }).
		ReduceByKey(func(a, b int) int { return a + b }, 2)
	dir = filepath.Join(t.TempDir(), "counts")
	if err := counts.SaveAsParquet(dir); err != nil {
		t.Fatal(err)
	}
	rows, err := sc.Read(dir, 0) // detected as Parquet
	if err != nil {
		t.Fatal(err)
	}
	got2, err := rows.Map(func(m map[string]any) string { return fmt.Sprintf("%v=%v", m["key"], m["value"]) }).Collect()
	var strs []string
	for _, x := range got2 {
		strs = append(strs, x.(string))
	}
	sort.Strings(strs)
	if err != nil || !reflect.DeepEqual(strs, []string{"a=3", "b=1", "c=1"}) {
		t.Errorf("read back %v, %v", strs, err)
	}
}

func TestReadErrors(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	_, err := sc.Read("nosuch:x", 0)
	if err == nil || !strings.Contains(err.Error(), `unknown format "nosuch"`) || !strings.Contains(err.Error(), "parquet") {
		t.Errorf("unknown format: %v", err)
	}
	_, err = sc.Read(filepath.Join(t.TempDir(), "missing"), 0)
	if err == nil || !strings.Contains(err.Error(), "no such file") || !strings.Contains(err.Error(), "mnist (") {
		t.Errorf("missing path: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	os.WriteFile(bad, []byte("PAR1 not really PAR1"), 0o644)
	_, err = sc.Read(bad, 0)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("corrupt Parquet: %v", err)
	}
	if _, err := sc.Read("text:x", -1); err == nil {
		t.Error("Read into -1 partitions: no error")
	}
}

func TestReadMNIST(t *testing.T) {
	if _, err := data.MNISTDir(); err != nil {
		t.Skip("MNIST files unavailable:", err)
	}
	sc := newTestContext(t, "local[2]")
	dir, _ := data.MNISTDir()
	r, err := sc.ReadWith("mnist:"+dir, data.ReadOptions{Split: "test"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.Count()
	if err != nil || n != 10000 || !r.IsSamples() {
		t.Errorf("the MNIST test split has %d samples, %v", n, err)
	}
	if _, err := sc.ReadWith("mnist:"+dir, data.ReadOptions{Split: "validation"}, 4); err == nil || !strings.Contains(err.Error(), "known: train, test") {
		t.Errorf("unknown split: %v", err)
	}
}
