package data

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// Format is a kind of data set that Read opens by name, as in
// "mnist:DIR" or "parquet:FILE_OR_DIR". Every format registers itself in
// the file that reads it, so a new format is one file; Caffe's Data
// layer and rdd's sources (sc.Read) both open data sets through this
// registry.
type Format struct {
	// Name is what a spec starts with: "mnist" in "mnist:DIR". It has
	// no ':' or slashes.
	Name string
	// Doc says in a few words which files the format expects; errors
	// and the shell's help list it.
	Doc string
	// Detect reports whether path holds data of this format, for specs
	// without a name; nil means the format is only used when named.
	Detect func(path string) bool
	// Read reads the data set at path.
	Read func(path string, o ReadOptions) (*Dataset, error)
	// Splits says that a path holds a training and a test split (as an
	// MNIST folder does), which ReadOptions.Split picks; other formats
	// read the same data whatever the split.
	Splits bool
	// RowsOnly says that the format reads rows (such as lines of
	// text), never samples, so training cannot use it.
	RowsOnly bool
}

// ReadOptions adjust how Read reads a data set. The zero value reads the
// training split with each format's defaults.
type ReadOptions struct {
	// Split is "train" (or "") for the training split of formats with
	// Splits, or "test" for the test split.
	Split string
	// Image sizes and colours images: image folders and lists, encoded
	// Datum records, encoded images in Parquet files.
	Image ImageOptions
	// CSV says how CSV records map to samples.
	CSV CSVOptions
	// Parquet names the columns of Parquet files that hold samples.
	Parquet ParquetOptions
}

// train reports whether o asks for the training split, checking the
// name.
func (o ReadOptions) train() (bool, error) {
	switch o.Split {
	case "", "train":
		return true, nil
	case "test":
		return false, nil
	}
	return false, fmt.Errorf("data: unknown split %q (known: train, test)", o.Split)
}

// Dataset is what Read returns: a data set of samples, or one of other
// records (the lines of a text file, the rows of a Parquet file without a
// column of sample data).
type Dataset struct {
	Format string // the format's name
	Path   string // the path read
	// Samples is the data set when it is one of samples, else nil.
	Samples *Samples
	// Rows are the records otherwise: strings for text, map[string]any
	// (column name to value) for Parquet rows.
	Rows []any
}

// Len is the number of samples or rows.
func (d *Dataset) Len() int {
	if d.Samples != nil {
		return d.Samples.N
	}
	return len(d.Rows)
}

var formats = struct {
	sync.RWMutex
	m map[string]Format
}{m: map[string]Format{}}

// RegisterFormat makes a format available to Read under its name.
// Registering a name twice is an error.
func RegisterFormat(f Format) error {
	if f.Name == "" || strings.ContainsAny(f.Name, ":/\\") {
		return fmt.Errorf("data: format name %q must be non-empty without ':' or slashes", f.Name)
	}
	if f.Read == nil {
		return fmt.Errorf("data: format %q has no Read function", f.Name)
	}
	formats.Lock()
	defer formats.Unlock()
	if _, dup := formats.m[f.Name]; dup {
		return fmt.Errorf("data: format %q registered twice", f.Name)
	}
	formats.m[f.Name] = f
	return nil
}

// mustRegister registers a format of this package.
func mustRegister(f Format) {
	if err := RegisterFormat(f); err != nil {
		panic(err)
	}
}

// Formats returns the names of the registered formats, sorted.
func Formats() []string {
	formats.RLock()
	defer formats.RUnlock()
	names := make([]string, 0, len(formats.m))
	for k := range formats.m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// LookupFormat returns the format registered under name.
func LookupFormat(name string) (Format, bool) {
	formats.RLock()
	defer formats.RUnlock()
	f, ok := formats.m[name]
	return f, ok
}

// DescribeFormats lists the formats with their docs, for messages:
// "csv (a CSV file of numbers, ...), mnist (...)".
func DescribeFormats() string {
	var parts []string
	for _, name := range Formats() {
		f, _ := LookupFormat(name)
		parts = append(parts, fmt.Sprintf("%s (%s)", name, f.Doc))
	}
	return strings.Join(parts, ", ")
}

// SplitSpec splits "FORMAT:PATH" into a registered format's name and the
// path; for anything else (a bare path, or a prefix that names no
// format, such as a Windows drive) it returns "" and the spec.
func SplitSpec(spec string) (format, path string) {
	if i := strings.IndexByte(spec, ':'); i > 0 {
		if _, ok := LookupFormat(spec[:i]); ok {
			return spec[:i], spec[i+1:]
		}
	}
	return "", spec
}

// DetectFormat finds the format of the data at path, in name order.
func DetectFormat(path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("data: %w; give FORMAT:PATH with FORMAT one of %s", err, DescribeFormats())
	}
	for _, name := range Formats() {
		if f, _ := LookupFormat(name); f.Detect != nil && f.Detect(path) {
			return name, nil
		}
	}
	return "", fmt.Errorf("data: no known format of data set at %s; give FORMAT:PATH with FORMAT one of %s", path, DescribeFormats())
}

// Read reads the data set a spec names: "FORMAT:PATH", such as
// "mnist:/data/mnist", "parquet:out/train" or "text:README.md", or a bare
// path whose format is detected. o picks the split and format options.
func Read(spec string, o ReadOptions) (*Dataset, error) {
	name, path := SplitSpec(spec)
	if path == "" {
		return nil, fmt.Errorf("data: %q names no path; give FORMAT:PATH with FORMAT one of %s", spec, DescribeFormats())
	}
	if name == "" {
		if i := strings.IndexByte(spec, ':'); i > 1 && !strings.ContainsAny(spec[:i], "/\\.") {
			if _, err := os.Stat(spec); err != nil {
				return nil, fmt.Errorf("data: unknown format %q in %q (known: %s)", spec[:i], spec, strings.Join(Formats(), ", "))
			}
		}
		var err error
		if name, err = DetectFormat(path); err != nil {
			return nil, err
		}
	}
	if _, err := o.train(); err != nil {
		return nil, err
	}
	f, _ := LookupFormat(name)
	d, err := f.Read(path, o)
	if err != nil {
		return nil, err
	}
	d.Format, d.Path = name, path
	if d.Samples != nil {
		if err := d.Samples.Validate(); err != nil {
			return nil, fmt.Errorf("data: %s data set %s: %w", name, path, err)
		}
	}
	return d, nil
}

// ReadSamples is Read for a data set of samples.
func ReadSamples(spec string, o ReadOptions) (*Samples, error) {
	d, err := Read(spec, o)
	if err != nil {
		return nil, err
	}
	if d.Samples == nil {
		return nil, fmt.Errorf("data: %s holds %d rows of %s, not samples", spec, len(d.Rows), d.Format)
	}
	return d.Samples, nil
}

// samplesOf wraps a samples reader as a Format's Read.
func samplesOf(read func(path string, o ReadOptions) (*Samples, error)) func(string, ReadOptions) (*Dataset, error) {
	return func(path string, o ReadOptions) (*Dataset, error) {
		s, err := read(path, o)
		if err != nil {
			return nil, err
		}
		return &Dataset{Samples: s}, nil
	}
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
