package data

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLineBytes bounds one line of a text file.
const maxLineBytes = 64 << 20

// ReadLines reads a text file (gzip detected by its magic bytes) into its
// lines, without line terminators ("\n" or "\r\n"). A folder is read as
// the part files of one text, in name order, as SaveAsTextFile and Spark
// write them.
func ReadLines(path string) ([]string, error) {
	if isDir(path) {
		return readLinesParts(path)
	}
	return readLinesFile(path)
}

// WriteLines writes lines to a text file, each followed by "\n", under a
// temporary name that is renamed when complete.
func WriteLines(path string, lines []string) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		for _, l := range lines {
			bw.WriteString(l)
			if err := bw.WriteByte('\n'); err != nil {
				return fmt.Errorf("data: writing %s: %w", path, err)
			}
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("data: writing %s: %w", path, err)
		}
		return nil
	})
}

// readLinesFile reads the lines of one file.
func readLinesFile(path string) ([]string, error) {
	src, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, atLine(path, len(lines)+1, 0, err)
	}
	return lines, nil
}

// CSVOptions says how a CSV file maps to samples.
type CSVOptions struct {
	// Comma is the field separator; 0 means ','.
	Comma rune
	// Header skips the first record (column names).
	Header bool
	// LabelColumn is the 0-based column holding the label; negative
	// values count from the end (-1 is the last column). The zero value
	// takes the first column, as in the MNIST CSV files.
	LabelColumn int
	// NoLabel reads every column as a feature and sets all labels to 0.
	NoLabel bool
}

// ReadCSV reads a CSV file of numbers (gzip detected by its magic bytes)
// into float32 samples of shape 1×1×D, one per record, where D is the
// number of feature columns. Every record must have the same number of
// fields; errors name the line and column.
func ReadCSV(path string, o CSVOptions) (*Samples, error) {
	src, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return DecodeCSV(src, path, o)
}

// DecodeCSV reads CSV records from r as ReadCSV does; name appears in
// errors.
func DecodeCSV(r io.Reader, name string, o CSVOptions) (*Samples, error) {
	cr := csv.NewReader(r)
	if o.Comma != 0 {
		cr.Comma = o.Comma
	}
	cr.ReuseRecord = true
	s := &Samples{C: 1, H: 1, Floats: []float32{}, Labels: []float32{}}
	fields, label := 0, 0
	for rec := 0; ; rec++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, atLine(name, pe.Line, pe.Column, fmt.Errorf("%w: %v", ErrFormat, pe.Err))
			}
			return nil, atLine(name, line, 0, err)
		}
		if rec == 0 {
			fields = len(row)
			label = o.LabelColumn
			if label < 0 {
				label += fields
			}
			if !o.NoLabel && (label < 0 || label >= fields) {
				return nil, atLine(name, line, 0, fmt.Errorf("label column %d out of range for %d columns (use -1 for the last, or NoLabel)", o.LabelColumn, fields))
			}
			s.W = fields
			if !o.NoLabel {
				s.W--
			}
			if s.W == 0 {
				return nil, atLine(name, line, 0, fmt.Errorf("no feature columns: the record has only the label"))
			}
			if o.Header {
				continue
			}
		}
		for col, f := range row {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 32)
			if err != nil {
				l, c := cr.FieldPos(col)
				return nil, atLine(name, l, c, fmt.Errorf("%w: field %q is not a number", ErrFormat, f))
			}
			if !o.NoLabel && col == label {
				s.Labels = append(s.Labels, float32(v))
			} else {
				s.Floats = append(s.Floats, float32(v))
			}
		}
		if o.NoLabel {
			s.Labels = append(s.Labels, 0)
		}
		s.N++
	}
	if s.N == 0 {
		return nil, inFile(name, fmt.Errorf("no data records"))
	}
	return s, nil
}

// readLinesParts reads the lines of a text file, or of every part file
// of a folder in name order.
func readLinesParts(path string) ([]string, error) {
	files, err := partFiles(path, nil)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, f := range files {
		l, err := readLinesFile(f)
		if err != nil {
			return nil, err
		}
		lines = append(lines, l...)
	}
	return lines, nil
}

func init() {
	mustRegister(Format{
		Name:     "text",
		Doc:      "a text file (or a folder of part files), one element per line",
		RowsOnly: true,
		Read: func(p string, _ ReadOptions) (*Dataset, error) {
			lines, err := ReadLines(p)
			if err != nil {
				return nil, err
			}
			rows := make([]any, len(lines))
			for i, l := range lines {
				rows[i] = l
			}
			return &Dataset{Rows: rows}, nil
		},
	})
	mustRegister(Format{
		Name: "csv",
		Doc:  "a CSV file of numbers (or a folder of part files), the label in the first column unless the options say otherwise",
		Detect: func(p string) bool {
			l := strings.ToLower(p)
			return strings.HasSuffix(l, ".csv") || strings.HasSuffix(l, ".csv.gz")
		},
		Read: samplesOf(func(p string, o ReadOptions) (*Samples, error) {
			files, err := partFiles(p, nil)
			if err != nil {
				return nil, err
			}
			parts := make([]*Samples, len(files))
			for i, f := range files {
				if parts[i], err = ReadCSV(f, o.CSV); err != nil {
					return nil, err
				}
			}
			if len(parts) == 1 {
				return parts[0], nil
			}
			return Concat(parts...)
		}),
	})
}
