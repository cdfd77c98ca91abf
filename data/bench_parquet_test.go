package data

import (
	"path/filepath"
	"testing"
)

// BenchmarkReadMNIST reads MNIST's 60,000 training images from the IDX
// files as they ship (gzipped), from uncompressed IDX copies, and from a
// Parquet file of the same samples (Snappy-compressed, as WriteParquet
// writes), side by side:
//
//	go test -run='^$' -bench=ReadMNIST ./data/
//
// The goal is Parquet as fast as the IDX files.
func BenchmarkReadMNIST(b *testing.B) {
	dir, err := MNISTDir()
	if err != nil {
		b.Skip("MNIST files unavailable:", err)
	}
	s, err := LoadMNIST(dir, true)
	if err != nil {
		b.Fatal(err)
	}
	tmp := b.TempDir()
	images, labels := filepath.Join(tmp, "train-images-idx3-ubyte"), filepath.Join(tmp, "train-labels-idx1-ubyte")
	if err := WriteIDXFile(images, &IDX{Type: IDXUint8, Dims: []int{s.N, s.H, s.W}, Uint8: s.Pixels}); err != nil {
		b.Fatal(err)
	}
	lb := make([]uint8, s.N)
	for i, l := range s.Labels {
		lb[i] = uint8(l)
	}
	if err := WriteIDXFile(labels, &IDX{Type: IDXUint8, Dims: []int{s.N}, Uint8: lb}); err != nil {
		b.Fatal(err)
	}
	pq := filepath.Join(tmp, "train.parquet")
	if err := WriteParquet(pq, s); err != nil {
		b.Fatal(err)
	}
	check := func(b *testing.B, got *Samples, err error) {
		if err != nil || got.N != 60000 || got.Dim() != 784 || got.Labels[59999] != s.Labels[59999] {
			b.Fatalf("read %v, %v", got, err)
		}
	}
	b.Run("idx-gzip", func(b *testing.B) {
		for b.Loop() {
			got, err := LoadMNIST(dir, true)
			check(b, got, err)
		}
	})
	b.Run("idx", func(b *testing.B) {
		for b.Loop() {
			got, err := ReadMNIST(images, labels)
			check(b, got, err)
		}
	})
	b.Run("parquet", func(b *testing.B) {
		for b.Loop() {
			got, err := ReadParquet(pq, ParquetOptions{})
			check(b, got, err)
		}
	})
}
