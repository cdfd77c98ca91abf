package ndarray

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// NumPy's .npy files hold one array: a magic string, a header (a Python
// dict literal giving the dtype, the order and the shape) and the raw
// values. An .npz file is a zip archive of .npy files, one per named
// array, as numpy.savez and numpy.savez_compressed write them.
//
// Load reads the dtypes float32, float64, float16, uint8, uint16,
// uint32, uint64, int8, int16, int32, int64 and bool, little- or
// big-endian, in C or Fortran order; values become float32 (integers
// beyond 2^24 and float64 values lose precision, as astype(np.float32)
// would). Save writes float32 in C order; SaveAs writes the other
// dtypes.

// ErrNpy reports a .npy or .npz file that does not follow the format;
// test for it with errors.Is.
var ErrNpy = errors.New("bad NumPy file")

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// dtypes maps a dtype's kind and size to its name.
var dtypeNames = map[string]string{
	"f2": "float16", "f4": "float32", "f8": "float64",
	"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
	"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
	"b1": "bool",
}

// Dtypes lists the dtypes SaveAs writes.
var Dtypes = []string{"float32", "float64", "uint8", "int32", "int64"}

// Load reads a .npy file into an array of float32 values.
func Load(path string) (*Array, error) {
	f, fi, err := fsio.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("ndarray: %w", err)
	}
	defer f.Close()
	return ReadNpy(bufio.NewReaderSize(f, 64<<10), path, fi.Size())
}

// ReadNpy reads one array in .npy form from r, which holds size bytes
// (-1 when unknown); name appears in errors. Sizes the header declares
// are checked against size before anything is allocated.
func ReadNpy(r io.Reader, name string, size int64) (*Array, error) {
	bad := func(off int64, format string, args ...any) error {
		return fmt.Errorf("ndarray: %s: byte %d: %w: %s", name, off, ErrNpy, fmt.Sprintf(format, args...))
	}
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, bad(int64(n), "not a .npy file (too short: %d bytes)", n)
	}
	if string(pre[:6]) != npyMagic {
		return nil, bad(0, "not a .npy file (it does not start with \\x93NUMPY)")
	}
	major := pre[6]
	var hlen, off int64
	switch major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, bad(8, "truncated before the header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, bad(8, "truncated before the header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint32(l[:])), 12
	default:
		return nil, bad(6, "format version %d.%d (known: 1.0, 2.0, 3.0)", major, pre[7])
	}
	if hlen > 1<<20 || size >= 0 && off+hlen > size {
		return nil, bad(off-2, "a header of %d bytes in a file of %d", hlen, size)
	}
	header := make([]byte, hlen)
	if n, err := io.ReadFull(r, header); err != nil {
		return nil, bad(off+int64(n), "truncated in the header")
	}
	h, err := parseNpyHeader(string(header))
	if err != nil {
		return nil, bad(off, "the header %q: %v", strings.TrimSpace(string(header)), err)
	}
	off += hlen
	itemSize, _ := strconv.Atoi(h.descr[2:])
	n := 1
	for _, d := range h.shape {
		if d < 0 {
			return nil, bad(off, "negative dimension in shape %v", h.shape)
		}
		if d != 0 && n > MaxSize/d {
			return nil, bad(off, "shape %v is too large: more than %d elements", h.shape, MaxSize)
		}
		n *= d
	}
	want := int64(n) * int64(itemSize)
	if size >= 0 && size-off != want {
		if size-off < want {
			return nil, bad(off, "truncated: shape %v of %s needs %d bytes of data, the file has %d", h.shape, dtypeNames[h.descr[1:]], want, size-off)
		}
		return nil, bad(off+want, "%d bytes after the data of shape %v", size-off-want, h.shape)
	}
	raw := make([]byte, want)
	if k, err := io.ReadFull(r, raw); err != nil {
		return nil, bad(off+int64(k), "truncated: shape %v of %s needs %d bytes of data, the file has %d", h.shape, dtypeNames[h.descr[1:]], want, k)
	}
	if size < 0 {
		var one [1]byte
		if k, _ := r.Read(one[:]); k > 0 {
			return nil, bad(off+want, "bytes after the data of shape %v", h.shape)
		}
	}
	data := decodeNpyValues(raw, h.descr, n)
	shape := h.shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	if h.fortran && len(shape) > 1 {
		rev := make([]int, len(shape))
		for i, d := range shape {
			rev[len(shape)-1-i] = d
		}
		return FromSlice(data, rev...).T().Contiguous(), nil
	}
	return FromSlice(data, shape...), nil
}

// npyHeader is a parsed .npy header.
type npyHeader struct {
	descr   string // byte order and kind-size, such as "<f4"
	fortran bool
	shape   []int
}

// parseNpyHeader parses the Python dict literal of a header.
func parseNpyHeader(s string) (npyHeader, error) {
	var h npyHeader
	p := &pyParser{s: s}
	p.space()
	if !p.eat('{') {
		return h, errors.New("it is not a Python dict")
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		p.space()
		if !p.eat(':') {
			return h, fmt.Errorf("no ':' after %q", key)
		}
		p.space()
		switch key {
		case "descr":
			if h.descr, err = p.str(); err != nil {
				return h, fmt.Errorf("descr: %v (structured dtypes are not supported)", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return h, errors.New("fortran_order is neither True nor False")
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return h, fmt.Errorf("shape: %v", err)
			}
		default:
			return h, fmt.Errorf("unknown key %q", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return h, errors.New("no ',' or '}' after a value")
			}
			break
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("no %q", k)
		}
	}
	d := h.descr
	if len(d) < 3 || !strings.ContainsRune("<>|=", rune(d[0])) || dtypeNames[d[1:]] == "" {
		return h, fmt.Errorf("dtype %q is not supported (known: float16, float32, float64, uint8, uint16, uint32, uint64, int8, int16, int32, int64, bool)", d)
	}
	if d[0] == '=' {
		h.descr = "<" + d[1:] // native order, written on a little-endian machine
	}
	return h, nil
}

// pyParser reads the few Python literals of a header.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\n\r", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *pyParser) str() (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != '\'' && p.s[p.i] != '"' {
		return "", errors.New("a string was expected")
	}
	q := p.s[p.i]
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", errors.New("an unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+j]
	p.i += j + 2
	return v, nil
}

func (p *pyParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("a tuple was expected")
	}
	out := []int{}
	for {
		p.space()
		if p.eat(')') {
			return out, nil
		}
		j := p.i
		for j < len(p.s) && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '-') {
			j++
		}
		if j < len(p.s) && p.s[j] == 'L' { // Python 2 longs
			j++
		}
		v, err := strconv.Atoi(strings.TrimSuffix(p.s[p.i:j], "L"))
		if err != nil {
			return nil, fmt.Errorf("%q is not a dimension", p.s[p.i:j])
		}
		out = append(out, v)
		if len(out) > 64 {
			return nil, errors.New("more than 64 dimensions")
		}
		p.i = j
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, errors.New("no ',' or ')' in the tuple")
			}
			return out, nil
		}
	}
}

// decodeNpyValues converts n raw values of dtype descr to float32.
func decodeNpyValues(raw []byte, descr string, n int) []float32 {
	var bo binary.ByteOrder = binary.LittleEndian
	if descr[0] == '>' {
		bo = binary.BigEndian
	}
	out := make([]float32, n)
	switch descr[1:] {
	case "f4":
		for i := range out {
			out[i] = math.Float32frombits(bo.Uint32(raw[4*i:]))
		}
	case "f8":
		for i := range out {
			out[i] = float32(math.Float64frombits(bo.Uint64(raw[8*i:])))
		}
	case "f2":
		for i := range out {
			out[i] = halfToFloat(bo.Uint16(raw[2*i:]))
		}
	case "u1", "b1":
		for i := range out {
			out[i] = float32(raw[i])
		}
	case "i1":
		for i := range out {
			out[i] = float32(int8(raw[i]))
		}
	case "u2":
		for i := range out {
			out[i] = float32(bo.Uint16(raw[2*i:]))
		}
	case "i2":
		for i := range out {
			out[i] = float32(int16(bo.Uint16(raw[2*i:])))
		}
	case "u4":
		for i := range out {
			out[i] = float32(bo.Uint32(raw[4*i:]))
		}
	case "i4":
		for i := range out {
			out[i] = float32(int32(bo.Uint32(raw[4*i:])))
		}
	case "u8":
		for i := range out {
			out[i] = float32(bo.Uint64(raw[8*i:]))
		}
	case "i8":
		for i := range out {
			out[i] = float32(int64(bo.Uint64(raw[8*i:])))
		}
	}
	return out
}

// halfToFloat converts an IEEE 754 half-precision value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		return math.Float32frombits(sign) + float32(frac)/1024*float32(math.Pow(2, -14))*float32(1-2*int(sign>>31))
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// Save writes a as a .npy file of float32 values in C order, under a
// temporary name that is renamed when complete.
func Save(path string, a *Array) error { return SaveAs(path, a, "float32") }

// SaveAs writes a as a .npy file of the given dtype: "float32",
// "float64", "uint8", "int32" or "int64" (see Dtypes). Integer dtypes
// take only whole numbers in their range; anything else is an error
// naming the first value that does not fit.
func SaveAs(path string, a *Array, dtype string) error {
	return writeAtomic(path, func(w io.Writer) error { return WriteNpy(w, a, dtype) })
}

// WriteNpy writes a in .npy form, as dtype, to w.
func WriteNpy(w io.Writer, a *Array, dtype string) error {
	if a == nil {
		return errors.New("ndarray: WriteNpy of a nil array")
	}
	descr := map[string]string{"float32": "<f4", "float64": "<f8", "uint8": "|u1", "int32": "<i4", "int64": "<i8"}[dtype]
	if descr == "" {
		return fmt.Errorf("ndarray: dtype %q cannot be written (known: %s)", dtype, strings.Join(Dtypes, ", "))
	}
	data := a.Contiguous().Data()
	raw, err := encodeNpyValues(data, a.Shape(), descr)
	if err != nil {
		return err
	}
	shape := a.Shape()
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	tuple := "(" + strings.Join(dims, ", ")
	if len(dims) == 1 {
		tuple += ","
	}
	tuple += ")"
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
	// Pad so that the data starts at a multiple of 64 bytes.
	total := len(npyMagic) + 2 + 2 + len(header) + 1
	header += strings.Repeat(" ", (64-total%64)%64) + "\n"
	var pre []byte
	if len(header) <= math.MaxUint16 {
		pre = append([]byte(npyMagic), 1, 0)
		pre = binary.LittleEndian.AppendUint16(pre, uint16(len(header)))
	} else {
		pre = append([]byte(npyMagic), 2, 0)
		pre = binary.LittleEndian.AppendUint32(pre, uint32(len(header)))
	}
	for _, b := range [][]byte{pre, []byte(header), raw} {
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("ndarray: writing .npy: %w", err)
		}
	}
	return nil
}

// encodeNpyValues converts float32 values to dtype descr.
func encodeNpyValues(data []float32, shape []int, descr string) ([]byte, error) {
	check := func(i int, lo, hi float64) error {
		v := float64(data[i])
		if v != math.Trunc(v) || v < lo || v > hi {
			return fmt.Errorf("ndarray: value %v at index %v does not fit dtype %s, which holds whole numbers from %v to %v", data[i], unflatIndex(i, shape), dtypeNames[descr[1:]], lo, hi)
		}
		return nil
	}
	switch descr {
	case "<f4":
		out := make([]byte, 4*len(data))
		for i, v := range data {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		}
		return out, nil
	case "<f8":
		out := make([]byte, 8*len(data))
		for i, v := range data {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(float64(v)))
		}
		return out, nil
	case "|u1":
		out := make([]byte, len(data))
		for i, v := range data {
			if err := check(i, 0, 255); err != nil {
				return nil, err
			}
			out[i] = byte(v)
		}
		return out, nil
	case "<i4":
		out := make([]byte, 4*len(data))
		for i, v := range data {
			if err := check(i, math.MinInt32, math.MaxInt32); err != nil {
				return nil, err
			}
			binary.LittleEndian.PutUint32(out[4*i:], uint32(int32(v)))
		}
		return out, nil
	}
	out := make([]byte, 8*len(data))
	for i, v := range data {
		if err := check(i, math.MinInt64, math.MaxInt64); err != nil {
			return nil, err
		}
		binary.LittleEndian.PutUint64(out[8*i:], uint64(int64(v)))
	}
	return out, nil
}

// unflatIndex turns a C-order flat index into a multi-index.
func unflatIndex(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return idx
}

// maxNpzRatio bounds the decompressed size of an .npz entry per
// compressed byte (deflate cannot exceed about 1032).
const maxNpzRatio = 1100

// LoadNpz reads every array of an .npz archive (numpy.savez or
// numpy.savez_compressed), by name ("x" for the entry x.npy).
func LoadNpz(path string) (map[string]*Array, error) {
	file, fi, err := fsio.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("ndarray: %w", err)
	}
	defer file.Close()
	zr, err := zip.NewReader(file, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("ndarray: %s: %w: not a zip archive (.npz): %v", path, ErrNpy, err)
	}
	out := map[string]*Array{}
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		where := path + ": " + f.Name
		if f.UncompressedSize64 > maxNpzRatio*f.CompressedSize64+1<<16 || f.UncompressedSize64 > 8*MaxSize {
			return nil, fmt.Errorf("ndarray: %s: %w: the entry claims %d bytes from %d", where, ErrNpy, f.UncompressedSize64, f.CompressedSize64)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("ndarray: %s: %w: %v", where, ErrNpy, err)
		}
		a, err := ReadNpy(bufio.NewReader(rc), where, int64(f.UncompressedSize64))
		rc.Close()
		if err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("ndarray: %s: %w: two entries named %s", path, ErrNpy, f.Name)
		}
		out[name] = a
	}
	return out, nil
}

// SaveNpz writes arrays to an .npz archive that numpy.load reads, one
// float32 entry NAME.npy per array, in name order, deflate-compressed
// when compress is true (as numpy.savez_compressed), stored otherwise (as
// numpy.savez).
func SaveNpz(path string, arrays map[string]*Array, compress bool) error {
	names := make([]string, 0, len(arrays))
	for k := range arrays {
		if k == "" || strings.ContainsAny(k, "/\\") {
			return fmt.Errorf("ndarray: SaveNpz: array name %q must be non-empty without slashes", k)
		}
		names = append(names, k)
	}
	sort.Strings(names)
	return writeAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for _, name := range names {
			method := zip.Store
			if compress {
				method = zip.Deflate
			}
			ew, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: method})
			if err != nil {
				return fmt.Errorf("ndarray: SaveNpz: %w", err)
			}
			if err := WriteNpy(ew, arrays[name], "float32"); err != nil {
				return fmt.Errorf("ndarray: SaveNpz: array %q: %w", name, err)
			}
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("ndarray: SaveNpz: %w", err)
		}
		return nil
	})
}

// writeAtomic writes path through a temporary file in the same folder,
// renamed when complete.
func writeAtomic(path string, write func(io.Writer) error) error {
	err := fsio.WriteFileFunc(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil && !strings.Contains(err.Error(), "ndarray:") {
		err = fmt.Errorf("ndarray: %w", err)
	}
	return err
}

// DecodeNpy reads an array from the bytes of a .npy file; name appears
// in errors.
func DecodeNpy(b []byte, name string) (*Array, error) {
	return ReadNpy(bytes.NewReader(b), name, int64(len(b)))
}
