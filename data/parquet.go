package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// Parquet is the columnar format Spark jobs (and pandas, DuckDB, Arrow)
// write. ReadParquet reads a file, or a folder of part files as Spark
// writes them, into samples: one column holds each sample's values and
// another its label. ReadParquetRows reads any flat table into rows.
// The library underneath is github.com/parquet-go/parquet-go; the
// metadata is checked first (sizes against the file, the ratio of
// decoded to stored bytes), so a corrupt or hostile file is an error
// naming the file and the problem, never a crash or a huge allocation.

// ParquetOptions name the columns of a Parquet file that hold samples.
type ParquetOptions struct {
	// Data is the column holding each sample's values: bytes (raw
	// pixels in C×H×W order, or an encoded PNG or JPEG image) or a list
	// of numbers. "" picks a column named image, data, features,
	// pixels, x or image.data (Spark's image data source), else the
	// only column of bytes or lists.
	Data string
	// Label is the column of labels (numbers); "" picks label, labels,
	// y or target when there is one, else every label is 0.
	Label string
	// Shape is each sample's C, H, W. Zeros take it from the file's
	// key-value metadata "sparknet.shape" ("C,H,W", which sparknet
	// writes), else from height, width and nChannels columns beside the
	// data (Spark's image schema), else from the value count: N values
	// are 1×s×s when N = s², 3×s×s when N = 3s², else 1×1×N. Encoded
	// images take their size from the image (see ReadOptions.Image).
	Shape [3]int
}

// ShapeKey is the key-value metadata that records the shape of the
// samples in a Parquet file sparknet writes.
const ShapeKey = "sparknet.shape"

// maxParquetRatio bounds how many decoded bytes (and values) a Parquet
// file may claim per byte it holds; compressed columns rarely exceed
// 100, and gzip cannot exceed about 1032.
const maxParquetRatio = 1100

func init() {
	mustRegister(Format{
		Name: "parquet",
		Doc:  "a Parquet file, or a folder of part files as Spark writes them; samples from a column of bytes or number lists and a label column, else rows",
		Detect: func(p string) bool {
			files, err := parquetParts(p)
			return err == nil && hasParquetMagic(files[0])
		},
		Read: func(p string, o ReadOptions) (*Dataset, error) {
			files, err := parquetParts(p)
			if err != nil {
				return nil, err
			}
			first, err := openParquetFile(files[0])
			if err != nil {
				return nil, err
			}
			if _, ok, err := first.dataLeaf(o.Parquet); err != nil {
				return nil, err
			} else if ok {
				s, err := readParquetSamples(files, first, o)
				if err != nil {
					return nil, err
				}
				return &Dataset{Samples: s}, nil
			}
			t, err := readParquetTable(files, first)
			if err != nil {
				return nil, err
			}
			return &Dataset{Rows: t.rows()}, nil
		},
	})
}

// ReadParquet reads a Parquet file, or a folder of part files in name
// order, into samples (see ParquetOptions).
func ReadParquet(path string, o ParquetOptions) (*Samples, error) {
	files, err := parquetParts(path)
	if err != nil {
		return nil, err
	}
	first, err := openParquetFile(files[0])
	if err != nil {
		return nil, err
	}
	return readParquetSamples(files, first, ReadOptions{Parquet: o})
}

// ReadParquetRows reads a Parquet file, or a folder of part files, into
// rows: one map from column name to value per row. Integers are int,
// FLOAT float32, DOUBLE float64, BOOLEAN bool, strings string and other
// byte arrays []byte; a list column gives a slice ([]float32, []int,
// []string, ...; []any where elements are null); nulls are nil. Columns
// inside structs are named by their path, such as "image.height".
func ReadParquetRows(path string) ([]map[string]any, error) {
	files, err := parquetParts(path)
	if err != nil {
		return nil, err
	}
	first, err := openParquetFile(files[0])
	if err != nil {
		return nil, err
	}
	t, err := readParquetTable(files, first)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, t.n)
	for i := range out {
		out[i] = t.row(i)
	}
	return out, nil
}

// DecodeParquetRows reads the rows of a Parquet file held in memory; name
// appears in errors.
func DecodeParquetRows(b []byte, name string) ([]map[string]any, error) {
	pf, err := openParquet(name, b)
	if err != nil {
		return nil, err
	}
	t, err := pf.table()
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, t.n)
	for i := range out {
		out[i] = t.row(i)
	}
	return out, nil
}

// DecodeParquet reads the samples of a Parquet file held in memory; name
// appears in errors.
func DecodeParquet(b []byte, name string, o ParquetOptions) (*Samples, error) {
	pf, err := openParquet(name, b)
	if err != nil {
		return nil, err
	}
	return pf.samples(ReadOptions{Parquet: o})
}

// hasParquetMagic reports whether the file starts with PAR1.
func hasParquetMagic(path string) bool {
	f, _, err := fsio.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == "PAR1"
}

// parquetParts lists the files of a Parquet file or folder.
func parquetParts(path string) ([]string, error) {
	return partFiles(path, func(name string) bool { return !strings.HasSuffix(name, ".tmp") })
}

// pfile is an open Parquet file whose metadata was checked.
type pfile struct {
	name   string
	f      *parquet.File
	n      int
	shape  string // the ShapeKey metadata, or ""
	leaves []leafInfo
	// decoded is the decoded bytes the pages claim (checked against
	// the file's size), a bound for buffers sized ahead.
	decoded int64
}

// leafInfo is a leaf column: a primitive, or a list of primitives.
type leafInfo struct {
	name        string
	index       int
	kind        string // "int", "float32", "float64", "bool", "string", "bytes"
	decimal     int    // for DECIMAL columns (kind "float64"), the scale plus one
	maxDef      int
	repeatedDef int // the definition level of a list's repeated node, or 0
}

func (l leafInfo) list() bool { return l.repeatedDef > 0 }

func (l leafInfo) describe() string {
	if l.list() {
		return "lists of " + l.kind
	}
	return l.kind
}

func (l leafInfo) numeric() bool {
	return l.kind == "int" || l.kind == "float32" || l.kind == "float64"
}

// openParquetFile reads and opens one file.
func openParquetFile(path string) (*pfile, error) {
	b, err := fsio.ReadFile(path, fsio.DataLimit)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return openParquet(path, b)
}

// openParquet checks a file held in memory and opens it.
func openParquet(name string, b []byte) (pf *pfile, err error) {
	decoded, err := checkParquetSizes(name, b)
	if err != nil {
		return nil, err
	}
	defer func() {
		if v := recover(); v != nil {
			pf, err = nil, inFile(name, fmt.Errorf("%w: the Parquet reader failed: %v", ErrFormat, v))
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, inFile(name, fmt.Errorf("%w: %v", ErrFormat, err))
	}
	pf = &pfile{name: name, f: f, decoded: decoded}
	if n := f.NumRows(); n < 0 || n > int64(maxParquetRatio)*int64(len(b))+1<<20 {
		return nil, inFile(name, fmt.Errorf("%w: %d rows in %d bytes", ErrTooLarge, n, len(b)))
	}
	pf.n = int(f.NumRows())
	pf.shape, _ = f.Lookup(ShapeKey)
	if err := collectLeaves(name, f.Root(), nil, &pf.leaves); err != nil {
		return nil, err
	}
	return pf, nil
}

// leaf finds a leaf column by name.
func (pf *pfile) leaf(name string) (leafInfo, bool) {
	for _, l := range pf.leaves {
		if l.name == name {
			return l, true
		}
	}
	return leafInfo{}, false
}

func (pf *pfile) names() []string {
	out := make([]string, len(pf.leaves))
	for i, l := range pf.leaves {
		out[i] = l.name
	}
	return out
}

// read feeds every row of leaf l, in every row group, to r.
func (pf *pfile) read(l leafInfo, r leafReader) error {
	if err := pf.readGroups(l, r, 0, len(pf.f.RowGroups())); err != nil {
		return err
	}
	return r.err()
}

// readGroups feeds the rows of leaf l in row groups [from, to) to r.
func (pf *pfile) readGroups(l leafInfo, r leafReader, from, to int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = inFile(pf.name, fmt.Errorf("%w: column %s: the Parquet reader failed: %v", ErrFormat, l.name, v))
		}
	}()
	buf := make([]parquet.Value, 4096)
	groups := pf.f.RowGroups()
	for g := from; g < to; g++ {
		rg := groups[g]
		chunks := rg.ColumnChunks()
		if l.index >= len(chunks) {
			return inFile(pf.name, fmt.Errorf("%w: row group %d has %d column chunks, want column %d", ErrFormat, g, len(chunks), l.index))
		}
		rows, err := readColumnChunk(chunks[l.index], l, r, buf)
		if err != nil {
			return inFile(pf.name, fmt.Errorf("row group %d, column %s: %w", g, l.name, err))
		}
		if int64(rows) != rg.NumRows() {
			return inFile(pf.name, fmt.Errorf("%w: row group %d, column %s holds %d rows, the row group %d", ErrFormat, g, l.name, rows, rg.NumRows()))
		}
	}
	return nil
}

// readParallel reads leaf l's row groups after the first on several
// goroutines at once: sink(g, row) returns the reader for row group g,
// whose first row is row of the file.
func (pf *pfile) readParallel(l leafInfo, sink func(g, row int) leafReader) error {
	groups := pf.f.RowGroups()
	starts := make([]int, len(groups)+1)
	for g, rg := range groups {
		starts[g+1] = starts[g] + int(rg.NumRows())
	}
	work := make(chan int, len(groups))
	for g := 1; g < len(groups); g++ {
		work <- g
	}
	close(work)
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(groups)-1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				r := sink(g, starts[g])
				if errs[g] = pf.readGroups(l, r, g, g+1); errs[g] == nil {
					errs[g] = r.err()
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// collectLeaves finds the leaf columns under c: primitives, and lists of
// primitives (one level of repetition). path is the names so far.
func collectLeaves(name string, c *parquet.Column, path []string, out *[]leafInfo) error {
	for _, ch := range c.Columns() {
		p := append(append([]string(nil), path...), ch.Name())
		if ch.Leaf() {
			if ch.MaxRepetitionLevel() > 1 {
				return inFile(name, fmt.Errorf("%w: column %s is a list of lists, which is not supported", ErrFormat, strings.Join(p, ".")))
			}
			l := leafInfo{name: strings.Join(p, "."), index: ch.Index(), maxDef: ch.MaxDefinitionLevel(), kind: kindOf(ch.Type())}
			if scale, ok := decimalScale(ch.Type()); ok {
				l.kind, l.decimal = "float64", scale+1
			}
			if l.kind == "" {
				return inFile(name, fmt.Errorf("%w: column %s has the type %v, which is not supported", ErrFormat, l.name, ch.Type()))
			}
			if ch.MaxRepetitionLevel() == 1 {
				l.repeatedDef = repeatedDefLevel(ch)
				l.name = listName(p)
			}
			*out = append(*out, l)
			continue
		}
		if err := collectLeaves(name, ch, p, out); err != nil {
			return err
		}
	}
	return nil
}

// repeatedDefLevel is the definition level of the repeated node on the
// path to a list's leaf (counting optional and repeated nodes): for the
// layouts writers use (a 3-level LIST, or a repeated primitive) it is the
// leaf's maximum level, less one when the element is optional.
func repeatedDefLevel(leaf *parquet.Column) int {
	if leaf.Optional() {
		return leaf.MaxDefinitionLevel() - 1
	}
	return leaf.MaxDefinitionLevel()
}

// listName names a list column by the field that holds it: "f" for the
// 3-level layout f.list.element (or f.bag.array_element), f for f.array.
func listName(p []string) string {
	if len(p) >= 3 {
		return strings.Join(p[:len(p)-2], ".")
	}
	if len(p) == 2 {
		return p[0]
	}
	return strings.Join(p, ".")
}

// kindOf maps a physical type to the Go type of its values.
func kindOf(t parquet.Type) string {
	switch t.Kind() {
	case parquet.Boolean:
		return "bool"
	case parquet.Int32, parquet.Int64:
		return "int"
	case parquet.Float:
		return "float32"
	case parquet.Double:
		return "float64"
	case parquet.ByteArray:
		if isStringType(t) {
			return "string"
		}
		return "bytes"
	case parquet.FixedLenByteArray:
		return "bytes"
	}
	return ""
}

// decimalScale returns the scale of a DECIMAL column.
func decimalScale(t parquet.Type) (int, bool) {
	if lt := t.LogicalType(); lt != nil {
		if d, ok := lt.Value.(*format.DecimalType); ok {
			return int(d.Scale), d.Scale >= 0 && d.Scale < 1000
		}
	}
	return 0, false
}

// decimalValue converts an unscaled DECIMAL value: an int32, an int64 or
// a big-endian two's complement byte array.
func decimalValue(v parquet.Value, scale int) float64 {
	var u *big.Int
	switch v.Kind() {
	case parquet.Int32:
		u = big.NewInt(int64(v.Int32()))
	case parquet.Int64:
		u = big.NewInt(v.Int64())
	default:
		b := v.ByteArray()
		u = new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(u), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))).Float64()
	return f
}

func isStringType(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			return true
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.UTF8, deprecated.Enum, deprecated.Json:
			return true
		}
	}
	return false
}

// leafReader receives the rows of a leaf column in order: row for each
// row of a plain column; for a list column, begin for each row (null for
// a null list), then elem for each of its elements. Values that refer to
// bytes are valid only during the call.
type leafReader interface {
	row(v parquet.Value, null bool)
	begin(null bool)
	elem(v parquet.Value, null bool)
	err() error
}

// readColumnChunk feeds the rows of a chunk to r and counts them.
func readColumnChunk(chunk parquet.ColumnChunk, l leafInfo, r leafReader, buf []parquet.Value) (int, error) {
	pages := chunk.Pages()
	defer pages.Close()
	rows := 0
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			return rows, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		vr := p.Values()
		for {
			n, err := vr.ReadValues(buf)
			for _, v := range buf[:n] {
				def := v.DefinitionLevel()
				if !l.list() {
					r.row(v, v.IsNull() || def < l.maxDef)
					rows++
					continue
				}
				if v.RepetitionLevel() == 0 {
					rows++
					if def < l.repeatedDef {
						r.begin(def < l.repeatedDef-1)
						continue
					}
					r.begin(false)
				}
				if def >= l.repeatedDef {
					r.elem(v, v.IsNull() || def < l.maxDef)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return rows, fmt.Errorf("%w: %v", ErrFormat, err)
			}
			if n == 0 {
				return rows, fmt.Errorf("%w: the page reader made no progress", ErrFormat)
			}
			if e := r.err(); e != nil {
				return rows, e
			}
		}
		parquet.Release(p)
	}
	return rows, r.err()
}

// convertValue turns a Parquet value into a Go value of the leaf's kind.
func convertValue(v parquet.Value, l leafInfo) any {
	if l.decimal > 0 {
		return decimalValue(v, l.decimal-1)
	}
	switch l.kind {
	case "bool":
		return v.Boolean()
	case "int":
		if v.Kind() == parquet.Int32 {
			return int(v.Int32())
		}
		return int(v.Int64())
	case "float32":
		return v.Float()
	case "float64":
		return v.Double()
	case "string":
		return string(v.ByteArray())
	}
	return append([]byte(nil), v.ByteArray()...)
}

// number returns a numeric value as a float64.
func number(v parquet.Value, l leafInfo) float64 {
	if l.decimal > 0 {
		return decimalValue(v, l.decimal-1)
	}
	switch l.kind {
	case "int":
		if v.Kind() == parquet.Int32 {
			return float64(v.Int32())
		}
		return float64(v.Int64())
	case "float32":
		return float64(v.Float())
	case "float64":
		return v.Double()
	case "bool":
		if v.Boolean() {
			return 1
		}
	}
	return 0
}

// anyColumn collects a column as Go values, for rows.
type anyColumn struct {
	leaf   leafInfo
	values []any
	cur    []any
	inList bool
	nulls  bool // the current list has null elements
}

func (c *anyColumn) row(v parquet.Value, null bool) {
	if null {
		c.values = append(c.values, nil)
		return
	}
	c.values = append(c.values, convertValue(v, c.leaf))
}

func (c *anyColumn) begin(null bool) {
	c.flush()
	c.inList, c.nulls = true, false
	c.cur = nil
	if !null {
		c.cur = []any{}
	}
}

func (c *anyColumn) elem(v parquet.Value, null bool) {
	if null {
		c.cur = append(c.cur, nil)
		c.nulls = true
		return
	}
	c.cur = append(c.cur, convertValue(v, c.leaf))
}

func (c *anyColumn) flush() {
	if !c.inList {
		return
	}
	c.inList = false
	if c.cur == nil || c.nulls {
		c.values = append(c.values, c.cur)
		if c.cur == nil {
			c.values[len(c.values)-1] = nil
		}
		return
	}
	c.values = append(c.values, typedList(c.cur, c.leaf.kind))
}

func (c *anyColumn) err() error { c.flush(); return nil }

// typedList turns a list of non-null values of kind into a typed slice.
func typedList(xs []any, kind string) any {
	switch kind {
	case "float32":
		return convertList[float32](xs)
	case "float64":
		return convertList[float64](xs)
	case "int":
		return convertList[int](xs)
	case "bool":
		return convertList[bool](xs)
	case "string":
		return convertList[string](xs)
	}
	return xs
}

func convertList[T any](xs []any) []T {
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = x.(T)
	}
	return out
}

// ptable is a Parquet table read into columns, for rows.
type ptable struct {
	n    int
	cols []*pcolumn
}

// pcolumn is one column of a ptable: a value per row.
type pcolumn struct {
	leaf   leafInfo
	values []any
}

func (t *ptable) row(i int) map[string]any {
	m := make(map[string]any, len(t.cols))
	for _, c := range t.cols {
		m[c.leaf.name] = c.values[i]
	}
	return m
}

func (t *ptable) rows() []any {
	out := make([]any, t.n)
	for i := range out {
		out[i] = t.row(i)
	}
	return out
}

// table reads every column of the file.
func (pf *pfile) table() (*ptable, error) {
	t := &ptable{n: pf.n}
	for _, l := range pf.leaves {
		c := &anyColumn{leaf: l, values: make([]any, 0, pf.n)}
		if err := pf.read(l, c); err != nil {
			return nil, err
		}
		if len(c.values) != pf.n {
			return nil, inFile(pf.name, fmt.Errorf("%w: column %s holds %d rows, the file %d", ErrFormat, l.name, len(c.values), pf.n))
		}
		t.cols = append(t.cols, &pcolumn{leaf: l, values: c.values})
	}
	return t, nil
}

// readParquetTable reads the rows of every part (first is files[0],
// open); the parts must have the same columns.
func readParquetTable(files []string, first *pfile) (*ptable, error) {
	t, err := first.table()
	if err != nil {
		return nil, err
	}
	for _, f := range files[1:] {
		pf, err := openParquetFile(f)
		if err != nil {
			return nil, err
		}
		if err := sameColumns(first, pf); err != nil {
			return nil, err
		}
		part, err := pf.table()
		if err != nil {
			return nil, err
		}
		for i, c := range part.cols {
			t.cols[i].values = append(t.cols[i].values, c.values...)
		}
		t.n += part.n
	}
	return t, nil
}

// sameColumns checks that a part has the columns of the first part.
func sameColumns(first, pf *pfile) error {
	if strings.Join(pf.names(), ",") != strings.Join(first.names(), ",") {
		return inFile(pf.name, fmt.Errorf("%w: its columns %v differ from those of %s (%v)", ErrFormat, pf.names(), first.name, first.names()))
	}
	for i, l := range pf.leaves {
		if l.kind != first.leaves[i].kind || l.list() != first.leaves[i].list() {
			return inFile(pf.name, fmt.Errorf("%w: column %s holds %s, in %s it holds %s", ErrFormat, l.name, l.describe(), first.name, first.leaves[i].describe()))
		}
	}
	return nil
}

// dataLeaf picks the column of sample data.
func (pf *pfile) dataLeaf(o ParquetOptions) (leafInfo, bool, error) {
	usable := func(l leafInfo) bool { return l.kind == "bytes" && !l.list() || l.list() && l.numeric() }
	if o.Data != "" {
		l, ok := pf.leaf(o.Data)
		if !ok {
			return l, false, inFile(pf.name, fmt.Errorf("no column %q (columns: %s)", o.Data, strings.Join(pf.names(), ", ")))
		}
		if !usable(l) {
			return l, false, inFile(pf.name, fmt.Errorf("column %q holds %s; the data column must hold bytes or lists of numbers", o.Data, l.describe()))
		}
		return l, true, nil
	}
	for _, name := range []string{"image", "data", "features", "pixels", "x", "image.data"} {
		if l, ok := pf.leaf(name); ok && usable(l) {
			return l, true, nil
		}
	}
	// Else the only such column, when there is a label beside it.
	var found leafInfo
	n := 0
	for _, l := range pf.leaves {
		if usable(l) {
			found = l
			n++
		}
	}
	if _, ok, _ := pf.labelLeaf(o); !ok {
		return found, false, nil
	}
	return found, n == 1, nil
}

// labelLeaf picks the label column.
func (pf *pfile) labelLeaf(o ParquetOptions) (leafInfo, bool, error) {
	if o.Label != "" {
		l, ok := pf.leaf(o.Label)
		if !ok {
			return l, false, inFile(pf.name, fmt.Errorf("no label column %q (columns: %s)", o.Label, strings.Join(pf.names(), ", ")))
		}
		if l.list() || !l.numeric() && l.kind != "bool" {
			return l, false, inFile(pf.name, fmt.Errorf("the label column %q holds %s, not numbers", o.Label, l.describe()))
		}
		return l, true, nil
	}
	for _, name := range []string{"label", "labels", "y", "target"} {
		if l, ok := pf.leaf(name); ok && !l.list() && l.numeric() {
			return l, true, nil
		}
	}
	return leafInfo{}, false, nil
}

// readParquetSamples reads the samples of every part (first is
// files[0], open) and joins them.
func readParquetSamples(files []string, first *pfile, o ReadOptions) (*Samples, error) {
	s, err := first.samples(o)
	if err != nil {
		return nil, err
	}
	if len(files) == 1 {
		return s, nil
	}
	parts := []*Samples{s}
	for _, f := range files[1:] {
		pf, err := openParquetFile(f)
		if err != nil {
			return nil, err
		}
		if err := sameColumns(first, pf); err != nil {
			return nil, err
		}
		p, err := pf.samples(o)
		if err != nil {
			return nil, err
		}
		if p.C != s.C || p.H != s.H || p.W != s.W {
			return nil, inFile(f, fmt.Errorf("%w: samples of %d×%d×%d, those of %s are %d×%d×%d", ErrFormat, p.C, p.H, p.W, first.name, s.C, s.H, s.W))
		}
		parts = append(parts, p)
	}
	return Concat(parts...)
}

// labelReader collects a numeric column as labels.
type labelReader struct {
	leaf   leafInfo
	labels []float32
	bad    error
	name   string
	file   string
}

func (r *labelReader) row(v parquet.Value, null bool) {
	if null && r.bad == nil {
		r.bad = atRecord(r.file, len(r.labels), -1, fmt.Errorf("%w: the label (column %s) is null", ErrFormat, r.name))
	}
	r.labels = append(r.labels, float32(number(v, r.leaf)))
}
func (r *labelReader) begin(bool)               {}
func (r *labelReader) elem(parquet.Value, bool) {}
func (r *labelReader) err() error               { return r.bad }

// bytesReader collects a column of bytes end to end, with the end of
// each row.
type bytesReader struct {
	rows  int   // rows expected, to size data
	limit int64 // the most to allocate ahead
	data  []byte
	ends  []int
	bad   error
	name  string
	file  string
}

func (r *bytesReader) row(v parquet.Value, null bool) {
	if null && r.bad == nil {
		r.bad = atRecord(r.file, len(r.ends), -1, fmt.Errorf("%w: the data (column %s) is null", ErrFormat, r.name))
	}
	if !null {
		b := v.ByteArray()
		if r.data == nil {
			r.data = make([]byte, 0, min(int64(len(b))*int64(r.rows), r.limit))
		}
		r.data = append(r.data, b...)
	}
	r.ends = append(r.ends, len(r.data))
}
func (r *bytesReader) begin(bool)               {}
func (r *bytesReader) elem(parquet.Value, bool) {}
func (r *bytesReader) err() error               { return r.bad }

func (r *bytesReader) record(i int) []byte {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.data[start:r.ends[i]]
}

// floatsReader collects a column of number lists end to end.
type floatsReader struct {
	leaf leafInfo
	data []float32
	ends []int
	bad  error
	name string
	file string
}

func (r *floatsReader) row(parquet.Value, bool) {}
func (r *floatsReader) begin(null bool) {
	if null && r.bad == nil {
		r.bad = atRecord(r.file, len(r.ends), -1, fmt.Errorf("%w: the data (column %s) is null", ErrFormat, r.name))
	}
	r.ends = append(r.ends, len(r.data))
}
func (r *floatsReader) elem(v parquet.Value, null bool) {
	if null && r.bad == nil {
		r.bad = atRecord(r.file, len(r.ends)-1, -1, fmt.Errorf("%w: the data (column %s) holds a null value", ErrFormat, r.name))
	}
	r.data = append(r.data, float32(number(v, r.leaf)))
	r.ends[len(r.ends)-1] = len(r.data)
}
func (r *floatsReader) err() error { return r.bad }

// samples reads the file's samples.
func (pf *pfile) samples(ro ReadOptions) (*Samples, error) {
	o := ro.Parquet
	dl, ok, err := pf.dataLeaf(o)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, inFile(pf.name, fmt.Errorf("no single column of sample data (bytes or lists of numbers) among %s; name one with ParquetOptions.Data", strings.Join(pf.names(), ", ")))
	}
	labels := make([]float32, pf.n)
	if ll, ok, err := pf.labelLeaf(o); err != nil {
		return nil, err
	} else if ok {
		lr := &labelReader{leaf: ll, labels: make([]float32, 0, pf.n), name: ll.name, file: pf.name}
		if err := pf.read(ll, lr); err != nil {
			return nil, err
		}
		labels = lr.labels
	}
	if pf.n == 0 {
		return nil, inFile(pf.name, fmt.Errorf("no rows"))
	}
	if dl.list() {
		fr := &floatsReader{leaf: dl, name: dl.name, file: pf.name}
		if err := pf.read(dl, fr); err != nil {
			return nil, err
		}
		c, h, w, err := pf.shapeOf(dl, fr.ends[0], o)
		if err != nil {
			return nil, err
		}
		d := c * h * w
		for i, end := range fr.ends {
			if end != (i+1)*d {
				start := 0
				if i > 0 {
					start = fr.ends[i-1]
				}
				return nil, atRecord(pf.name, i, -1, fmt.Errorf("%w: %d values of data, want %d (%d×%d×%d)", ErrFormat, end-start, d, c, h, w))
			}
		}
		return &Samples{N: pf.n, C: c, H: h, W: w, Floats: fr.data, Labels: labels}, nil
	}
	// The first row group, read whole, gives the size of a sample.
	groups := pf.f.RowGroups()
	br := &bytesReader{name: dl.name, file: pf.name, rows: pf.n, limit: pf.decoded}
	if len(groups) > 0 {
		br.rows = int(groups[0].NumRows())
	}
	if err := pf.readGroups(dl, br, 0, 1); err != nil {
		return nil, err
	}
	if err := br.err(); err != nil {
		return nil, err
	}
	if len(br.ends) == 0 {
		return nil, inFile(pf.name, fmt.Errorf("%w: the first row group has no rows", ErrFormat))
	}
	if isEncodedImage(br.record(0)) {
		if err := pf.readGroups(dl, br, 1, len(groups)); err != nil {
			return nil, err
		}
		if err := br.err(); err != nil {
			return nil, err
		}
		s := &Samples{N: pf.n, Labels: labels}
		for i := range br.ends {
			pix, h, w, err := DecodeImage(bytes.NewReader(br.record(i)), fmt.Sprintf("%s: record %d", pf.name, i), ro.Image)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				s.C, s.H, s.W = len(pix)/(h*w), h, w
				s.Pixels = make([]uint8, 0, pf.n*len(pix))
			} else if h != s.H || w != s.W || len(pix) != s.Dim() {
				return nil, atRecord(pf.name, i, -1, fmt.Errorf("%w: an image of %d×%d, the first is %d×%d; give ImageOptions Height and Width to resize them all", ErrFormat, h, w, s.H, s.W))
			}
			s.Pixels = append(s.Pixels, pix...)
		}
		return s, nil
	}
	c, h, w, err := pf.shapeOf(dl, br.ends[0], o)
	if err != nil {
		return nil, err
	}
	d := c * h * w
	for i, end := range br.ends {
		if end != (i+1)*d {
			return nil, atRecord(pf.name, i, -1, fmt.Errorf("%w: %d bytes of data, want %d (%d×%d×%d)", ErrFormat, len(br.record(i)), d, c, h, w))
		}
	}
	if int64(pf.n)*int64(d) > pf.decoded {
		return nil, inFile(pf.name, fmt.Errorf("%w: %d samples of %d bytes, but the pages hold %d bytes", ErrFormat, pf.n, d, pf.decoded))
	}
	pix := br.data
	if len(groups) > 1 {
		// The other row groups are decoded at once, straight into
		// their place.
		pix = make([]uint8, pf.n*d)
		copy(pix, br.data)
		err := pf.readParallel(dl, func(g, row int) leafReader {
			return &fixedBytes{dst: pix, d: d, at: row, end: row + int(groups[g].NumRows()), name: dl.name, file: pf.name}
		})
		if err != nil {
			return nil, err
		}
	}
	return &Samples{N: pf.n, C: c, H: h, W: w, Pixels: pix, Labels: labels}, nil
}

// fixedBytes writes a column of records of d bytes each into dst, from
// record row on.
type fixedBytes struct {
	dst     []byte
	d       int
	at, end int
	bad     error
	name    string
	file    string
}

func (r *fixedBytes) row(v parquet.Value, null bool) {
	if r.bad != nil {
		return
	}
	b := v.ByteArray()
	switch {
	case null:
		r.bad = atRecord(r.file, r.at, -1, fmt.Errorf("%w: the data (column %s) is null", ErrFormat, r.name))
	case len(b) != r.d:
		r.bad = atRecord(r.file, r.at, -1, fmt.Errorf("%w: %d bytes of data, want %d", ErrFormat, len(b), r.d))
	case r.at >= r.end:
		r.bad = atRecord(r.file, r.at, -1, fmt.Errorf("%w: more rows than the row group holds", ErrFormat))
	default:
		copy(r.dst[r.at*r.d:], b)
	}
	r.at++
}
func (r *fixedBytes) begin(bool)               {}
func (r *fixedBytes) elem(parquet.Value, bool) {}
func (r *fixedBytes) err() error               { return r.bad }

// shapeOf finds the sample shape for n values per sample.
func (pf *pfile) shapeOf(dl leafInfo, n int, o ParquetOptions) (c, h, w int, err error) {
	switch {
	case o.Shape != [3]int{}:
		c, h, w = o.Shape[0], o.Shape[1], o.Shape[2]
	case pf.shape != "":
		parts := strings.Split(pf.shape, ",")
		if len(parts) == 3 {
			c, _ = strconv.Atoi(parts[0])
			h, _ = strconv.Atoi(parts[1])
			w, _ = strconv.Atoi(parts[2])
		}
		if c < 1 || h < 1 || w < 1 {
			return 0, 0, 0, inFile(pf.name, fmt.Errorf("%w: the metadata %s is %q, want C,H,W", ErrFormat, ShapeKey, pf.shape))
		}
	default:
		if dims, ok := pf.sparkShape(dl); ok {
			c, h, w = dims[0], dims[1], dims[2]
			break
		}
		c, h, w = 1, 1, n
		if s := int(math.Round(math.Sqrt(float64(n)))); s*s == n && n > 1 {
			h, w = s, s
		} else if s := int(math.Round(math.Sqrt(float64(n / 3)))); n%3 == 0 && 3*s*s == n && n > 3 {
			c, h, w = 3, s, s
		}
	}
	if c < 1 || h < 1 || w < 1 || c*h*w != n {
		return 0, 0, 0, inFile(pf.name, fmt.Errorf("%w: the samples are %d×%d×%d, but the first row of %s holds %d values", ErrFormat, c, h, w, dl.name, n))
	}
	return c, h, w, nil
}

// sparkShape reads the first row's nChannels, height and width beside a
// data column, as Spark's image data source writes them.
func (pf *pfile) sparkShape(dl leafInfo) ([3]int, bool) {
	prefix := strings.TrimSuffix(dl.name, "data")
	var dims [3]int
	for i, name := range []string{"nChannels", "height", "width"} {
		l, ok := pf.leaf(prefix + name)
		if !ok || l.kind != "int" || l.list() {
			return dims, false
		}
		c := &anyColumn{leaf: l}
		if err := pf.read(l, c); err != nil || len(c.values) == 0 {
			return dims, false
		}
		v, _ := c.values[0].(int)
		dims[i] = v
	}
	return dims, true
}

// isEncodedImage reports whether b starts like a PNG or JPEG file.
func isEncodedImage(b []byte) bool {
	return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff})
}

// checkParquet checks a file's structure before the library reads it:
// the magic bytes, the footer (decoded here, with every length checked
// against the bytes that remain), every column chunk's place in the
// file, and every page header, whose sizes must fit their chunk; the
// decoded bytes and values the file claims may not exceed
// maxParquetRatio times its size.
func checkParquet(name string, b []byte) error {
	_, err := checkParquetSizes(name, b)
	return err
}

// checkParquetSizes is checkParquet, returning the decoded bytes the
// pages claim.
func checkParquetSizes(name string, b []byte) (int64, error) {
	size := int64(len(b))
	if size < 12 || string(b[:4]) != "PAR1" {
		return 0, inFile(name, fmt.Errorf("%w: not a Parquet file (it does not start with PAR1)", ErrFormat))
	}
	if string(b[size-4:]) != "PAR1" {
		if string(b[size-4:]) == "PARE" {
			return 0, inFile(name, fmt.Errorf("%w: the footer is encrypted, which is not supported", ErrFormat))
		}
		return 0, atByte(name, size-4, fmt.Errorf("%w: the file does not end with PAR1 (truncated?)", ErrTruncated))
	}
	footerLen := int64(binary.LittleEndian.Uint32(b[size-8:]))
	if footerLen > size-12 {
		return 0, atByte(name, size-8, fmt.Errorf("%w: a footer of %d bytes in a file of %d", ErrTruncated, footerLen, size))
	}
	footerAt := size - 8 - footerLen
	r := &thriftReader{b: b[footerAt : size-8]}
	meta, err := r.readStruct(0)
	if err != nil {
		return 0, atByte(name, footerAt+int64(r.off), fmt.Errorf("%w: the footer: %v", ErrFormat, err))
	}
	budget := maxParquetRatio*size + 1<<20
	var decoded, values int64
	for g, v := range meta.list(4) {
		rg, _ := v.(tstruct)
		if rg == nil {
			return 0, inFile(name, fmt.Errorf("%w: row group %d is not a struct", ErrFormat, g))
		}
		if rows := rg.int(3, 0); rows < 0 || rows > budget {
			return 0, inFile(name, fmt.Errorf("%w: row group %d has %d rows", ErrTooLarge, g, rows))
		}
		for i, cv := range rg.list(1) {
			cc, _ := cv.(tstruct)
			if cc == nil {
				return 0, inFile(name, fmt.Errorf("%w: row group %d, column chunk %d is not a struct", ErrFormat, g, i))
			}
			if p := cc.bytes(1); len(p) > 0 {
				return 0, inFile(name, fmt.Errorf("%w: row group %d, column chunk %d is in another file (%q), which is not supported", ErrFormat, g, i, p))
			}
			md := cc.sub(3)
			if md == nil {
				return 0, inFile(name, fmt.Errorf("%w: row group %d, column chunk %d has no metadata", ErrFormat, g, i))
			}
			start := md.int(9, -1)
			if dict := md.int(11, 0); dict != 0 {
				start = dict
			}
			n := md.int(7, -1)
			if start < 4 || n < 0 || start > footerAt || n > footerAt-start {
				return 0, inFile(name, fmt.Errorf("%w: row group %d, column chunk %d claims %d bytes at byte %d of a file whose data ends at byte %d", ErrFormat, g, i, n, start, footerAt))
			}
			if u := md.int(6, 0); u < 0 || u > maxParquetRatio*n+1<<16 {
				return 0, inFile(name, fmt.Errorf("%w: row group %d, column chunk %d claims %d decoded bytes from %d", ErrTooLarge, g, i, u, n))
			}
			d, nv, err := checkPages(b[start : start+n])
			if err != nil {
				return 0, atByte(name, start, fmt.Errorf("%w: row group %d, column chunk %d: %v", ErrFormat, g, i, err))
			}
			decoded += d
			values += nv
			if decoded > budget || values > budget {
				return 0, inFile(name, fmt.Errorf("%w: the pages claim %d decoded bytes and %d values in a file of %d bytes", ErrTooLarge, decoded, values, size))
			}
		}
	}
	if rows := meta.int(3, 0); rows < 0 || rows > budget {
		return 0, inFile(name, fmt.Errorf("%w: %d rows", ErrTooLarge, rows))
	}
	return decoded, nil
}

// checkPages walks the page headers of a column chunk and returns the
// decoded bytes and values they claim.
func checkPages(chunk []byte) (decoded, values int64, err error) {
	for off := 0; off < len(chunk); {
		r := &thriftReader{b: chunk[off:]}
		h, err := r.readStruct(0)
		if err != nil {
			return 0, 0, fmt.Errorf("page header at byte %d: %v", off, err)
		}
		off += r.off
		comp, uncomp := h.int(3, -1), h.int(2, -1)
		if comp < 0 || comp > int64(len(chunk)-off) {
			return 0, 0, fmt.Errorf("a page of %d bytes at byte %d with %d bytes left in the chunk", comp, off, len(chunk)-off)
		}
		if uncomp < 0 || uncomp > maxParquetRatio*comp+1<<16 {
			return 0, 0, fmt.Errorf("a page of %d bytes claims %d decoded bytes", comp, uncomp)
		}
		for _, sub := range []int16{5, 7, 8} {
			if p := h.sub(sub); p != nil {
				if nv := p.int(1, 0); nv < 0 {
					return 0, 0, fmt.Errorf("a page claims %d values", nv)
				} else {
					values += nv
				}
				if sub == 8 {
					dl, rl := p.int(5, 0), p.int(6, 0)
					if dl < 0 || rl < 0 || dl+rl > comp || dl+rl > uncomp {
						return 0, 0, fmt.Errorf("a page of %d bytes claims %d bytes of levels", comp, dl+rl)
					}
				}
			}
		}
		decoded += uncomp
		off += int(comp)
	}
	return decoded, values, nil
}
