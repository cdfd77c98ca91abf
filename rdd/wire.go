package rdd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Shuffled blocks cross processes and go to disk in a compact form of our
// own when their elements are plain values (numbers, strings, bools,
// byte and number slices, []any and Pairs of those): a tag byte per
// value. Blocks holding anything else (samples, structs, registered
// types) go through encoding/gob, as task results do.

const (
	wireTagged byte = 1 // the tagged form below
	wireGob    byte = 2 // encodeValue(block)
)

// Value tags of the tagged form.
const (
	tagNil byte = iota
	tagInt
	tagInt64
	tagInt32
	tagFloat64
	tagFloat32
	tagString
	tagTrue
	tagFalse
	tagPair
	tagList // []any
	tagBytes
	tagFloat32s
	tagInts
	tagStrings
	tagUint8
	tagUint64
	tagFloat64s
)

// errNotPlain stops the tagged encoder at a value it cannot write.
var errNotPlain = errors.New("not a plain value")

// encodeBlock encodes a block for another process or a spill file.
func encodeBlock(b block) ([]byte, error) {
	if b.Samples == nil {
		buf := []byte{wireTagged}
		buf = binary.AppendUvarint(buf, uint64(len(b.Elems)))
		var err error
		for _, x := range b.Elems {
			if buf, err = appendValue(buf, x, 0); err != nil {
				break
			}
		}
		if err == nil {
			return buf, nil
		}
	}
	enc, err := encodeValue(b)
	if err != nil {
		return nil, err
	}
	return append([]byte{wireGob}, enc...), nil
}

func appendValue(buf []byte, x any, depth int) ([]byte, error) {
	if depth > 100 {
		return buf, errNotPlain
	}
	switch x := x.(type) {
	case nil:
		return append(buf, tagNil), nil
	case int:
		return binary.AppendVarint(append(buf, tagInt), int64(x)), nil
	case int64:
		return binary.AppendVarint(append(buf, tagInt64), x), nil
	case int32:
		return binary.AppendVarint(append(buf, tagInt32), int64(x)), nil
	case uint8:
		return append(buf, tagUint8, x), nil
	case uint64:
		return binary.AppendUvarint(append(buf, tagUint64), x), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(buf, tagFloat64), math.Float64bits(x)), nil
	case float32:
		return binary.LittleEndian.AppendUint32(append(buf, tagFloat32), math.Float32bits(x)), nil
	case string:
		buf = binary.AppendUvarint(append(buf, tagString), uint64(len(x)))
		return append(buf, x...), nil
	case bool:
		if x {
			return append(buf, tagTrue), nil
		}
		return append(buf, tagFalse), nil
	case Pair:
		buf, err := appendValue(append(buf, tagPair), x.Key, depth+1)
		if err != nil {
			return buf, err
		}
		return appendValue(buf, x.Value, depth+1)
	case []any:
		if x == nil {
			return buf, errNotPlain // nil and empty differ; gob keeps neither apart either, so leave it to gob
		}
		buf = binary.AppendUvarint(append(buf, tagList), uint64(len(x)))
		var err error
		for _, y := range x {
			if buf, err = appendValue(buf, y, depth+1); err != nil {
				return buf, err
			}
		}
		return buf, nil
	case []byte:
		if x == nil {
			return buf, errNotPlain
		}
		buf = binary.AppendUvarint(append(buf, tagBytes), uint64(len(x)))
		return append(buf, x...), nil
	case []float32:
		if x == nil {
			return buf, errNotPlain
		}
		buf = binary.AppendUvarint(append(buf, tagFloat32s), uint64(len(x)))
		for _, f := range x {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
		return buf, nil
	case []float64:
		if x == nil {
			return buf, errNotPlain
		}
		buf = binary.AppendUvarint(append(buf, tagFloat64s), uint64(len(x)))
		for _, f := range x {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
		}
		return buf, nil
	case []int:
		if x == nil {
			return buf, errNotPlain
		}
		buf = binary.AppendUvarint(append(buf, tagInts), uint64(len(x)))
		for _, v := range x {
			buf = binary.AppendVarint(buf, int64(v))
		}
		return buf, nil
	case []string:
		if x == nil {
			return buf, errNotPlain
		}
		buf = binary.AppendUvarint(append(buf, tagStrings), uint64(len(x)))
		for _, s := range x {
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
		return buf, nil
	}
	return buf, errNotPlain
}

// decodeBlock decodes what encodeBlock wrote; corrupt input is an error,
// never a panic or a huge allocation.
func decodeBlock(b []byte) (block, error) {
	if len(b) == 0 {
		return block{}, errors.New("rdd: empty shuffle block")
	}
	switch b[0] {
	case wireGob:
		v, err := decodeValue(b[1:])
		if err != nil {
			return block{}, fmt.Errorf("rdd: decoding a shuffle block: %w", err)
		}
		blk, ok := v.(block)
		if !ok {
			return block{}, fmt.Errorf("rdd: decoding a shuffle block: got %T", v)
		}
		return blk, nil
	case wireTagged:
		d := &wireReader{b: b[1:]}
		n := d.count(1)
		elems := make([]any, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			elems = append(elems, d.value(0))
		}
		if d.err == nil && len(d.b) != 0 {
			d.err = fmt.Errorf("%d bytes after the last element", len(d.b))
		}
		if d.err != nil {
			return block{}, fmt.Errorf("rdd: decoding a shuffle block: %w", d.err)
		}
		return block{Elems: elems}, nil
	}
	return block{}, fmt.Errorf("rdd: decoding a shuffle block: unknown format %d", b[0])
}

// wireReader reads the tagged form, keeping the first error.
type wireReader struct {
	b   []byte
	err error
}

func (d *wireReader) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
	d.b = nil
}

func (d *wireReader) uvarint() uint64 {
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail("truncated or bad varint")
		return 0
	}
	d.b = d.b[k:]
	return v
}

func (d *wireReader) varint() int64 {
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.fail("truncated or bad varint")
		return 0
	}
	d.b = d.b[k:]
	return v
}

// count reads a length whose items take at least min bytes each, and
// checks it against what is left before anything is allocated.
func (d *wireReader) count(min int) int {
	n := d.uvarint()
	if d.err != nil {
		return 0
	}
	if n > uint64(len(d.b))/uint64(min) {
		d.fail("a length of %d with %d bytes left", n, len(d.b))
		return 0
	}
	return int(n)
}

func (d *wireReader) take(n int) []byte {
	if n > len(d.b) {
		d.fail("truncated: %d bytes wanted, %d left", n, len(d.b))
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *wireReader) value(depth int) any {
	if depth > 100 {
		d.fail("values nested too deeply")
		return nil
	}
	tag := d.take(1)
	if d.err != nil {
		return nil
	}
	switch tag[0] {
	case tagNil:
		return nil
	case tagInt:
		return int(d.varint())
	case tagInt64:
		return d.varint()
	case tagInt32:
		return int32(d.varint())
	case tagUint8:
		if b := d.take(1); b != nil {
			return b[0]
		}
		return nil
	case tagUint64:
		return d.uvarint()
	case tagFloat64:
		if b := d.take(8); b != nil {
			return math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
		return nil
	case tagFloat32:
		if b := d.take(4); b != nil {
			return math.Float32frombits(binary.LittleEndian.Uint32(b))
		}
		return nil
	case tagString:
		return string(d.take(d.count(1)))
	case tagTrue:
		return true
	case tagFalse:
		return false
	case tagPair:
		k := d.value(depth + 1)
		return Pair{Key: k, Value: d.value(depth + 1)}
	case tagList:
		n := d.count(1)
		out := make([]any, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			out = append(out, d.value(depth+1))
		}
		return out
	case tagBytes:
		return append([]byte{}, d.take(d.count(1))...)
	case tagFloat32s:
		n := d.count(4)
		raw := d.take(4 * n)
		out := make([]float32, 0, n)
		for i := 0; i+4 <= len(raw); i += 4 {
			out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])))
		}
		return out
	case tagFloat64s:
		n := d.count(8)
		raw := d.take(8 * n)
		out := make([]float64, 0, n)
		for i := 0; i+8 <= len(raw); i += 8 {
			out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(raw[i:])))
		}
		return out
	case tagInts:
		n := d.count(1)
		out := make([]int, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			out = append(out, int(d.varint()))
		}
		return out
	case tagStrings:
		n := d.count(1)
		out := make([]string, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			out = append(out, string(d.take(d.count(1))))
		}
		return out
	}
	d.fail("unknown value tag %d", tag[0])
	return nil
}
