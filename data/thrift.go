package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A checking reader of Thrift's compact protocol, which Parquet footers
// and page headers are written in. It decodes into plain values (tstruct
// maps, lists, ints, bytes) while checking every declared length against
// the bytes that remain, so that the Parquet reader can look at a file's
// metadata, and reject impossible sizes, before any library code
// allocates what the file claims.

// tstruct is a decoded Thrift struct: field ID to value (int64, bool,
// float64, []byte, tstruct or []any).
type tstruct map[int16]any

// int returns field id as an int64, or def when it is absent or not an
// integer.
func (t tstruct) int(id int16, def int64) int64 {
	if v, ok := t[id].(int64); ok {
		return v
	}
	return def
}

// sub returns the struct in field id, or nil.
func (t tstruct) sub(id int16) tstruct {
	s, _ := t[id].(tstruct)
	return s
}

// list returns the list in field id, or nil.
func (t tstruct) list(id int16) []any {
	l, _ := t[id].([]any)
	return l
}

// bytes returns the binary field id, or nil.
func (t tstruct) bytes(id int16) []byte {
	b, _ := t[id].([]byte)
	return b
}

var errThrift = errors.New("corrupt Thrift metadata")

// thriftReader decodes the compact protocol from b.
type thriftReader struct {
	b   []byte
	off int
}

// maxThriftDepth bounds the nesting of structs and containers.
const maxThriftDepth = 32

func (r *thriftReader) fail(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errThrift, r.off, fmt.Sprintf(format, args...))
}

func (r *thriftReader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.fail("truncated")
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *thriftReader) uvarint() (uint64, error) {
	v, k := binary.Uvarint(r.b[r.off:])
	if k <= 0 {
		return 0, r.fail("bad varint")
	}
	r.off += k
	return v, nil
}

func (r *thriftReader) zigzag() (int64, error) {
	v, err := r.uvarint()
	return int64(v>>1) ^ -int64(v&1), err
}

// length reads a length and checks that that many items of at least min
// bytes each remain.
func (r *thriftReader) length(min int) (int, error) {
	n, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(r.b)-r.off)/uint64(min) {
		return 0, r.fail("a length of %d with %d bytes left", n, len(r.b)-r.off)
	}
	return int(n), nil
}

// readStruct decodes a struct up to its stop field.
func (r *thriftReader) readStruct(depth int) (tstruct, error) {
	if depth > maxThriftDepth {
		return nil, r.fail("nested too deeply")
	}
	t := tstruct{}
	var id int16
	for {
		h, err := r.byte()
		if err != nil {
			return nil, err
		}
		if h == 0 {
			return t, nil
		}
		typ := h & 0x0f
		if delta := h >> 4; delta != 0 {
			id += int16(delta)
		} else {
			v, err := r.zigzag()
			if err != nil {
				return nil, err
			}
			if v < math.MinInt16 || v > math.MaxInt16 {
				return nil, r.fail("field id %d", v)
			}
			id = int16(v)
		}
		var v any
		switch typ {
		case 1:
			v = true
		case 2:
			v = false
		default:
			if v, err = r.value(typ, depth); err != nil {
				return nil, err
			}
		}
		t[id] = v
	}
}

// value decodes one value of a compact type.
func (r *thriftReader) value(typ byte, depth int) (any, error) {
	switch typ {
	case 1, 2: // a bool inside a container: one byte
		c, err := r.byte()
		return c == 1, err
	case 3:
		c, err := r.byte()
		return int64(int8(c)), err
	case 4, 5, 6:
		return r.zigzag()
	case 7:
		if len(r.b)-r.off < 8 {
			return nil, r.fail("truncated double")
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.off:]))
		r.off += 8
		return v, nil
	case 8:
		n, err := r.length(1)
		if err != nil {
			return nil, err
		}
		v := r.b[r.off : r.off+n : r.off+n]
		r.off += n
		return v, nil
	case 9, 10:
		h, err := r.byte()
		if err != nil {
			return nil, err
		}
		et := h & 0x0f
		n := int(h >> 4)
		if n == 15 {
			if n, err = r.length(1); err != nil {
				return nil, err
			}
		} else if n > len(r.b)-r.off {
			return nil, r.fail("a list of %d with %d bytes left", n, len(r.b)-r.off)
		}
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			v, err := r.value(et, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case 11:
		n, err := r.length(2)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return []any{}, nil
		}
		kv, err := r.byte()
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, 2*n)
		for i := 0; i < n; i++ {
			k, err := r.value(kv>>4, depth+1)
			if err != nil {
				return nil, err
			}
			v, err := r.value(kv&0x0f, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, k, v)
		}
		return out, nil
	case 12:
		return r.readStruct(depth + 1)
	}
	return nil, r.fail("unknown type %d", typ)
}
