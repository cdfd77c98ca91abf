package format

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// FormatText renders m in protobuf's text format the way Caffe writes
// .prototxt files: one field per line in field-number order, nested
// messages as "name {" blocks indented by two spaces, enums by name, strings
// in double quotes with C escapes, and floats in the shortest of %.6g and
// %.9g that reads back exactly (%.15g and %.17g for doubles). Fields the
// schema does not know (kept from binary files) are left out.
//
// ParseText reads the result back into an equal message.
func FormatText(m proto.Message) string {
	var b strings.Builder
	writeMessage(&b, m.ProtoReflect(), 0)
	return b.String()
}

func writeMessage(b *strings.Builder, m protoreflect.Message, indent int) {
	fields := m.Descriptor().Fields()
	order := make([]protoreflect.FieldDescriptor, fields.Len())
	for i := range order {
		order[i] = fields.Get(i)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Number() < order[j].Number() })
	for _, fd := range order {
		if fd.IsList() {
			list := m.Get(fd).List()
			for i := 0; i < list.Len(); i++ {
				writeField(b, fd, list.Get(i), indent)
			}
		} else if m.Has(fd) {
			writeField(b, fd, m.Get(fd), indent)
		}
	}
}

func writeField(b *strings.Builder, fd protoreflect.FieldDescriptor, v protoreflect.Value, indent int) {
	pad := strings.Repeat("  ", indent)
	b.WriteString(pad)
	b.WriteString(string(fd.Name()))
	if fd.Message() != nil {
		b.WriteString(" {\n")
		writeMessage(b, v.Message(), indent+1)
		b.WriteString(pad)
		b.WriteString("}\n")
		return
	}
	b.WriteString(": ")
	b.WriteString(formatScalar(fd, v))
	b.WriteByte('\n')
}

func formatScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return `"` + cEscape([]byte(v.String())) + `"`
	case protoreflect.BytesKind:
		return `"` + cEscape(v.Bytes()) + `"`
	case protoreflect.FloatKind:
		return formatFloat32(float32(v.Float()))
	case protoreflect.DoubleKind:
		return formatFloat64(v.Float())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.BoolKind:
		return strconv.FormatBool(v.Bool())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.FormatInt(v.Int(), 10)
	}
	return strconv.FormatUint(v.Uint(), 10)
}

func formatSpecial(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "nan", true
	case math.IsInf(f, 1):
		return "inf", true
	case math.IsInf(f, -1):
		return "-inf", true
	}
	return "", false
}

// formatFloat32 prints like C's "%.6g", or "%.9g" when six digits do not
// read back as the same float.
func formatFloat32(f float32) string {
	if s, ok := formatSpecial(float64(f)); ok {
		return s
	}
	s := strconv.FormatFloat(float64(f), 'g', 6, 64)
	if back, err := strconv.ParseFloat(s, 32); err != nil || float32(back) != f {
		s = strconv.FormatFloat(float64(f), 'g', 9, 64)
	}
	return s
}

// formatFloat64 prints like "%.15g", or "%.17g" when needed to read back.
func formatFloat64(f float64) string {
	if s, ok := formatSpecial(f); ok {
		return s
	}
	s := strconv.FormatFloat(f, 'g', 15, 64)
	if back, err := strconv.ParseFloat(s, 64); err != nil || back != f {
		s = strconv.FormatFloat(f, 'g', 17, 64)
	}
	return s
}

// cEscape escapes like C++ protobuf's CEscape: \n \r \t \" \' \\ and octal
// for other bytes outside printable ASCII.
func cEscape(s []byte) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				b.WriteByte('\\')
				b.WriteByte('0' + c>>6)
				b.WriteByte('0' + c>>3&7)
				b.WriteByte('0' + c&7)
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}
