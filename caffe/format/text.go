package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// maxTextDepth bounds the nesting of messages in a text file, as C++
// protobuf's recursion limit does.
const maxTextDepth = 100

// ParseText parses src, a message in protobuf's text format as Caffe reads
// it, into m (which it resets first). name labels positions in errors,
// usually the file name.
//
// It accepts what Caffe's C++ parser accepts: '#' comments; fields
// separated by white space, ';' or ','; message fields with or without a
// colon, in { } or < >; repeated fields given repeatedly or as a list
// [a, b]; enums by name or number; strings in single or double quotes with
// C escapes, adjacent strings joined; decimal, octal and hex integers;
// floats such as 1., .5, 1e-4 and 2.5f, integers where floats are expected,
// and inf/nan. A non-repeated field given twice, an unknown field and a
// missing required field are errors, each naming file:line:col; an unknown
// field's error lists the message's valid fields.
//
// ParseText does not upgrade legacy definitions; ParseNetParameter and
// ParseSolverParameter do.
func ParseText(name string, src []byte, m proto.Message) error {
	return parseText(name, src, m, nil)
}

// fieldHook is told about every field value the parser sets: the message
// holding it, the field, the value (the child message for message fields),
// and where the field's name and its value start.
type fieldHook func(m protoreflect.Message, fd protoreflect.FieldDescriptor, v protoreflect.Value, name, value Position)

func parseText(name string, src []byte, m proto.Message, hook fieldHook) error {
	proto.Reset(m)
	p := &textParser{sc: newTextScanner(name, src), hook: hook, root: m.ProtoReflect().Descriptor()}
	if err := p.advance(); err != nil {
		return err
	}
	if err := p.parseFields(m.ProtoReflect(), "", Position{}); err != nil {
		return err
	}
	if err := proto.CheckInitialized(m); err != nil {
		msg := strings.TrimLeft(strings.TrimPrefix(err.Error(), "proto:"), " \u00a0")
		return &ParseError{Pos: Position{File: name}, Msg: "incomplete message: " + msg}
	}
	return nil
}

type textParser struct {
	sc    *textScanner
	tok   textToken
	depth int
	hook  fieldHook
	// root is the message the file holds; open the blocks being read
	// inside it, outermost first.
	root protoreflect.MessageDescriptor
	open []openBlock
}

// openBlock is a message block being read: its type and where it opened.
type openBlock struct {
	md  protoreflect.MessageDescriptor
	pos Position
}

func (p *textParser) advance() error {
	t, err := p.sc.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *textParser) errorf(pos Position, format string, args ...any) error {
	return p.sc.errorf(pos, format, args...)
}

func (p *textParser) lookingAt(sym string) bool {
	return p.tok.kind == tokSymbol && p.tok.text == sym
}

func (p *textParser) tryConsume(sym string) (bool, error) {
	if !p.lookingAt(sym) {
		return false, nil
	}
	return true, p.advance()
}

// parseFields reads fields into m until the closing delimiter end (or the
// end of the file when end is "").
func (p *textParser) parseFields(m protoreflect.Message, end string, open Position) error {
	for {
		switch {
		case p.lookingAt("}") || p.lookingAt(">"):
			if end == "" {
				return p.errorf(p.tok.pos, "unexpected %q: no message is open here", p.tok.text)
			}
			if p.tok.text != end {
				return p.errorf(p.tok.pos, "expected %q to close the %s opened at %d:%d, found %q",
					end, m.Descriptor().FullName(), open.Line, open.Col, p.tok.text)
			}
			return p.advance()
		case p.tok.kind == tokEOF:
			if end == "" {
				return nil
			}
			return p.errorf(p.tok.pos, "unexpected end of file: missing %q to close the %s opened at %d:%d",
				end, m.Descriptor().FullName(), open.Line, open.Col)
		}
		if err := p.parseField(m); err != nil {
			return err
		}
	}
}

func (p *textParser) parseField(m protoreflect.Message) error {
	md := m.Descriptor()
	namePos := p.tok.pos
	if p.tok.kind != tokIdent {
		if p.lookingAt("[") {
			return p.errorf(namePos, "extension and Any fields ([...]) are not supported: %s has none", md.FullName())
		}
		return p.errorf(namePos, "expected a field name of %s, found %s", md.FullName(), p.tok.describe())
	}
	name := p.tok.text
	fd := md.Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		return p.unknownField(md, name, namePos)
	}
	if err := p.advance(); err != nil {
		return err
	}
	if !fd.IsList() && m.Has(fd) {
		return p.errorf(namePos, "field %q of %s is given more than once; it is not repeated", name, md.FullName())
	}
	isMsg := fd.Message() != nil
	colon, err := p.tryConsume(":")
	if err != nil {
		return err
	}
	if !colon && !isMsg {
		return p.errorf(p.tok.pos, "expected \":\" after field %q, found %s", name, p.tok.describe())
	}
	if fd.IsList() && p.lookingAt("[") {
		if err := p.advance(); err != nil {
			return err
		}
		if ok, err := p.tryConsume("]"); err != nil || ok {
			return p.endField(err)
		}
		for {
			if err := p.parseValue(m, fd, namePos); err != nil {
				return err
			}
			if ok, err := p.tryConsume("]"); err != nil || ok {
				return p.endField(err)
			}
			if !p.lookingAt(",") {
				return p.errorf(p.tok.pos, "expected \",\" or \"]\" in the list of field %q, found %s", name, p.tok.describe())
			}
			if err := p.advance(); err != nil {
				return err
			}
		}
	}
	if err := p.parseValue(m, fd, namePos); err != nil {
		return err
	}
	return p.endField(nil)
}

// endField skips the optional separator after a field.
func (p *textParser) endField(err error) error {
	if err != nil {
		return err
	}
	if p.lookingAt(";") || p.lookingAt(",") {
		return p.advance()
	}
	return nil
}

func (p *textParser) unknownField(md protoreflect.MessageDescriptor, name string, pos Position) error {
	fields := md.Fields()
	names := make([]string, fields.Len())
	for i := range names {
		names[i] = string(fields.Get(i).Name())
	}
	hint := DidYouMean(name, names)
	if md.FullName() == "caffe.V1LayerParameter" && md.ParentFile() != nil {
		if lp := md.ParentFile().Messages().ByName("LayerParameter"); lp != nil && lp.Fields().ByName(protoreflect.Name(name)) != nil {
			hint += "; this is a legacy \"layers\" block: write \"layer\" for the current format"
		}
	}
	// A field of an enclosing message: most likely a block was not closed.
	for i := len(p.open) - 2; i >= -1 && hint == ""; i-- {
		outer := p.root
		if i >= 0 {
			outer = p.open[i].md
		}
		if outer != nil && outer.Fields().ByName(protoreflect.Name(name)) != nil {
			b := p.open[len(p.open)-1]
			hint = fmt.Sprintf(" (is a \"}\" missing? %q is a field of %s, and the %s opened at %d:%d is still open)",
				name, outer.FullName(), md.FullName(), b.pos.Line, b.pos.Col)
		}
	}
	return p.errorf(pos, "unknown field %q in %s%s; valid fields: %s", name, md.FullName(), hint, SortedList(names))
}

func (p *textParser) parseValue(m protoreflect.Message, fd protoreflect.FieldDescriptor, namePos Position) error {
	valuePos := p.tok.pos
	if fd.Message() != nil {
		var end string
		switch {
		case p.lookingAt("{"):
			end = "}"
		case p.lookingAt("<"):
			end = ">"
		default:
			return p.errorf(valuePos, "expected \"{\" to begin the %s of field %q, found %s",
				fd.Message().FullName(), fd.Name(), p.tok.describe())
		}
		if p.depth >= maxTextDepth {
			return p.errorf(valuePos, "messages nested more than %d deep", maxTextDepth)
		}
		if err := p.advance(); err != nil {
			return err
		}
		p.depth++
		var child protoreflect.Message
		if fd.IsList() {
			list := m.Mutable(fd).List()
			child = list.NewElement().Message()
			list.Append(protoreflect.ValueOfMessage(child))
		} else {
			child = m.Mutable(fd).Message()
		}
		p.open = append(p.open, openBlock{md: child.Descriptor(), pos: valuePos})
		if err := p.parseFields(child, end, valuePos); err != nil {
			return err
		}
		p.open = p.open[:len(p.open)-1]
		p.depth--
		if p.hook != nil {
			p.hook(m, fd, protoreflect.ValueOfMessage(child), namePos, valuePos)
		}
		return nil
	}
	v, err := p.parseScalar(fd)
	if err != nil {
		return err
	}
	if fd.IsList() {
		m.Mutable(fd).List().Append(v)
	} else {
		m.Set(fd, v)
	}
	if p.hook != nil {
		p.hook(m, fd, v, namePos, valuePos)
	}
	return nil
}

func (p *textParser) parseScalar(fd protoreflect.FieldDescriptor) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		v, err := p.signedInt(fd, math.MaxInt32)
		return protoreflect.ValueOfInt32(int32(v)), err
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		v, err := p.signedInt(fd, math.MaxInt64)
		return protoreflect.ValueOfInt64(v), err
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		v, err := p.unsignedInt(fd, math.MaxUint32)
		return protoreflect.ValueOfUint32(uint32(v)), err
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		v, err := p.unsignedInt(fd, math.MaxUint64)
		return protoreflect.ValueOfUint64(v), err
	case protoreflect.FloatKind:
		v, err := p.double(fd)
		return protoreflect.ValueOfFloat32(toFloat32(v)), err
	case protoreflect.DoubleKind:
		v, err := p.double(fd)
		return protoreflect.ValueOfFloat64(v), err
	case protoreflect.BoolKind:
		v, err := p.boolean(fd)
		return protoreflect.ValueOfBool(v), err
	case protoreflect.StringKind:
		v, err := p.str(fd)
		return protoreflect.ValueOfString(string(v)), err
	case protoreflect.BytesKind:
		v, err := p.str(fd)
		return protoreflect.ValueOfBytes(v), err
	case protoreflect.EnumKind:
		v, err := p.enum(fd)
		return protoreflect.ValueOfEnum(v), err
	}
	return protoreflect.Value{}, p.errorf(p.tok.pos, "field %q has kind %v, which text files cannot set", fd.Name(), fd.Kind())
}

// toFloat32 converts like C++ protobuf: out-of-range values become
// infinities.
func toFloat32(v float64) float32 {
	switch {
	case v > math.MaxFloat32:
		return float32(math.Inf(1))
	case v < -math.MaxFloat32:
		return float32(math.Inf(-1))
	}
	return float32(v)
}

// parseInteger parses a decimal, octal (leading 0) or hex (0x) integer
// token no larger than max.
func parseInteger(text string, max uint64) (uint64, bool) {
	base := 10
	digits := text
	switch {
	case len(text) > 1 && (text[1] == 'x' || text[1] == 'X'):
		base, digits = 16, text[2:]
	case len(text) > 1 && text[0] == '0':
		base, digits = 8, text[1:]
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil || v > max {
		return 0, false
	}
	return v, true
}

func kindName(fd protoreflect.FieldDescriptor) string {
	if fd.Enum() != nil {
		return string(fd.Enum().FullName())
	}
	return fd.Kind().String()
}

func (p *textParser) unsignedInt(fd protoreflect.FieldDescriptor, max uint64) (uint64, error) {
	return p.integer(fd, max, "a non-negative integer")
}

func (p *textParser) integer(fd protoreflect.FieldDescriptor, max uint64, what string) (uint64, error) {
	if p.tok.kind != tokInt {
		return 0, p.errorf(p.tok.pos, "expected %s for field %q (%s), found %s", what, fd.Name(), kindName(fd), p.tok.describe())
	}
	v, ok := parseInteger(p.tok.text, max)
	if !ok {
		return 0, p.errorf(p.tok.pos, "integer %s out of range for field %q (%s)", p.tok.text, fd.Name(), kindName(fd))
	}
	return v, p.advance()
}

func (p *textParser) signedInt(fd protoreflect.FieldDescriptor, max uint64) (int64, error) {
	neg, err := p.tryConsume("-")
	if err != nil {
		return 0, err
	}
	if neg {
		max++ // two's complement has one more negative value
	}
	u, err := p.integer(fd, max, "an integer")
	if err != nil {
		return 0, err
	}
	if neg {
		return -int64(u), nil // -(1<<63) wraps to itself, as wanted
	}
	return int64(u), nil
}

func (p *textParser) double(fd protoreflect.FieldDescriptor) (float64, error) {
	neg, err := p.tryConsume("-")
	if err != nil {
		return 0, err
	}
	var v float64
	switch t := p.tok; t.kind {
	case tokInt:
		if len(t.text) > 1 && t.text[0] == '0' {
			return 0, p.errorf(t.pos, "expected a decimal number for field %q (%s), found %s", fd.Name(), kindName(fd), t.describe())
		}
		u, err := strconv.ParseUint(t.text, 10, 64)
		if err == nil {
			v = float64(u)
		} else {
			v, _ = strconv.ParseFloat(t.text, 64)
		}
	case tokFloat:
		s := strings.TrimRight(t.text, "fF")
		v, err = strconv.ParseFloat(s, 64)
		if err != nil && !isRangeErr(err) {
			return 0, p.errorf(t.pos, "invalid number %s for field %q", t.describe(), fd.Name())
		}
	case tokIdent:
		switch strings.ToLower(t.text) {
		case "inf", "infinity":
			v = math.Inf(1)
		case "nan":
			v = math.NaN()
		default:
			return 0, p.errorf(t.pos, "expected a number for field %q (%s), found %s", fd.Name(), kindName(fd), t.describe())
		}
	default:
		return 0, p.errorf(t.pos, "expected a number for field %q (%s), found %s", fd.Name(), kindName(fd), t.describe())
	}
	if neg {
		v = -v
	}
	return v, p.advance()
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (p *textParser) boolean(fd protoreflect.FieldDescriptor) (bool, error) {
	t := p.tok
	switch t.kind {
	case tokInt:
		v, ok := parseInteger(t.text, 1)
		if !ok {
			return false, p.errorf(t.pos, "invalid value %s for boolean field %q; use true or false", t.text, fd.Name())
		}
		return v == 1, p.advance()
	case tokIdent:
		switch t.text {
		case "true", "True", "t":
			return true, p.advance()
		case "false", "False", "f":
			return false, p.advance()
		}
	}
	return false, p.errorf(t.pos, "invalid value %s for boolean field %q; use true or false", t.describe(), fd.Name())
}

func (p *textParser) str(fd protoreflect.FieldDescriptor) ([]byte, error) {
	if p.tok.kind != tokString {
		hint := ""
		if fd.FullName() == "caffe.LayerParameter.type" && p.tok.kind == tokIdent {
			if v, ok := caffepb.V1LayerParameter_LayerType_value[p.tok.text]; ok {
				hint = fmt.Sprintf("; %s is a legacy \"layers\" type, write type: %q", p.tok.text, v1LayerTypes[caffepb.V1LayerParameter_LayerType(v)])
			}
		}
		return nil, p.errorf(p.tok.pos, "expected a quoted string for field %q, found %s%s", fd.Name(), p.tok.describe(), hint)
	}
	var b []byte
	for p.tok.kind == tokString {
		b = unquoteText(b, p.tok.text)
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func (p *textParser) enum(fd protoreflect.FieldDescriptor) (protoreflect.EnumNumber, error) {
	ed := fd.Enum()
	t := p.tok
	var ev protoreflect.EnumValueDescriptor
	switch {
	case t.kind == tokIdent:
		ev = ed.Values().ByName(protoreflect.Name(t.text))
		if err := p.advance(); err != nil {
			return 0, err
		}
	case t.kind == tokInt || p.lookingAt("-"):
		n, err := p.signedInt(fd, math.MaxInt32)
		if err != nil {
			return 0, err
		}
		ev = ed.Values().ByNumber(protoreflect.EnumNumber(n))
		t.text = strconv.FormatInt(n, 10)
	default:
		hint := ""
		if t.kind == tokString {
			hint = "; write enum values without quotes"
		}
		return 0, p.errorf(t.pos, "expected a name or number for enum field %q (%s), found %s%s", fd.Name(), ed.FullName(), t.describe(), hint)
	}
	if ev == nil {
		names := make([]string, ed.Values().Len())
		for i := range names {
			v := ed.Values().Get(i)
			names[i] = string(v.Name()) + "=" + strconv.Itoa(int(v.Number()))
		}
		plain := make([]string, len(names))
		for i := range plain {
			plain[i] = string(ed.Values().Get(i).Name())
		}
		return 0, p.errorf(t.pos, "unknown value %s for enum field %q (%s)%s; valid values: %s",
			t.text, fd.Name(), ed.FullName(), DidYouMean(t.text, plain), strings.Join(names, ", "))
	}
	return ev.Number(), nil
}
