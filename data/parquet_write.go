package data

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"

	"github.com/parquet-go/parquet-go"
)

// WriteParquet writes samples to a Parquet file that Spark, pandas and
// DuckDB read: a column "data" (each sample's bytes in C×H×W order, or a
// list of float32 values) and a column "label" (INT32 when every label is
// a whole number, else FLOAT), with the shape in the key-value metadata
// "sparknet.shape". Columns are Snappy-compressed. The file is written
// under a temporary name and renamed, so it is never seen half-written.
func WriteParquet(path string, s *Samples) error {
	if s == nil {
		return fmt.Errorf("data: WriteParquet %s: nil samples", path)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("data: WriteParquet %s: %w", path, err)
	}
	return writeFileAtomic(path, func(w io.Writer) error { return EncodeParquet(w, s) })
}

// EncodeParquet writes samples in Parquet form to w (see WriteParquet).
func EncodeParquet(w io.Writer, s *Samples) error {
	whole := true
	for _, l := range s.Labels {
		if l != float32(math.Trunc(float64(l))) || math.Abs(float64(l)) > math.MaxInt32 {
			whole = false
			break
		}
	}
	var dataNode, labelNode parquet.Node
	if s.IsFloat() {
		dataNode = parquet.List(parquet.Leaf(parquet.FloatType))
	} else {
		dataNode = parquet.Leaf(parquet.ByteArrayType)
	}
	if whole {
		labelNode = parquet.Int(32)
	} else {
		labelNode = parquet.Leaf(parquet.FloatType)
	}
	schema := parquet.NewSchema("sample", parquet.Group{"data": dataNode, "label": labelNode})
	d := s.Dim()
	// Row groups of about 8 MB of samples, which readers decode in
	// parallel.
	perSample := d
	if s.IsFloat() {
		perSample *= 4
	}
	pw := parquet.NewWriter(w, schema,
		parquet.KeyValueMetadata(ShapeKey, fmt.Sprintf("%d,%d,%d", s.C, s.H, s.W)),
		parquet.Compression(&parquet.Snappy),
		parquet.MaxRowsPerRowGroup(int64(max(1024, (8<<20)/max(perSample, 1)))),
		parquet.CreatedBy("sparknet", "", ""))
	rows := make([]parquet.Row, 0, 256)
	flush := func() error {
		_, err := pw.WriteRows(rows)
		rows = rows[:0]
		return err
	}
	for i := 0; i < s.N; i++ {
		var row parquet.Row
		if s.IsFloat() {
			row = make(parquet.Row, 0, d+1)
			for j, x := range s.Floats[i*d : (i+1)*d] {
				rep := 1
				if j == 0 {
					rep = 0
				}
				row = append(row, parquet.FloatValue(x).Level(rep, 1, 0))
			}
		} else {
			row = parquet.Row{parquet.ByteArrayValue(s.Pixels[i*d:(i+1)*d]).Level(0, 0, 0)}
		}
		if whole {
			row = append(row, parquet.Int32Value(int32(s.Labels[i])).Level(0, 0, 1))
		} else {
			row = append(row, parquet.FloatValue(s.Labels[i]).Level(0, 0, 1))
		}
		rows = append(rows, row)
		if len(rows) == cap(rows) {
			if err := flush(); err != nil {
				return fmt.Errorf("data: writing Parquet: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("data: writing Parquet: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("data: writing Parquet: %w", err)
	}
	return nil
}

// WriteParquetRows writes rows to a Parquet file, one column per field:
// rows are maps from column name to value (map[string]any), structs
// (their exported fields), or plain values (one column, "value").
// Values may be bools, integers (INT64), float32 (FLOAT), float64
// (DOUBLE), strings (STRING), []byte, or slices of numbers, bools or
// strings (LIST); every column is optional, so nil is null. Every row
// must give a column the same type. The file is written under a
// temporary name and renamed.
func WriteParquetRows(path string, rows []any) error {
	return writeFileAtomic(path, func(w io.Writer) error { return EncodeParquetRows(w, rows) })
}

// EncodeParquetRows writes rows in Parquet form to w (see
// WriteParquetRows).
func EncodeParquetRows(w io.Writer, rows []any) error {
	maps := make([]map[string]any, len(rows))
	for i, r := range rows {
		m, err := rowMap(r)
		if err != nil {
			return fmt.Errorf("data: writing Parquet: row %d: %w", i, err)
		}
		maps[i] = m
	}
	// Each column's type is that of its first non-nil value.
	types := map[string]reflect.Type{}
	var names []string
	for _, m := range maps {
		for k, v := range m {
			if _, seen := types[k]; !seen {
				names = append(names, k)
				types[k] = nil
			}
			if v != nil && types[k] == nil {
				types[k] = reflect.TypeOf(v)
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("data: writing Parquet: no columns (no rows, or rows without fields)")
	}
	group := parquet.Group{}
	cols := make([]parquetCol, len(names))
	for i, name := range names {
		t := types[name]
		if t == nil {
			return fmt.Errorf("data: writing Parquet: column %q is nil in every row, so it has no type", name)
		}
		node, elem, list, err := nodeFor(t)
		if err != nil {
			return fmt.Errorf("data: writing Parquet: column %q: %w", name, err)
		}
		group[name] = parquet.Optional(node)
		cols[i] = parquetCol{name: name, typ: t, elem: elem, list: list, index: i}
	}
	schema := parquet.NewSchema("row", group)
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Snappy), parquet.CreatedBy("sparknet", "", ""))
	batch := make([]parquet.Row, 0, 256)
	for i, m := range maps {
		var row parquet.Row
		for _, c := range cols {
			v := m[c.name]
			if v != nil && reflect.TypeOf(v) != c.typ {
				return fmt.Errorf("data: writing Parquet: row %d, column %q: %T, but the column holds %v", i, c.name, v, c.typ)
			}
			row = c.appendValues(row, v)
		}
		batch = append(batch, row)
		if len(batch) == cap(batch) || i == len(maps)-1 {
			if _, err := pw.WriteRows(batch); err != nil {
				return fmt.Errorf("data: writing Parquet: %w", err)
			}
			batch = batch[:0]
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("data: writing Parquet: %w", err)
	}
	return nil
}

// parquetCol is a column of WriteParquetRows.
type parquetCol struct {
	name  string
	typ   reflect.Type
	elem  reflect.Kind // the element kind of a list
	list  bool
	index int
}

// appendValues adds the column's values for v (nil: null).
func (c parquetCol) appendValues(row parquet.Row, v any) parquet.Row {
	if !c.list {
		if v == nil {
			return append(row, parquet.NullValue().Level(0, 0, c.index))
		}
		return append(row, scalarValue(reflect.ValueOf(v)).Level(0, 1, c.index))
	}
	rv := reflect.ValueOf(v)
	if v == nil || rv.IsNil() {
		return append(row, parquet.NullValue().Level(0, 0, c.index))
	}
	if rv.Len() == 0 {
		return append(row, parquet.NullValue().Level(0, 1, c.index))
	}
	for j := 0; j < rv.Len(); j++ {
		rep := 1
		if j == 0 {
			rep = 0
		}
		row = append(row, scalarValue(rv.Index(j)).Level(rep, 2, c.index))
	}
	return row
}

// scalarValue converts a Go value to a Parquet value.
func scalarValue(v reflect.Value) parquet.Value {
	switch v.Kind() {
	case reflect.Bool:
		return parquet.BooleanValue(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return parquet.Int64Value(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return parquet.Int64Value(int64(v.Uint()))
	case reflect.Float32:
		return parquet.FloatValue(float32(v.Float()))
	case reflect.Float64:
		return parquet.DoubleValue(v.Float())
	case reflect.String:
		return parquet.ByteArrayValue([]byte(v.String()))
	}
	return parquet.ByteArrayValue(v.Bytes())
}

// nodeFor returns the Parquet node of a Go type.
func nodeFor(t reflect.Type) (node parquet.Node, elem reflect.Kind, list bool, err error) {
	if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		n, _, _, err := nodeFor(t.Elem())
		if err != nil || t.Elem().Kind() == reflect.Slice {
			return nil, 0, false, fmt.Errorf("lists of %v are not supported (lists of numbers, bools and strings are)", t.Elem())
		}
		return parquet.List(n), t.Elem().Kind(), true, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return parquet.Leaf(parquet.BooleanType), 0, false, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return parquet.Int(64), 0, false, nil
	case reflect.Float32:
		return parquet.Leaf(parquet.FloatType), 0, false, nil
	case reflect.Float64:
		return parquet.Leaf(parquet.DoubleType), 0, false, nil
	case reflect.String:
		return parquet.String(), 0, false, nil
	case reflect.Slice: // []byte
		return parquet.Leaf(parquet.ByteArrayType), 0, false, nil
	}
	return nil, 0, false, fmt.Errorf("values of type %v are not supported (bools, numbers, strings, []byte and lists of those are)", t)
}

// rowMap turns a row into a map from column name to value.
func rowMap(r any) (map[string]any, error) {
	switch r := r.(type) {
	case map[string]any:
		return r, nil
	case nil:
		return nil, fmt.Errorf("a nil row")
	}
	v := reflect.ValueOf(r)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		m := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.IsExported() {
				m[f.Name] = v.Field(i).Interface()
			}
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%v has no exported fields", v.Type())
		}
		return m, nil
	}
	if v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String {
		m := map[string]any{}
		it := v.MapRange()
		for it.Next() {
			m[it.Key().String()] = it.Value().Interface()
		}
		return m, nil
	}
	return map[string]any{"value": r}, nil
}
