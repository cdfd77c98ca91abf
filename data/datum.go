package data

import (
	"bytes"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Datum is Caffe's Datum record, the value type of the LMDB and LevelDB
// databases Caffe's tools write: one C×H×W sample as raw bytes (Data),
// as floats (FloatData), or as an encoded JPEG/PNG image (Encoded, Data
// holding the file's bytes), with its label.
type Datum struct {
	Channels, Height, Width int
	Data                    []byte
	Label                   int32
	FloatData               []float32
	Encoded                 bool
}

// maxDatumDim bounds each of a Datum's dimensions.
const maxDatumDim = 1 << 20

// ParseDatum decodes a serialized Datum (caffe.proto: channels 1, height 2,
// width 3, data 4, label 5, float_data 6, encoded 7) and checks that its
// data holds channels×height×width values (unless encoded). data is
// shared, not copied.
func ParseDatum(b []byte) (Datum, error) {
	var d Datum
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return d, fmt.Errorf("%w: Datum: %v", ErrFormat, protowire.ParseError(n))
		}
		b = b[n:]
		switch {
		case num >= 1 && num <= 3 && typ == protowire.VarintType, num == 5 && typ == protowire.VarintType, num == 7 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return d, fmt.Errorf("%w: Datum field %d: %v", ErrFormat, num, protowire.ParseError(n))
			}
			b = b[n:]
			switch num {
			case 1, 2, 3:
				x := int32(v)
				if x < 0 || x > maxDatumDim {
					return d, fmt.Errorf("%w: Datum field %d = %d", ErrFormat, num, x)
				}
				*[]*int{&d.Channels, &d.Height, &d.Width}[num-1] = int(x)
			case 5:
				d.Label = int32(v)
			case 7:
				d.Encoded = v != 0
			}
		case num == 4 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return d, fmt.Errorf("%w: Datum data: %v", ErrFormat, protowire.ParseError(n))
			}
			d.Data, b = v, b[n:]
		case num == 6 && typ == protowire.Fixed32Type:
			v, n := protowire.ConsumeFixed32(b)
			if n < 0 {
				return d, fmt.Errorf("%w: Datum float_data: %v", ErrFormat, protowire.ParseError(n))
			}
			d.FloatData, b = append(d.FloatData, math.Float32frombits(v)), b[n:]
		case num == 6 && typ == protowire.BytesType: // packed
			v, n := protowire.ConsumeBytes(b)
			if n < 0 || len(v)%4 != 0 {
				return d, fmt.Errorf("%w: Datum float_data: packed field of %d bytes", ErrFormat, len(v))
			}
			for i := 0; i < len(v); i += 4 {
				f, _ := protowire.ConsumeFixed32(v[i:])
				d.FloatData = append(d.FloatData, math.Float32frombits(f))
			}
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return d, fmt.Errorf("%w: Datum field %d: %v", ErrFormat, num, protowire.ParseError(n))
			}
			b = b[n:]
		}
	}
	if d.Encoded {
		if len(d.Data) == 0 {
			return d, fmt.Errorf("%w: an encoded Datum without data", ErrFormat)
		}
		return d, nil
	}
	size := d.Channels * d.Height * d.Width
	if size == 0 {
		return d, fmt.Errorf("%w: Datum shape %d×%d×%d", ErrFormat, d.Channels, d.Height, d.Width)
	}
	switch {
	case len(d.Data) == size:
		d.FloatData = nil
	case len(d.Data) == 0 && len(d.FloatData) == size:
		d.Data = nil
	default:
		return d, fmt.Errorf("%w: Datum %d×%d×%d holds %d bytes and %d floats, want %d of one", ErrFormat, d.Channels, d.Height, d.Width, len(d.Data), len(d.FloatData), size)
	}
	return d, nil
}

// datumCollector gathers the Datum records of a database, in key order,
// into samples of one shape.
type datumCollector struct {
	file    string       // for errors
	o       ImageOptions // for encoded records
	records uint64       // records the database declares, reserved for (0: unknown)
	limit   uint64       // bytes the database occupies, bounding what is reserved
	s       *Samples
}

func (c *datumCollector) errAt(key []byte, err error) error {
	return &Error{File: c.file, Offset: -1, Record: c.recordIndex(), Err: fmt.Errorf("key %q: %w", key, err)}
}

func (c *datumCollector) recordIndex() int {
	if c.s == nil {
		return 0
	}
	return c.s.N
}

// add appends the record value stored under key.
func (c *datumCollector) add(key, value []byte) error {
	d, err := ParseDatum(value)
	if err != nil {
		return c.errAt(key, err)
	}
	if d.Encoded {
		pix, h, w, err := DecodeImage(bytes.NewReader(d.Data), fmt.Sprintf("%s: key %q", c.file, key), c.o)
		if err != nil {
			return err
		}
		d.Data, d.Channels, d.Height, d.Width = pix, c.o.channels(), h, w
	}
	s := c.s
	if s == nil {
		floats := d.Data == nil
		if s, err = NewSamples(0, d.Channels, d.Height, d.Width, floats); err != nil {
			return c.errAt(key, err)
		}
		// Room for the declared records, but never more than the
		// database's bytes could hold.
		size := uint64(s.C * s.H * s.W)
		capacity := int(min(c.records, c.limit/size+1))
		if floats {
			s.Floats = make([]float32, 0, capacity*int(size))
		} else {
			s.Pixels = make([]uint8, 0, capacity*int(size))
		}
		s.Labels = make([]float32, 0, capacity)
		c.s = s
	}
	if d.Channels != s.C || d.Height != s.H || d.Width != s.W {
		return c.errAt(key, fmt.Errorf("%w: the record is %d×%d×%d, the first record %d×%d×%d", ErrFormat, d.Channels, d.Height, d.Width, s.C, s.H, s.W))
	}
	switch {
	case s.Pixels != nil && d.Data != nil:
		s.Pixels = append(s.Pixels, d.Data...)
	case s.Floats != nil && d.Data == nil:
		s.Floats = append(s.Floats, d.FloatData...)
	default:
		return c.errAt(key, fmt.Errorf("%w: the record holds %s, the first record the other kind", ErrFormat, map[bool]string{true: "bytes", false: "floats"}[d.Data != nil]))
	}
	s.Labels = append(s.Labels, float32(d.Label))
	s.N++
	return nil
}

// result returns the samples gathered.
func (c *datumCollector) result() (*Samples, error) {
	if c.s == nil {
		return nil, &Error{File: c.file, Offset: -1, Record: -1, Err: fmt.Errorf("%w: the database holds no records", ErrFormat)}
	}
	return c.s, nil
}
