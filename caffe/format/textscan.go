package format

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The tokenizer of protobuf's text format, with the rules C++ protobuf
// applies when Caffe reads a .prototxt: '#' comments, numbers that must be
// followed by a space or a symbol, an optional f after floats, octal and
// hex integers, and single- or double-quoted strings with C escapes.

type tokenKind int

const (
	tokEOF    tokenKind = iota
	tokIdent            // name, true, inf, MAX
	tokInt              // 12, 0x1f, 017
	tokFloat            // 1., .5, 1e-4, 2.5f
	tokString           // "text" or 'text', quotes included
	tokSymbol           // one character: { } < > [ ] : , ; - and anything else
)

func (k tokenKind) String() string {
	switch k {
	case tokEOF:
		return "end of file"
	case tokIdent:
		return "identifier"
	case tokInt:
		return "integer"
	case tokFloat:
		return "number"
	case tokString:
		return "string"
	}
	return "symbol"
}

type textToken struct {
	kind tokenKind
	text string
	pos  Position
}

// describe names a token for an error message.
func (t textToken) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokString:
		return t.text // already quoted
	}
	return strconv.Quote(t.text)
}

type textScanner struct {
	file string
	src  []byte
	off  int
	line int // 1-based
	col  int // 1-based, counted in bytes
}

func newTextScanner(file string, src []byte) *textScanner {
	return &textScanner{file: file, src: src, line: 1, col: 1}
}

func (s *textScanner) pos() Position { return Position{File: s.file, Line: s.line, Col: s.col} }

func (s *textScanner) errorf(p Position, format string, args ...any) error {
	return &ParseError{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

func (s *textScanner) peekByte(ahead int) byte {
	if s.off+ahead < len(s.src) {
		return s.src[s.off+ahead]
	}
	return 0
}

func (s *textScanner) advance() {
	if s.src[s.off] == '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
	s.off++
}

func txtLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func txtDigit(c byte) bool  { return '0' <= c && c <= '9' }
func txtOctal(c byte) bool  { return '0' <= c && c <= '7' }
func txtHex(c byte) bool    { return txtDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func txtSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// next returns the next token.
func (s *textScanner) next() (textToken, error) {
	// Skip white space and comments.
	for s.off < len(s.src) {
		c := s.src[s.off]
		if txtSpace(c) {
			s.advance()
			continue
		}
		if c == '#' {
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance()
			}
			continue
		}
		break
	}
	start := s.pos()
	if s.off >= len(s.src) {
		return textToken{kind: tokEOF, pos: start}, nil
	}
	begin := s.off
	c := s.src[s.off]
	switch {
	case txtLetter(c):
		for s.off < len(s.src) && (txtLetter(s.src[s.off]) || txtDigit(s.src[s.off])) {
			s.advance()
		}
		return textToken{kind: tokIdent, text: string(s.src[begin:s.off]), pos: start}, nil
	case txtDigit(c) || c == '.' && txtDigit(s.peekByte(1)):
		kind, err := s.scanNumber(start)
		if err != nil {
			return textToken{}, err
		}
		return textToken{kind: kind, text: string(s.src[begin:s.off]), pos: start}, nil
	case c == '"' || c == '\'':
		if err := s.scanString(start, c); err != nil {
			return textToken{}, err
		}
		return textToken{kind: tokString, text: string(s.src[begin:s.off]), pos: start}, nil
	case c < ' ' || c == 0x7f:
		return textToken{}, s.errorf(start, "invalid control character %#02x in text", c)
	case c >= 0x80 && s.off == 0 && len(s.src) >= 3 && s.src[1] == 0xBB && s.src[2] == 0xBF:
		// Caffe's parser (C++ protobuf) refuses the mark some editors
		// write at the start of UTF-8 files.
		return textToken{}, s.errorf(start, "the file starts with a UTF-8 byte order mark, which Caffe cannot read; save it without one")
	case c >= 0x80:
		r, _ := utf8.DecodeRune(s.src[s.off:])
		return textToken{}, s.errorf(start, "unexpected character %q outside a string or comment", r)
	}
	s.advance()
	return textToken{kind: tokSymbol, text: string(c), pos: start}, nil
}

func (s *textScanner) scanNumber(start Position) (tokenKind, error) {
	isFloat := false
	first := s.src[s.off]
	s.advance()
	switch {
	case first == '0' && (s.peekByte(0) == 'x' || s.peekByte(0) == 'X'):
		s.advance()
		if !txtHex(s.peekByte(0)) {
			return 0, s.errorf(start, "\"0x\" must be followed by hex digits")
		}
		for txtHex(s.peekByte(0)) {
			s.advance()
		}
	case first == '0' && txtDigit(s.peekByte(0)):
		for txtOctal(s.peekByte(0)) {
			s.advance()
		}
		if txtDigit(s.peekByte(0)) {
			return 0, s.errorf(start, "numbers starting with a leading zero must be octal")
		}
	default:
		// A decimal number: digits, then an optional '.' and more digits
		// (digits* . digits*), or '.' digits when it began with the point.
		if first == '.' {
			isFloat = true
		} else {
			for txtDigit(s.peekByte(0)) {
				s.advance()
			}
			if s.peekByte(0) == '.' {
				isFloat = true
				s.advance()
			}
		}
		for txtDigit(s.peekByte(0)) {
			s.advance()
		}
		if c := s.peekByte(0); c == 'e' || c == 'E' {
			isFloat = true
			s.advance()
			if c := s.peekByte(0); c == '-' || c == '+' {
				s.advance()
			}
			if !txtDigit(s.peekByte(0)) {
				return 0, s.errorf(start, "\"e\" must be followed by an exponent")
			}
			for txtDigit(s.peekByte(0)) {
				s.advance()
			}
		}
		if c := s.peekByte(0); c == 'f' || c == 'F' {
			isFloat = true
			s.advance()
		}
	}
	switch c := s.peekByte(0); {
	case txtLetter(c):
		return 0, s.errorf(s.pos(), "need a space between number and identifier")
	case c == '.' && isFloat:
		return 0, s.errorf(s.pos(), "already saw a decimal point or exponent; can't have another one")
	case c == '.':
		return 0, s.errorf(s.pos(), "hex and octal numbers must be integers")
	}
	if isFloat {
		return tokFloat, nil
	}
	return tokInt, nil
}

func (s *textScanner) scanString(start Position, quote byte) error {
	s.advance()
	for {
		if s.off >= len(s.src) {
			return s.errorf(start, "unexpected end of file in string")
		}
		c := s.src[s.off]
		switch {
		case c == quote:
			s.advance()
			return nil
		case c == '\n':
			return s.errorf(s.pos(), "string literals cannot cross line boundaries")
		case c == 0:
			return s.errorf(s.pos(), "NUL character in string literal; write \\0")
		case c == '\\':
			escPos := s.pos()
			s.advance()
			e := s.peekByte(0)
			switch {
			case s.off >= len(s.src):
				return s.errorf(start, "unexpected end of file in string")
			case e == 'x':
				s.advance()
				if !txtHex(s.peekByte(0)) {
					return s.errorf(escPos, "expected hex digits for \\x escape sequence")
				}
			case e == 'u':
				s.advance()
				for i := 0; i < 4; i++ {
					if !txtHex(s.peekByte(i)) {
						return s.errorf(escPos, "expected 4 hex digits for \\u escape sequence")
					}
				}
			case e == 'U':
				// Eight hex digits, 00000000 to 001fffff, as protobuf's
				// tokenizer takes them.
				s.advance()
				ok := s.peekByte(0) == '0' && s.peekByte(1) == '0' && (s.peekByte(2) == '0' || s.peekByte(2) == '1')
				for i := 3; i < 8 && ok; i++ {
					ok = txtHex(s.peekByte(i))
				}
				if !ok {
					return s.errorf(escPos, "expected 8 hex digits up to 10ffff for \\U escape sequence")
				}
			case txtOctal(e) || txtEscapeLetter(e):
				s.advance()
			default:
				return s.errorf(escPos, "invalid escape sequence \\%c in string literal", e)
			}
		default:
			s.advance()
		}
	}
}

func txtEscapeLetter(c byte) bool {
	switch c {
	case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', '?', '\'', '"':
		return true
	}
	return false
}

// unquoteText decodes a string token (quotes included) that scanString
// accepted, appending the bytes to dst.
func unquoteText(dst []byte, lit string) []byte {
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		i++
		e := body[i]
		switch {
		case txtOctal(e):
			v := 0
			for n := 0; n < 3 && i < len(body) && txtOctal(body[i]); n++ {
				v = v*8 + int(body[i]-'0')
				i++
			}
			dst = append(dst, byte(v))
		case e == 'x':
			i++
			v := 0
			for n := 0; n < 2 && i < len(body) && txtHex(body[i]); n++ {
				v = v*16 + txtHexVal(body[i])
				i++
			}
			dst = append(dst, byte(v))
		case e == 'u' || e == 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			i++
			v := 0
			for k := 0; k < n; k++ {
				v = v*16 + txtHexVal(body[i])
				i++
			}
			// A high surrogate followed by a \u low surrogate is one
			// code point.
			if 0xD800 <= v && v < 0xDC00 && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' &&
				txtHex(body[i+2]) && txtHex(body[i+3]) && txtHex(body[i+4]) && txtHex(body[i+5]) {
				lo := txtHexVal(body[i+2])<<12 | txtHexVal(body[i+3])<<8 | txtHexVal(body[i+4])<<4 | txtHexVal(body[i+5])
				if 0xDC00 <= lo && lo < 0xE000 {
					v = 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			dst = appendUTF8(dst, v)
		default:
			dst = append(dst, txtUnescape(e))
			i++
		}
	}
	return dst
}

func txtHexVal(c byte) int {
	switch {
	case txtDigit(c):
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

func txtUnescape(c byte) byte {
	switch c {
	case 'a':
		return '\a'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	}
	return c // \\ \? \' \"
}

// appendUTF8 encodes a code point from a \u or \U escape as protobuf's
// C++ tokenizer does: surrogates that are not part of a pair are encoded
// as they are (three bytes), and values past U+10FFFF are kept as the
// escape text.
func appendUTF8(dst []byte, v int) []byte {
	switch {
	case v <= 0x7f:
		return append(dst, byte(v))
	case v <= 0x7ff:
		return append(dst, 0xc0|byte(v>>6), 0x80|byte(v&0x3f))
	case v <= 0xffff:
		return append(dst, 0xe0|byte(v>>12), 0x80|byte(v>>6&0x3f), 0x80|byte(v&0x3f))
	case v <= 0x10ffff:
		return append(dst, 0xf0|byte(v>>18), 0x80|byte(v>>12&0x3f), 0x80|byte(v>>6&0x3f), 0x80|byte(v&0x3f))
	}
	return fmt.Appendf(dst, "\\U%08x", v)
}
