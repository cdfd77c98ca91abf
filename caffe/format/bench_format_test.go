package format

import (
	"os"
	"testing"
)

// benchParseText parses a net definition file repeatedly.
func benchParseText(b *testing.B, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseNetParameter(path, src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseTextLeNet(b *testing.B) {
	benchParseText(b, sharedFile(b, "mnist/lenet_train_test.prototxt"))
}

func BenchmarkParseTextGoogLeNet(b *testing.B) {
	benchParseText(b, "../testdata/bvlc_googlenet/train_val.prototxt")
}

// benchDecode decodes (and upgrades) a binary model repeatedly.
func benchDecode(b *testing.B, rel string) {
	data, err := os.ReadFile(sharedFile(b, rel))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCaffemodel(rel, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeCaffemodelLeNet(b *testing.B) {
	benchDecode(b, "trained/lenet_iter_10000.caffemodel")
}
func BenchmarkDecodeCaffemodelLeNetV1(b *testing.B) {
	benchDecode(b, "trained/lenet_v1_iter_10000.caffemodel")
}

func BenchmarkEncodeCaffemodelLeNet(b *testing.B) {
	np, err := ReadCaffemodel(sharedFile(b, "trained/lenet_iter_10000.caffemodel"))
	if err != nil {
		b.Fatal(err)
	}
	out, _ := EncodeBinary(np)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeBinary(np); err != nil {
			b.Fatal(err)
		}
	}
}
