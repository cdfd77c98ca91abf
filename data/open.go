package data

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// gzipMagic is the first two bytes of every gzip stream.
var gzipMagic = [2]byte{0x1f, 0x8b}

// source is an opened data file: its decompressed bytes and, when known,
// how many there are.
type source struct {
	io.Reader
	size  int64 // decompressed size, or -1 when the stream is compressed
	close func() error

	// For a gzip file: the trailer's ISIZE (the decompressed size modulo
	// 2^32, as the writer claims it) and the compressed size, or -1.
	gzipISize, gzipSize int64
}

// maxGzipRatio bounds how much deflate can expand data (about 1032:1).
const maxGzipRatio = 1100

// plausibleSize reports whether a gzip file plausibly decompresses to n
// bytes: its trailer agrees and the ratio is possible. Readers then
// allocate n bytes at once instead of growing a buffer; a lying file
// costs at most maxGzipRatio times its size.
func (s *source) plausibleSize(n int64) bool {
	return s.gzipSize > 0 && n >= 0 && n%(1<<32) == s.gzipISize && n <= maxGzipRatio*s.gzipSize
}

func (s *source) Close() error { return s.close() }

// openFile opens path for reading, decompressing it when its first bytes
// are the gzip magic number. The size of an uncompressed file is known
// up front, so readers can check declared sizes before allocating.
func openFile(path string) (*source, error) {
	f, fi, err := fsio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	s, err := wrapReader(f, path, fi.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	if s.size < 0 && fi.Size() >= 18 {
		var tail [4]byte
		if _, err := f.ReadAt(tail[:], fi.Size()-4); err == nil {
			s.gzipISize = int64(binary.LittleEndian.Uint32(tail[:]))
			s.gzipSize = fi.Size()
		}
	}
	gz := s.close
	s.close = func() error {
		err := gz()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return s, nil
}

// wrapReader detects gzip by magic bytes. size is the length of r, or -1.
func wrapReader(r io.Reader, name string, size int64) (*source, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == gzipMagic[0] && magic[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, atByte(name, 0, fmt.Errorf("%w: gzip header: %v", ErrFormat, err))
		}
		return &source{Reader: zr, size: -1, close: zr.Close, gzipISize: -1, gzipSize: -1}, nil
	}
	return &source{Reader: br, size: size, close: func() error { return nil }, gzipISize: -1, gzipSize: -1}, nil
}
