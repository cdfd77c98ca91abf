package data

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors that the readers wrap; test for them with errors.Is.
var (
	// ErrTruncated reports a file that ends before the data it declares.
	ErrTruncated = errors.New("truncated")
	// ErrFormat reports bytes that do not follow the file format.
	ErrFormat = errors.New("bad format")
	// ErrTooLarge reports declared sizes beyond what the reader accepts.
	ErrTooLarge = errors.New("too large")
)

// Error is a problem found in a data file, with where it was found.
// Position fields that do not apply are negative (Offset, Record) or zero
// (Line, Column).
type Error struct {
	File   string // file name as given to the reader; "" for an unnamed stream
	Offset int64  // byte offset in the (decompressed) stream, or -1
	Record int    // 0-based record (sample) index, or -1
	Line   int    // 1-based line of a text file, or 0
	Column int    // 1-based column of a CSV record, or 0
	Err    error  // what went wrong
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("data: ")
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("<stream>")
	}
	var pos []string
	if e.Line > 0 {
		pos = append(pos, fmt.Sprintf("line %d", e.Line))
	}
	if e.Column > 0 {
		pos = append(pos, fmt.Sprintf("column %d", e.Column))
	}
	if e.Record >= 0 {
		pos = append(pos, fmt.Sprintf("record %d", e.Record))
	}
	if e.Offset >= 0 {
		pos = append(pos, fmt.Sprintf("byte %d", e.Offset))
	}
	if len(pos) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(pos, ", "))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// atByte returns an *Error for byte offset off of file.
func atByte(file string, off int64, err error) error {
	return &Error{File: file, Offset: off, Record: -1, Err: err}
}

// atRecord returns an *Error for record rec starting at byte off of file.
func atRecord(file string, rec int, off int64, err error) error {
	return &Error{File: file, Offset: off, Record: rec, Err: err}
}

// atLine returns an *Error for line (and column, if > 0) of file.
func atLine(file string, line, col int, err error) error {
	return &Error{File: file, Offset: -1, Record: -1, Line: line, Column: col, Err: err}
}

// inFile returns an *Error for file as a whole.
func inFile(file string, err error) error {
	return &Error{File: file, Offset: -1, Record: -1, Err: err}
}
