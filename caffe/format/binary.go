package format

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sparknet-go/sparknet/caffe/caffepb"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// maxBinaryDepth bounds message nesting in binary files, as C++
// protobuf's default recursion limit does.
const maxBinaryDepth = 100

// DecodeError reports a malformed binary protobuf file: where the bad
// bytes start and which field they belong to.
type DecodeError struct {
	File   string
	Offset int    // byte offset of the bad field
	Field  string // path of the field, e.g. layer[3].blobs[0].data
	Msg    string
}

func (e *DecodeError) Error() string {
	where := "byte " + strconv.Itoa(e.Offset)
	if e.Field != "" {
		where += " (" + e.Field + ")"
	}
	return fmt.Sprintf("caffe: %s: corrupt or truncated file at %s: %s", e.File, where, e.Msg)
}

// DecodeBinary parses data, a binary protobuf encoding of m's type such as
// a .caffemodel, into m (which it resets first). name labels errors.
//
// Before anything is allocated every tag, varint and declared length is
// checked against the bytes present, so a truncated or corrupted file gives
// a DecodeError naming the offset and the field instead of a huge
// allocation. Repeated scalars are accepted packed and unpacked. Fields
// the schema does not know are kept and written back by EncodeBinary.
// DecodeBinary does not upgrade legacy nets; ParseCaffemodel does.
func DecodeBinary(name string, data []byte, m proto.Message) error {
	proto.Reset(m)
	if err := checkWire(name, data, 0, m.ProtoReflect().Descriptor(), "", 0); err != nil {
		return err
	}
	if err := (proto.UnmarshalOptions{RecursionLimit: maxBinaryDepth}).Unmarshal(data, m); err != nil {
		return fmt.Errorf("caffe: %s: %w", name, err)
	}
	return nil
}

// EncodeBinary serialises m as Caffe does: known fields in field-number
// order, packed where the schema says so. A current-format file read with
// DecodeBinary encodes back to identical bytes.
func EncodeBinary(m proto.Message) ([]byte, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("caffe: encoding %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return b, nil
}

// checkWire walks data as an encoding of md without allocating, checking
// every tag, varint and length. base is data's offset in the file, path
// the field path of the message.
func checkWire(file string, data []byte, base int, md protoreflect.MessageDescriptor, path string, depth int) error {
	if depth > maxBinaryDepth {
		return &DecodeError{File: file, Offset: base, Field: path, Msg: fmt.Sprintf("messages nested more than %d deep", maxBinaryDepth)}
	}
	counts := map[protowire.Number]int{}
	for off := 0; off < len(data); {
		b := data[off:]
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return &DecodeError{File: file, Offset: base + off, Field: path, Msg: "bad field tag: " + protowire.ParseError(n).Error()}
		}
		var fd protoreflect.FieldDescriptor
		if md != nil {
			fd = md.Fields().ByNumber(num)
		}
		fieldPath := path
		if fd != nil {
			fieldPath = joinFieldPath(path, string(fd.Name()))
			if fd.IsList() {
				fieldPath += "[" + strconv.Itoa(counts[num]) + "]"
				counts[num]++
			}
		} else {
			fieldPath = joinFieldPath(path, "field "+strconv.Itoa(int(num)))
		}
		fail := func(msg string) error {
			return &DecodeError{File: file, Offset: base + off, Field: fieldPath, Msg: msg}
		}
		body := b[n:]
		switch typ {
		case protowire.VarintType:
			_, m := protowire.ConsumeVarint(body)
			if m < 0 {
				return fail("bad varint: " + protowire.ParseError(m).Error())
			}
			n += m
		case protowire.Fixed32Type:
			if len(body) < 4 {
				return fail(fmt.Sprintf("a 4-byte value needs 4 bytes, %d remain", len(body)))
			}
			n += 4
		case protowire.Fixed64Type:
			if len(body) < 8 {
				return fail(fmt.Sprintf("an 8-byte value needs 8 bytes, %d remain", len(body)))
			}
			n += 8
		case protowire.BytesType:
			size, m := protowire.ConsumeVarint(body)
			if m < 0 {
				return fail("bad length: " + protowire.ParseError(m).Error())
			}
			if size > uint64(len(body)-m) {
				return fail(fmt.Sprintf("declares %d bytes, only %d remain", size, len(body)-m))
			}
			v := body[m : m+int(size)]
			if fd != nil {
				if err := checkLengthDelimited(file, v, base+off+n+m, fd, fieldPath, depth); err != nil {
					return err
				}
			}
			n += m + int(size)
		case protowire.StartGroupType:
			m := protowire.ConsumeFieldValue(num, typ, body)
			if m < 0 {
				return fail("bad group: " + protowire.ParseError(m).Error())
			}
			n += m
		default:
			return fail(fmt.Sprintf("unexpected wire type %d", typ))
		}
		off += n
	}
	return nil
}

// checkLengthDelimited checks the body of a length-delimited field: a
// nested message, or packed scalars.
func checkLengthDelimited(file string, v []byte, base int, fd protoreflect.FieldDescriptor, path string, depth int) error {
	if fd.Message() != nil {
		return checkWire(file, v, base, fd.Message(), path, depth+1)
	}
	if !fd.IsList() {
		return nil
	}
	fail := func(msg string) error { return &DecodeError{File: file, Offset: base, Field: path, Msg: msg} }
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		if len(v)%4 != 0 {
			return fail(fmt.Sprintf("packed 4-byte values take %d bytes, not a multiple of 4", len(v)))
		}
	case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		if len(v)%8 != 0 {
			return fail(fmt.Sprintf("packed 8-byte values take %d bytes, not a multiple of 8", len(v)))
		}
	case protoreflect.StringKind, protoreflect.BytesKind:
	default:
		for len(v) > 0 {
			_, m := protowire.ConsumeVarint(v)
			if m < 0 {
				return fail("bad packed varint: " + protowire.ParseError(m).Error())
			}
			v = v[m:]
		}
	}
	return nil
}

func joinFieldPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// ParseCaffemodel decodes a binary NetParameter (a .caffemodel) and
// upgrades it to the current format, as Caffe does before copying weights.
func ParseCaffemodel(name string, data []byte) (*caffepb.NetParameter, error) {
	np := &caffepb.NetParameter{}
	if err := DecodeBinary(name, data, np); err != nil {
		return nil, err
	}
	if err := UpgradeNetParameter(np); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, name)
	}
	return np, nil
}

// ReadCaffemodel reads a binary NetParameter with weights (.caffemodel,
// also the V1 and V0 formats) and upgrades it to the current format.
func ReadCaffemodel(path string) (*caffepb.NetParameter, error) {
	data, err := readBinaryFile(path)
	if err != nil {
		return nil, err
	}
	return ParseCaffemodel(path, data)
}

// WriteCaffemodel writes np as a binary .caffemodel. It writes a temporary
// file in the same folder and renames it into place, so a crash never
// leaves a torn file.
func WriteCaffemodel(path string, np *caffepb.NetParameter) error {
	return writeBinary(path, np)
}

// ReadSolverState reads a binary .solverstate.
func ReadSolverState(path string) (*caffepb.SolverState, error) {
	data, err := readBinaryFile(path)
	if err != nil {
		return nil, err
	}
	st := &caffepb.SolverState{}
	if err := DecodeBinary(path, data, st); err != nil {
		return nil, err
	}
	return st, nil
}

// WriteSolverState writes st as a binary .solverstate, atomically like
// WriteCaffemodel.
func WriteSolverState(path string, st *caffepb.SolverState) error {
	return writeBinary(path, st)
}

// ReadBlobProto reads a binary BlobProto such as a mean.binaryproto.
func ReadBlobProto(path string) (*caffepb.BlobProto, error) {
	data, err := readBinaryFile(path)
	if err != nil {
		return nil, err
	}
	b := &caffepb.BlobProto{}
	if err := DecodeBinary(path, data, b); err != nil {
		return nil, err
	}
	return b, nil
}

// WriteBlobProto writes b as a binary .binaryproto, atomically like
// WriteCaffemodel.
func WriteBlobProto(path string, b *caffepb.BlobProto) error {
	return writeBinary(path, b)
}

func readBinaryFile(path string) ([]byte, error) {
	data, err := fsio.ReadFile(path, fsio.BinaryLimit)
	if err != nil {
		return nil, fmt.Errorf("caffe: %w", err)
	}
	return data, nil
}

func writeBinary(path string, m proto.Message) error {
	data, err := EncodeBinary(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return writeFileAtomic(path, data)
}

// writeFileAtomic writes data to a temporary file next to path, flushes it
// to disk and renames it over path.
func writeFileAtomic(path string, data []byte) error {
	if err := fsio.WriteFile(path, data); err != nil {
		return fmt.Errorf("caffe: %w", err)
	}
	return nil
}
