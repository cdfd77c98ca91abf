package data

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// CIFAR record layout: label byte(s), then 3 planes (R, G, B) of 32×32.
const (
	cifarPixels = 3 * 32 * 32
	cifarSide   = 32
)

// CIFAR10Classes names the CIFAR-10 labels 0 to 9.
var CIFAR10Classes = []string{"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"}

// CIFAR100Label selects which label of a CIFAR-100 record to keep.
type CIFAR100Label int

const (
	// Fine is the 100-class label (the record's second byte).
	Fine CIFAR100Label = iota
	// Coarse is the 20-superclass label (the record's first byte).
	Coarse
)

// cifarLayout describes one binary variant.
type cifarLayout struct {
	labelBytes int // 1 for CIFAR-10, 2 for CIFAR-100
	labelAt    int // which label byte to keep
	classes    int // labels must be below this
}

func (l cifarLayout) recordLen() int { return l.labelBytes + cifarPixels }

// ReadCIFAR10 reads CIFAR-10 binary batch files (data_batch_1.bin ...,
// test_batch.bin) into one set of 3×32×32 byte samples, R, G and B planes
// in that order, with labels 0 to 9. Files may be gzipped.
func ReadCIFAR10(paths ...string) (*Samples, error) {
	return readCIFARFiles(paths, cifarLayout{labelBytes: 1, labelAt: 0, classes: 10}, CIFAR10Classes)
}

// ReadCIFAR100 reads CIFAR-100 binary files (train.bin, test.bin), whose
// records carry a coarse and a fine label; which says which to keep.
func ReadCIFAR100(which CIFAR100Label, paths ...string) (*Samples, error) {
	l, err := cifar100Layout(which)
	if err != nil {
		return nil, err
	}
	return readCIFARFiles(paths, l, nil)
}

func cifar100Layout(which CIFAR100Label) (cifarLayout, error) {
	switch which {
	case Fine:
		return cifarLayout{labelBytes: 2, labelAt: 1, classes: 100}, nil
	case Coarse:
		return cifarLayout{labelBytes: 2, labelAt: 0, classes: 20}, nil
	}
	return cifarLayout{}, fmt.Errorf("data: unknown CIFAR-100 label %d (known: Fine, Coarse)", int(which))
}

// LoadCIFAR10 reads the CIFAR-10 training set (data_batch_1.bin to
// data_batch_5.bin, 50,000 samples) or test set (test_batch.bin, 10,000)
// from dir or from its cifar-10-batches-bin subfolder.
func LoadCIFAR10(dir string, train bool) (*Samples, error) {
	names := []string{"test_batch.bin"}
	if train {
		names = []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"}
	}
	for _, d := range []string{dir, filepath.Join(dir, "cifar-10-batches-bin")} {
		if _, err := os.Stat(filepath.Join(d, names[0])); err != nil {
			continue
		}
		paths := make([]string, len(names))
		for i, n := range names {
			paths[i] = filepath.Join(d, n)
		}
		return ReadCIFAR10(paths...)
	}
	return nil, fmt.Errorf("data: no CIFAR-10 binary batches in %s or its cifar-10-batches-bin folder (want %s)", dir, strings.Join(names, ", "))
}

// DecodeCIFAR10 reads CIFAR-10 records from r; name appears in errors.
func DecodeCIFAR10(r io.Reader, name string) (*Samples, error) {
	return decodeCIFARStream(r, name, cifarLayout{labelBytes: 1, labelAt: 0, classes: 10}, CIFAR10Classes)
}

// DecodeCIFAR100 reads CIFAR-100 records from r; name appears in errors.
func DecodeCIFAR100(r io.Reader, name string, which CIFAR100Label) (*Samples, error) {
	l, err := cifar100Layout(which)
	if err != nil {
		return nil, err
	}
	return decodeCIFARStream(r, name, l, nil)
}

func decodeCIFARStream(r io.Reader, name string, l cifarLayout, classes []string) (*Samples, error) {
	src, err := wrapReader(r, name, -1)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	s := &Samples{C: 3, H: cifarSide, W: cifarSide, Pixels: []uint8{}, Labels: []float32{}, Classes: classes}
	if err := decodeCIFAR(src, name, -1, l, s); err != nil {
		return nil, err
	}
	return s, nil
}

func readCIFARFiles(paths []string, l cifarLayout, classes []string) (*Samples, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("data: no CIFAR files given")
	}
	s := &Samples{C: 3, H: cifarSide, W: cifarSide, Pixels: []uint8{}, Labels: []float32{}, Classes: classes}
	for _, p := range paths {
		src, err := openFile(p)
		if err != nil {
			return nil, err
		}
		err = decodeCIFAR(src, p, src.size, l, s)
		src.Close()
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// decodeCIFAR appends the records of one stream to s. With a known size
// the file must hold a whole number of records, checked before reading.
func decodeCIFAR(r io.Reader, name string, size int64, l cifarLayout, s *Samples) error {
	rl := int64(l.recordLen())
	if size >= 0 {
		if size%rl != 0 {
			full := size / rl
			return atRecord(name, int(full), full*rl, fmt.Errorf("%w: file of %d bytes is not a whole number of %d-byte records (%d whole records, then %d bytes)",
				ErrTruncated, size, rl, full, size%rl))
		}
		n := int(size / rl)
		s.Pixels = growBytes(s.Pixels, n*cifarPixels)
		s.Labels = growFloats(s.Labels, n)
	}
	rec := make([]byte, rl)
	for i := 0; ; i++ {
		m, err := io.ReadFull(r, rec)
		if err != nil {
			if errors.Is(err, io.EOF) && m == 0 {
				return nil
			}
			return atRecord(name, i, int64(i)*rl, fmt.Errorf("%w: record needs %d bytes, found %d: %v", ErrTruncated, rl, m, eofIsTruncation(err)))
		}
		label := int(rec[l.labelAt])
		if label >= l.classes {
			return atRecord(name, i, int64(i)*rl+int64(l.labelAt), fmt.Errorf("%w: label %d out of range 0..%d", ErrFormat, label, l.classes-1))
		}
		s.Pixels = append(s.Pixels, rec[l.labelBytes:]...)
		s.Labels = append(s.Labels, float32(label))
		s.N++
	}
}

// growBytes returns b with room for n more bytes.
func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	out := make([]byte, len(b), len(b)+n)
	copy(out, b)
	return out
}

// growFloats returns f with room for n more values.
func growFloats(f []float32, n int) []float32 {
	if cap(f)-len(f) >= n {
		return f
	}
	out := make([]float32, len(f), len(f)+n)
	copy(out, f)
	return out
}

func init() {
	mustRegister(Format{
		Name: "cifar10",
		Doc:  "a folder of CIFAR-10 binary batches",
		Detect: func(p string) bool {
			return globAny(p, "data_batch_*.bin", "test_batch.bin", "cifar-10-batches-bin/*_batch*.bin")
		},
		Read: samplesOf(func(p string, o ReadOptions) (*Samples, error) {
			train, _ := o.train()
			return LoadCIFAR10(p, train)
		}),
		Splits: true,
	})
}
