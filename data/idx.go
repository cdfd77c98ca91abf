package data

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// IDXType is the element type code of an IDX file (its third byte).
type IDXType byte

// The IDX element types.
const (
	IDXUint8   IDXType = 0x08
	IDXInt8    IDXType = 0x09
	IDXInt16   IDXType = 0x0B
	IDXInt32   IDXType = 0x0C
	IDXFloat32 IDXType = 0x0D
	IDXFloat64 IDXType = 0x0E
)

// maxIDXBytes bounds the payload an IDX header may declare (1 TiB); larger
// headers are rejected before the file size is even looked at.
const maxIDXBytes = 1 << 40

func (t IDXType) String() string {
	switch t {
	case IDXUint8:
		return "uint8"
	case IDXInt8:
		return "int8"
	case IDXInt16:
		return "int16"
	case IDXInt32:
		return "int32"
	case IDXFloat32:
		return "float32"
	case IDXFloat64:
		return "float64"
	}
	return fmt.Sprintf("IDXType(0x%02X)", byte(t))
}

// Size is the number of bytes one element takes, or 0 for an unknown type.
func (t IDXType) Size() int {
	switch t {
	case IDXUint8, IDXInt8:
		return 1
	case IDXInt16:
		return 2
	case IDXInt32, IDXFloat32:
		return 4
	case IDXFloat64:
		return 8
	}
	return 0
}

// IDX is the content of an IDX file: an n-dimensional array of one element
// type, stored row-major. Exactly one of the value slices is set, the one
// that matches Type, and its length is the product of Dims.
type IDX struct {
	Type IDXType
	Dims []int

	Uint8   []uint8
	Int8    []int8
	Int16   []int16
	Int32   []int32
	Float32 []float32
	Float64 []float64
}

// Len is the number of elements: the product of Dims.
func (x *IDX) Len() int {
	n := 1
	for _, d := range x.Dims {
		n *= d
	}
	return n
}

// valuesLen is the length of the value slice that matches x.Type.
func (x *IDX) valuesLen() (int, error) {
	switch x.Type {
	case IDXUint8:
		return len(x.Uint8), nil
	case IDXInt8:
		return len(x.Int8), nil
	case IDXInt16:
		return len(x.Int16), nil
	case IDXInt32:
		return len(x.Int32), nil
	case IDXFloat32:
		return len(x.Float32), nil
	case IDXFloat64:
		return len(x.Float64), nil
	}
	return 0, fmt.Errorf("data: unknown IDX type 0x%02X (known: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64)", byte(x.Type))
}

// Float32s returns the values converted to float32. A float32 file returns
// its own slice; other types return a new one.
func (x *IDX) Float32s() []float32 {
	if x.Type == IDXFloat32 {
		return x.Float32
	}
	out := make([]float32, x.Len())
	switch x.Type {
	case IDXUint8:
		for i, v := range x.Uint8 {
			out[i] = float32(v)
		}
	case IDXInt8:
		for i, v := range x.Int8 {
			out[i] = float32(v)
		}
	case IDXInt16:
		for i, v := range x.Int16 {
			out[i] = float32(v)
		}
	case IDXInt32:
		for i, v := range x.Int32 {
			out[i] = float32(v)
		}
	case IDXFloat64:
		for i, v := range x.Float64 {
			out[i] = float32(v)
		}
	}
	return out
}

// Samples views the array as samples: the first dimension counts samples
// and the others give the per-sample shape (D becomes 1×1×D, H×W becomes
// 1×H×W, C×H×W stays). A uint8 array shares its storage; other types are
// converted to float32. Labels are all zero.
func (x *IDX) Samples() (*Samples, error) {
	if len(x.Dims) < 1 || len(x.Dims) > 4 {
		return nil, fmt.Errorf("data: IDX array has %d dimensions; samples need 1 to 4 (N, N×D, N×H×W or N×C×H×W)", len(x.Dims))
	}
	c, h, w := 1, 1, 1
	switch len(x.Dims) {
	case 2:
		w = x.Dims[1]
	case 3:
		h, w = x.Dims[1], x.Dims[2]
	case 4:
		c, h, w = x.Dims[1], x.Dims[2], x.Dims[3]
	}
	s := &Samples{N: x.Dims[0], C: c, H: h, W: w, Labels: make([]float32, x.Dims[0])}
	if x.Type == IDXUint8 {
		s.Pixels = x.Uint8
	} else {
		s.Floats = x.Float32s()
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// ReadIDXFile reads an IDX file, gzip-compressed or not (detected by the
// magic bytes, not the name).
func ReadIDXFile(path string) (*IDX, error) {
	src, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return decodeIDX(src, path, src.size, src.plausibleSize)
}

// ReadIDX reads an IDX array from r, gzip-compressed or not. name appears
// in error messages.
func ReadIDX(r io.Reader, name string) (*IDX, error) {
	src, err := wrapReader(r, name, -1)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return decodeIDX(src, name, -1, nil)
}

// decodeIDX decodes an IDX stream. size is the stream's length when known,
// else -1; with a known size the declared payload is checked against it
// before anything is allocated. plausible, if not nil, says whether a
// stream of unknown size plausibly holds a given number of bytes, so
// that its payload can be allocated at once.
func decodeIDX(r io.Reader, name string, size int64, plausible func(int64) bool) (*IDX, error) {
	var head [4]byte
	if n, err := io.ReadFull(r, head[:]); err != nil {
		return nil, atByte(name, int64(n), fmt.Errorf("%w: IDX header needs 4 bytes: %v", ErrTruncated, err))
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, atByte(name, 0, fmt.Errorf("%w: IDX magic must start with two zero bytes, got 0x%02X 0x%02X", ErrFormat, head[0], head[1]))
	}
	x := &IDX{Type: IDXType(head[2])}
	esize := x.Type.Size()
	if esize == 0 {
		return nil, atByte(name, 2, fmt.Errorf("%w: unknown IDX type code 0x%02X (known: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64)", ErrFormat, head[2]))
	}
	ndims := int(head[3])
	if ndims == 0 {
		return nil, atByte(name, 3, fmt.Errorf("%w: IDX file declares 0 dimensions", ErrFormat))
	}
	dimBytes := make([]byte, 4*ndims)
	if n, err := io.ReadFull(r, dimBytes); err != nil {
		return nil, atByte(name, 4+int64(n), fmt.Errorf("%w: %d dimension sizes need %d bytes: %v", ErrTruncated, ndims, 4*ndims, err))
	}
	x.Dims = make([]int, ndims)
	total := int64(1)
	for i := range x.Dims {
		d := int64(binary.BigEndian.Uint32(dimBytes[4*i:]))
		x.Dims[i] = int(d)
		if d != 0 && total > maxIDXBytes/d {
			total = maxIDXBytes + 1
		} else {
			total *= d
		}
	}
	headerLen := int64(4 + 4*ndims)
	if total > maxIDXBytes/int64(esize) {
		return nil, atByte(name, 4, fmt.Errorf("%w: IDX dimensions %v declare more than %d bytes", ErrTooLarge, x.Dims, int64(maxIDXBytes)))
	}
	nbytes := total * int64(esize)
	if size >= 0 {
		have := size - headerLen
		if have < nbytes {
			return nil, atByte(name, headerLen, fmt.Errorf("%w: IDX dimensions %v of %s declare %d bytes of data, but the file has %d after the %d-byte header",
				ErrTruncated, x.Dims, x.Type, nbytes, have, headerLen))
		}
		if have > nbytes {
			return nil, atByte(name, headerLen+nbytes, fmt.Errorf("%w: %d extra bytes after the %d declared by IDX dimensions %v of %s",
				ErrFormat, have-nbytes, nbytes, x.Dims, x.Type))
		}
	}
	exact := size >= 0 || (plausible != nil && plausible(headerLen+nbytes))
	buf, err := readBytes(r, nbytes, exact)
	if err != nil {
		return nil, atByte(name, headerLen+int64(len(buf)), fmt.Errorf("%w: IDX dimensions %v of %s declare %d bytes of data, read %d: %v",
			ErrTruncated, x.Dims, x.Type, nbytes, len(buf), err))
	}
	if size < 0 {
		// A stream of unknown length must end here.
		var one [1]byte
		if n, _ := io.ReadFull(r, one[:]); n > 0 {
			return nil, atByte(name, headerLen+nbytes, fmt.Errorf("%w: extra bytes after the %d declared by IDX dimensions %v", ErrFormat, nbytes, x.Dims))
		}
	}
	n := int(total)
	switch x.Type {
	case IDXUint8:
		x.Uint8 = buf
	case IDXInt8:
		x.Int8 = make([]int8, n)
		for i, b := range buf {
			x.Int8[i] = int8(b)
		}
	case IDXInt16:
		x.Int16 = make([]int16, n)
		for i := range x.Int16 {
			x.Int16[i] = int16(binary.BigEndian.Uint16(buf[2*i:]))
		}
	case IDXInt32:
		x.Int32 = make([]int32, n)
		for i := range x.Int32 {
			x.Int32[i] = int32(binary.BigEndian.Uint32(buf[4*i:]))
		}
	case IDXFloat32:
		x.Float32 = make([]float32, n)
		for i := range x.Float32 {
			x.Float32[i] = math.Float32frombits(binary.BigEndian.Uint32(buf[4*i:]))
		}
	case IDXFloat64:
		x.Float64 = make([]float64, n)
		for i := range x.Float64 {
			x.Float64[i] = math.Float64frombits(binary.BigEndian.Uint64(buf[8*i:]))
		}
	}
	return x, nil
}

// readChunk is the first allocation for a stream of unknown length.
const readChunk = 1 << 20

// readBytes reads n bytes. When exact is false the length of r is unknown,
// so the buffer grows as bytes arrive: a header that declares gigabytes
// over a short stream costs at most about twice the bytes present.
// On error it returns what it read.
func readBytes(r io.Reader, n int64, exact bool) ([]byte, error) {
	if exact {
		buf := make([]byte, n)
		m, err := io.ReadFull(r, buf)
		if err != nil {
			return buf[:m], eofIsTruncation(err)
		}
		return buf, nil
	}
	buf := make([]byte, 0, min(n, readChunk))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(n, 2*int64(cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) && int64(len(buf)) == n {
				break
			}
			return buf, eofIsTruncation(err)
		}
	}
	return buf, nil
}

// eofIsTruncation reports an early end of data as io.ErrUnexpectedEOF.
func eofIsTruncation(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// WriteTo writes x in IDX format (uncompressed).
func (x *IDX) WriteTo(w io.Writer) (int64, error) {
	if len(x.Dims) == 0 || len(x.Dims) > 255 {
		return 0, fmt.Errorf("data: IDX needs 1 to 255 dimensions, have %d", len(x.Dims))
	}
	n, err := x.valuesLen()
	if err != nil {
		return 0, err
	}
	for _, d := range x.Dims {
		if d < 0 || int64(d) > math.MaxUint32 {
			return 0, fmt.Errorf("data: IDX dimension %d out of range 0..%d", d, uint32(math.MaxUint32))
		}
	}
	if n != x.Len() {
		return 0, fmt.Errorf("data: IDX dimensions %v hold %d elements but the %s slice has %d", x.Dims, x.Len(), x.Type, n)
	}
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	cw.Write([]byte{0, 0, byte(x.Type), byte(len(x.Dims))})
	var b [8]byte
	for _, d := range x.Dims {
		binary.BigEndian.PutUint32(b[:], uint32(d))
		cw.Write(b[:4])
	}
	switch x.Type {
	case IDXUint8:
		cw.Write(x.Uint8)
	case IDXInt8:
		for _, v := range x.Int8 {
			cw.Write([]byte{byte(v)})
		}
	case IDXInt16:
		for _, v := range x.Int16 {
			binary.BigEndian.PutUint16(b[:], uint16(v))
			cw.Write(b[:2])
		}
	case IDXInt32:
		for _, v := range x.Int32 {
			binary.BigEndian.PutUint32(b[:], uint32(v))
			cw.Write(b[:4])
		}
	case IDXFloat32:
		for _, v := range x.Float32 {
			binary.BigEndian.PutUint32(b[:], math.Float32bits(v))
			cw.Write(b[:4])
		}
	case IDXFloat64:
		for _, v := range x.Float64 {
			binary.BigEndian.PutUint64(b[:], math.Float64bits(v))
			cw.Write(b[:8])
		}
	}
	if cw.err != nil {
		return cw.n, fmt.Errorf("data: writing IDX: %w", cw.err)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("data: writing IDX: %w", err)
	}
	return cw.n, nil
}

// WriteIDXFile writes x to path, gzip-compressed when path ends in ".gz".
// The file is written under a temporary name and renamed into place.
func WriteIDXFile(path string, x *IDX) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		if strings.HasSuffix(path, ".gz") {
			zw := gzip.NewWriter(w)
			if _, err := x.WriteTo(zw); err != nil {
				return err
			}
			return zw.Close()
		}
		_, err := x.WriteTo(w)
		return err
	})
}

// writeFileAtomic writes path through a temporary file in the same folder.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if err := fsio.WriteFileFunc(path, write); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}

// countWriter counts bytes and keeps the first error, so a sequence of
// writes needs one check.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
