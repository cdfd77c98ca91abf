package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// ReadLevelDB reads a Caffe LevelDB database of Datum records (the folder
// Caffe's convert tools write with --backend=leveldb) into samples, in
// key order, as ReadLMDB does. The database is opened read-only through
// github.com/syndtr/goleveldb, which reads the files of Google's LevelDB
// (sorted tables, snappy-compressed or not, and the write-ahead log).
func ReadLevelDB(path string, o ImageOptions) (s *Samples, err error) {
	if _, err := os.Stat(filepath.Join(path, "CURRENT")); err != nil {
		return nil, inFile(path, fmt.Errorf("%w: not a LevelDB database (no CURRENT file): %v", ErrFormat, err))
	}
	defer func() {
		// A damaged database must not take the caller down.
		if v := recover(); v != nil {
			s, err = nil, inFile(path, fmt.Errorf("%w: reading the LevelDB database failed: %v", ErrFormat, v))
		}
	}()
	db, err := leveldb.OpenFile(path, &opt.Options{ReadOnly: true, ErrorIfMissing: true, Strict: opt.StrictAll})
	if err != nil {
		return nil, levelDBError(path, err)
	}
	defer db.Close()
	// LevelDB does not say how many records it holds: the samples grow
	// as they are read.
	c := datumCollector{file: path, o: o}
	it := db.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		if err := c.add(it.Key(), it.Value()); err != nil {
			return nil, err
		}
	}
	if err := it.Error(); err != nil {
		return nil, levelDBError(path, err)
	}
	return c.result()
}

// levelDBError wraps an error of the LevelDB library, marking corruption
// as a format error.
func levelDBError(path string, err error) error {
	if errors.Is(err, leveldb.ErrNotFound) || os.IsNotExist(err) {
		return inFile(path, err)
	}
	return inFile(path, fmt.Errorf("%w: %v", ErrFormat, err))
}

func init() {
	mustRegister(Format{
		Name: "leveldb",
		Doc:  "a LevelDB database of Caffe Datum records, as Caffe's convert tools write them",
		Detect: func(p string) bool {
			return exists(filepath.Join(p, "CURRENT")) && globAny(p, "MANIFEST-*")
		},
		Read: samplesOf(func(p string, o ReadOptions) (*Samples, error) { return ReadLevelDB(p, o.Image) }),
	})
}
