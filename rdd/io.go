package rdd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparknet-go/sparknet/data"
)

// Read reads a data set through package data's registry of formats and
// distributes it over numPartitions partitions (0 means
// DefaultParallelism): spec is "FORMAT:PATH", such as "mnist:DIR",
// "cifar10:DIR", "lmdb:PATH", "leveldb:PATH", "images:DIR",
// "imagelist:FILE", "csv:FILE", "parquet:FILE_OR_DIR" or
// "text:FILE_OR_DIR", or a bare path whose format is detected (see
// data.Formats). A data set of samples becomes an RDD of samples; other
// records an RDD of them (text lines as strings, Parquet rows without a
// column of sample data as map[string]any). MNIST and CIFAR-10 give
// their training split; ReadWith picks the split and sets the formats'
// options. The file is read now, so that its errors show at once.
func (sc *Context) Read(spec string, numPartitions int) (*RDD, error) {
	return sc.ReadWith(spec, data.ReadOptions{}, numPartitions)
}

// ReadWith is Read with options: the split ("train" or "test") and the
// options of image, CSV and Parquet formats.
func (sc *Context) ReadWith(spec string, o data.ReadOptions, numPartitions int) (*RDD, error) {
	if _, err := sc.partitionsOrDefault("Read", numPartitions); err != nil {
		return nil, err
	}
	d, err := data.Read(spec, o)
	if err != nil {
		return nil, err
	}
	op := "Read " + d.Format
	if d.Samples != nil {
		return sc.ParallelizeSamples(d.Samples, numPartitions).setOp(op), nil
	}
	return sc.Parallelize(d.Rows, numPartitions).setOp(op), nil
}

// SaveAsTextFile writes the RDD as a folder of text files, as Spark
// does: part-00000, part-00001, ... (one per partition, written by the
// worker that holds it, each element on a line as fmt.Print writes it),
// then an empty _SUCCESS file once every part is written. The folder
// must not exist yet (or be empty). sc.TextFile and data.ReadLines read
// such a folder back.
func (r *RDD) SaveAsTextFile(path string) error {
	return r.saveParts("SaveAsTextFile", path, "", func(tc *TaskContext, b block, file string) error {
		lines := make([]string, b.Len())
		for i := range lines {
			x := b.at(i)
			if s, ok := x.(string); ok {
				lines[i] = s
			} else {
				lines[i] = fmt.Sprint(x)
			}
		}
		return data.WriteLines(file, lines)
	})
}

// SaveAsParquet writes the RDD as a folder of Parquet files, as Spark
// does: part-00000.parquet, ... (one per partition, written by the
// worker that holds it), then an empty _SUCCESS file. An RDD of samples
// gives the columns data and label (see data.WriteParquet); other
// elements become rows (see data.WriteParquetRows): maps from column
// name to value, structs (their exported fields), Pairs (columns key and
// value) or plain values (column value). Empty partitions of rows write
// no file. The folder must not exist yet (or be empty). sc.Read reads it
// back ("parquet:PATH"), and so do Spark, pandas and DuckDB.
func (r *RDD) SaveAsParquet(path string) error {
	return r.saveParts("SaveAsParquet", path, ".parquet", func(tc *TaskContext, b block, file string) error {
		if b.Samples != nil {
			return data.WriteParquet(file, b.Samples)
		}
		if b.Len() == 0 {
			return nil
		}
		rows := make([]any, b.Len())
		for i := range rows {
			x := b.at(i)
			if p, ok := x.(Pair); ok {
				x = map[string]any{"key": p.Key, "value": p.Value}
			}
			rows[i] = x
		}
		return data.WriteParquetRows(file, rows)
	})
}

// saveParts writes every partition to path/part-NNNNN+ext with write,
// then path/_SUCCESS.
func (r *RDD) saveParts(action, path, ext string, write func(tc *TaskContext, b block, file string) error) error {
	if err := r.Err(); err != nil {
		return err
	}
	// Every rank looks before any creates the folder.
	err := checkEmptyDir(action, path)
	if err = r.sc.Agree(err); err != nil {
		return err
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return r.sc.Agree(fmt.Errorf("rdd: %s: %w", action, err))
	}
	if err := r.sc.Agree(nil); err != nil {
		return err
	}
	_, err = r.run(action, allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		file := filepath.Join(path, fmt.Sprintf("part-%05d%s", tc.info.Partition, ext))
		if err := write(tc, b, file); err != nil {
			return nil, fmt.Errorf("rdd: %s: %w", action, err)
		}
		return nil, nil
	})
	if err != nil {
		return err
	}
	if r.sc.IsDriver() {
		err = os.WriteFile(filepath.Join(path, "_SUCCESS"), nil, 0o644)
	}
	return r.sc.Agree(err)
}

// checkEmptyDir fails when path exists and is not an empty folder.
func checkEmptyDir(action, path string) error {
	entries, err := os.ReadDir(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		if fi, serr := os.Stat(path); serr == nil && !fi.IsDir() {
			return fmt.Errorf("rdd: %s: %s is a file; give a folder that does not exist yet", action, path)
		}
		return fmt.Errorf("rdd: %s: %w", action, err)
	case len(entries) > 0:
		names := make([]string, 0, 3)
		for _, e := range entries[:min(3, len(entries))] {
			names = append(names, e.Name())
		}
		return fmt.Errorf("rdd: %s: %s already exists and holds %s; remove it or give another folder (existing output is never overwritten)", action, path, strings.Join(names, ", "))
	}
	return nil
}
