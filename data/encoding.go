package data

import (
	"encoding/binary"
	"fmt"
	"math"
)

// samplesMagic starts the binary form of a Samples, with a version byte.
var samplesMagic = [4]byte{'S', 'M', 'P', 1}

// MarshalBinary encodes the samples compactly (little endian): shape,
// storage kind, values, labels and class names. It lets sample sets cross
// processes, through encoding/gob too.
func (s *Samples) MarshalBinary() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	size := 4 + 4*8 + 1 + len(s.Pixels) + 4*len(s.Floats) + 4*len(s.Labels) + 8
	for _, c := range s.Classes {
		size += 8 + len(c)
	}
	b := make([]byte, 0, size)
	b = append(b, samplesMagic[:]...)
	for _, v := range []int{s.N, s.C, s.H, s.W} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	if s.IsFloat() {
		b = append(b, 1)
		for _, v := range s.Floats {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	} else {
		b = append(b, 0)
		b = append(b, s.Pixels...)
	}
	for _, v := range s.Labels {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s.Classes)))
	for _, c := range s.Classes {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote. Sizes are checked
// against the input's length before anything is allocated.
func (s *Samples) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	if magic := d.next(4); magic == nil || [4]byte(magic) != samplesMagic {
		return d.fail("bad magic: not an encoded Samples (version 1)")
	}
	var dims [4]uint64
	for i := range dims {
		dims[i] = d.u64()
	}
	kind := d.next(1)
	if kind == nil {
		return d.fail("truncated header")
	}
	const limit = 1 << 40
	n, c, h, w := dims[0], dims[1], dims[2], dims[3]
	if n > limit || c < 1 || h < 1 || w < 1 || c > limit || h > limit/c || w > limit/(c*h) || (n > 0 && c*h*w > limit/n) {
		return d.fail(fmt.Sprintf("bad shape %d×%d×%d×%d", n, c, h, w))
	}
	total := n * c * h * w
	out := Samples{N: int(n), C: int(c), H: int(h), W: int(w)}
	switch kind[0] {
	case 0:
		if uint64(d.left()) < total {
			return d.fail("truncated pixels")
		}
		out.Pixels = append([]uint8{}, d.next(int(total))...)
	case 1:
		if uint64(d.left())/4 < total {
			return d.fail("truncated values")
		}
		out.Floats = make([]float32, total)
		for i := range out.Floats {
			out.Floats[i] = math.Float32frombits(d.u32())
		}
	default:
		return d.fail(fmt.Sprintf("unknown storage kind %d", kind[0]))
	}
	if uint64(d.left())/4 < n {
		return d.fail("truncated labels")
	}
	out.Labels = make([]float32, n)
	for i := range out.Labels {
		out.Labels[i] = math.Float32frombits(d.u32())
	}
	nc := d.u64()
	if d.err || nc > uint64(d.left())/8 {
		return d.fail("bad class count")
	}
	if nc > 0 {
		out.Classes = make([]string, nc)
	}
	for i := range out.Classes {
		l := d.u64()
		if d.err || l > uint64(d.left()) {
			return d.fail("truncated class name")
		}
		out.Classes[i] = string(d.next(int(l)))
	}
	if d.left() != 0 {
		return d.fail(fmt.Sprintf("%d extra bytes", d.left()))
	}
	*s = out
	return nil
}

// decoder reads little-endian values, remembering a short read.
type decoder struct {
	b   []byte
	off int
	err bool
}

func (d *decoder) left() int { return len(d.b) - d.off }

func (d *decoder) next(n int) []byte {
	if d.err || n < 0 || n > d.left() {
		d.err = true
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) u64() uint64 {
	if p := d.next(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if p := d.next(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) fail(msg string) error {
	return atByte("", int64(d.off), fmt.Errorf("%w: encoded samples: %s", ErrFormat, msg))
}
