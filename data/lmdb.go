package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// LMDB is a read-only view of an LMDB database's main table, as Caffe's
// convert_imageset, convert_mnist_data and convert_cifar_data write them:
// keys in byte order, each value a serialized Datum. It reads the file
// with ReadAt, page by page, and checks every page number, offset and size
// against the file before using it, so a damaged file gives an error,
// never a panic or a huge allocation. Only the 64-bit little-endian
// layout (LMDB on amd64, arm64 and other 64-bit little-endian machines)
// is read; named sub-databases and duplicate keys, which Caffe does not
// use, are reported as unsupported.
type LMDB struct {
	name    string // as given, for errors
	f       io.ReaderAt
	closer  io.Closer
	size    int64 // file size
	psize   int64 // page size
	root    uint64
	depth   int
	entries uint64
}

// LMDB page and node layout (LMDB 0.9, 64-bit).
const (
	lmdbMagic   = 0xBEEFC0DE
	lmdbVersion = 1
	lmdbPageHdr = 16 // page number, pad, flags, lower/upper (or overflow count)
	lmdbNodeHdr = 8  // data size lo/hi (or child page), flags, key size

	lmdbPBranch   = 0x01
	lmdbPLeaf     = 0x02
	lmdbPOverflow = 0x04
	lmdbPMeta     = 0x08
	lmdbPLeaf2    = 0x20

	lmdbFBigData = 0x01
	lmdbFSubData = 0x02
	lmdbFDupData = 0x04

	lmdbInvalidPage = ^uint64(0)
	lmdbMaxDepth    = 64
)

// OpenLMDB opens the LMDB database at path: a folder holding data.mdb (as
// Caffe writes them) or the data file itself.
func OpenLMDB(path string) (*LMDB, error) {
	file := path
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		file = filepath.Join(path, "data.mdb")
	}
	f, fi, err := fsio.OpenRegular(file)
	if err != nil {
		return nil, err
	}
	db, err := openLMDB(file, f, fi.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	db.closer = f
	return db, nil
}

// openLMDB reads the meta pages of the LMDB data file in r (size bytes,
// named name in errors).
func openLMDB(name string, r io.ReaderAt, size int64) (*LMDB, error) {
	db := &LMDB{name: name, f: r, size: size}
	// The two meta pages are pages 0 and 1; the first says the page size.
	m0, err := db.readMeta(0, 0)
	if err != nil {
		return nil, err
	}
	db.psize = int64(m0.psize)
	best := m0
	if m1, err := db.readMeta(db.psize, 1); err == nil && m1.txnid > m0.txnid {
		best = m1
	}
	db.root, db.depth, db.entries = best.root, best.depth, best.entries
	if best.flags&(lmdbFDupData<<1) != 0 { // MDB_DUPSORT on the main table
		return nil, db.errAt(-1, fmt.Errorf("%w: the main table holds duplicate keys (MDB_DUPSORT), which Caffe's databases do not", ErrFormat))
	}
	if db.depth > lmdbMaxDepth {
		return nil, db.errAt(-1, fmt.Errorf("%w: B-tree depth %d", ErrFormat, db.depth))
	}
	return db, nil
}

// lmdbMeta is what a meta page says about the main table.
type lmdbMeta struct {
	psize   uint32
	flags   uint16
	depth   int
	entries uint64
	root    uint64
	txnid   uint64
}

func (db *LMDB) readMeta(off int64, n int) (lmdbMeta, error) {
	const need = lmdbPageHdr + 136
	var b [need]byte
	if _, err := db.f.ReadAt(b[:], off); err != nil {
		if errors.Is(err, io.EOF) {
			err = ErrTruncated
		}
		return lmdbMeta{}, db.errAt(off, fmt.Errorf("meta page %d: %w", n, err))
	}
	le := binary.LittleEndian
	if fl := le.Uint16(b[10:]); fl&lmdbPMeta == 0 {
		return lmdbMeta{}, db.errAt(off, fmt.Errorf("%w: page %d is not a meta page (flags %#x): not an LMDB file", ErrFormat, n, fl))
	}
	m := b[lmdbPageHdr:]
	if magic := le.Uint32(m[0:]); magic != lmdbMagic {
		if bits.ReverseBytes32(magic) == lmdbMagic {
			return lmdbMeta{}, db.errAt(off, fmt.Errorf("%w: a big-endian LMDB file, which this reader does not read", ErrFormat))
		}
		return lmdbMeta{}, db.errAt(off, fmt.Errorf("%w: bad magic %#x: not an LMDB file", ErrFormat, magic))
	}
	if v := le.Uint32(m[4:]); v != lmdbVersion {
		return lmdbMeta{}, db.errAt(off, fmt.Errorf("%w: LMDB data version %d, want %d", ErrFormat, v, lmdbVersion))
	}
	// mm_dbs[0] (the free list) at 24, mm_dbs[1] (the main table) at 72,
	// 48 bytes each: pad (the page size, in the free list's), flags,
	// depth, branch, leaf and overflow page counts, entries, root.
	psize := le.Uint32(m[24:])
	if psize < 512 || psize > 1<<16 || psize&(psize-1) != 0 {
		return lmdbMeta{}, db.errAt(off, fmt.Errorf("%w: page size %d", ErrFormat, psize))
	}
	main := m[72:]
	return lmdbMeta{
		psize:   psize,
		flags:   le.Uint16(main[4:]),
		depth:   int(le.Uint16(main[6:])),
		entries: le.Uint64(main[32:]),
		root:    le.Uint64(main[40:]),
		txnid:   le.Uint64(m[128:]),
	}, nil
}

// Close closes the file.
func (db *LMDB) Close() error {
	if db.closer == nil {
		return nil
	}
	return db.closer.Close()
}

// Len returns the number of entries the database declares.
func (db *LMDB) Len() uint64 { return db.entries }

func (db *LMDB) errAt(off int64, err error) error {
	return &Error{File: db.name, Offset: off, Record: -1, Err: err}
}

// page reads page pgno, which must carry one of the flags in want.
func (db *LMDB) page(pgno uint64, want uint16) ([]byte, error) {
	if pgno < 2 || pgno >= uint64(db.size/db.psize) {
		return nil, db.errAt(-1, fmt.Errorf("%w: page %d is outside the file (%d pages)", ErrFormat, pgno, db.size/db.psize))
	}
	off := int64(pgno) * db.psize
	p := make([]byte, db.psize)
	if _, err := db.f.ReadAt(p, off); err != nil {
		if errors.Is(err, io.EOF) {
			err = ErrTruncated
		}
		return nil, db.errAt(off, err)
	}
	if fl := binary.LittleEndian.Uint16(p[10:]); fl&want == 0 || fl&lmdbPLeaf2 != 0 {
		return nil, db.errAt(off, fmt.Errorf("%w: page %d has flags %#x, want %#x", ErrFormat, pgno, fl, want))
	}
	return p, nil
}

// nodes returns the node offsets of a branch or leaf page.
func (db *LMDB) nodes(p []byte, pgno uint64) ([]int, error) {
	le := binary.LittleEndian
	lower, upper := int(le.Uint16(p[12:])), int(le.Uint16(p[14:]))
	if lower < lmdbPageHdr || lower > upper || upper > len(p) || (lower-lmdbPageHdr)%2 != 0 {
		return nil, db.errAt(int64(pgno)*db.psize, fmt.Errorf("%w: page %d has free space [%d, %d)", ErrFormat, pgno, lower, upper))
	}
	n := (lower - lmdbPageHdr) / 2
	offs := make([]int, n)
	for i := range offs {
		o := int(le.Uint16(p[lmdbPageHdr+2*i:]))
		if o < upper || o+lmdbNodeHdr > len(p) {
			return nil, db.errAt(int64(pgno)*db.psize, fmt.Errorf("%w: page %d: node %d at offset %d", ErrFormat, pgno, i, o))
		}
		offs[i] = o
	}
	return offs, nil
}

// Walk calls fn with every key and value of the main table, in key order.
// The slices are valid only during the call. It stops at the first error
// fn returns.
func (db *LMDB) Walk(fn func(key, value []byte) error) error {
	if db.root == lmdbInvalidPage {
		return nil // an empty database
	}
	w := &lmdbWalk{visited: map[uint64]bool{}, fn: fn}
	err := db.walk(w, db.root, 0)
	seen := w.seen
	if err == nil && seen != db.entries {
		err = db.errAt(-1, fmt.Errorf("%w: %d entries found, the meta page declares %d", ErrFormat, seen, db.entries))
	}
	return err
}

// lmdbWalk is the state of one Walk.
type lmdbWalk struct {
	visited map[uint64]bool // pages read, so that no page is read twice
	seen    uint64          // records passed to fn
	fn      func(key, value []byte) error
}

func (db *LMDB) walk(w *lmdbWalk, pgno uint64, level int) error {
	if level > db.depth || level > lmdbMaxDepth {
		return db.errAt(-1, fmt.Errorf("%w: page %d lies deeper than the declared depth %d (a cycle?)", ErrFormat, pgno, db.depth))
	}
	if w.visited[pgno] {
		return db.errAt(-1, fmt.Errorf("%w: page %d is reached twice", ErrFormat, pgno))
	}
	w.visited[pgno] = true
	p, err := db.page(pgno, lmdbPBranch|lmdbPLeaf)
	if err != nil {
		return err
	}
	offs, err := db.nodes(p, pgno)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	branch := le.Uint16(p[10:])&lmdbPBranch != 0
	for i, o := range offs {
		lo, hi, flags, ksize := le.Uint16(p[o:]), le.Uint16(p[o+2:]), le.Uint16(p[o+4:]), int(le.Uint16(p[o+6:]))
		kstart := o + lmdbNodeHdr
		if kstart+ksize > len(p) {
			return db.errAt(int64(pgno)*db.psize+int64(o), fmt.Errorf("%w: page %d: node %d's key runs past the page", ErrFormat, pgno, i))
		}
		if branch {
			child := uint64(lo) | uint64(hi)<<16 | uint64(flags)<<32
			if err := db.walk(w, child, level+1); err != nil {
				return err
			}
			continue
		}
		key := p[kstart : kstart+ksize]
		dsize := int(lo) | int(hi)<<16
		dstart := kstart + ksize
		var value []byte
		switch {
		case flags&(lmdbFSubData|lmdbFDupData) != 0:
			return db.errAt(int64(pgno)*db.psize+int64(o), fmt.Errorf("%w: key %q holds a sub-database or duplicates, which Caffe's databases do not", ErrFormat, key))
		case flags&lmdbFBigData != 0:
			if dstart+8 > len(p) {
				return db.errAt(int64(pgno)*db.psize+int64(o), fmt.Errorf("%w: page %d: node %d's overflow page number runs past the page", ErrFormat, pgno, i))
			}
			value, err = db.overflow(le.Uint64(p[dstart:]), dsize)
			if err != nil {
				return err
			}
		default:
			if dstart+dsize > len(p) {
				return db.errAt(int64(pgno)*db.psize+int64(o), fmt.Errorf("%w: page %d: node %d's value (%d bytes) runs past the page", ErrFormat, pgno, i, dsize))
			}
			value = p[dstart : dstart+dsize]
		}
		w.seen++
		if err := w.fn(key, value); err != nil {
			return err
		}
	}
	return nil
}

// overflow reads a value of size bytes stored on the overflow pages that
// start at pgno.
func (db *LMDB) overflow(pgno uint64, size int) ([]byte, error) {
	first, err := db.page(pgno, lmdbPOverflow)
	if err != nil {
		return nil, err
	}
	pages := int64(binary.LittleEndian.Uint32(first[12:]))
	if pages < 1 || int64(pgno)+pages > db.size/db.psize || int64(size) > pages*db.psize-lmdbPageHdr {
		return nil, db.errAt(int64(pgno)*db.psize, fmt.Errorf("%w: overflow page %d: %d pages for a %d-byte value", ErrFormat, pgno, pages, size))
	}
	v := make([]byte, size)
	copy(v, first[lmdbPageHdr:])
	if rest := size - (len(first) - lmdbPageHdr); rest > 0 {
		off := int64(pgno+1) * db.psize
		if _, err := db.f.ReadAt(v[size-rest:], off); err != nil {
			if errors.Is(err, io.EOF) {
				err = ErrTruncated
			}
			return nil, db.errAt(off, err)
		}
	}
	return v, nil
}

// ReadLMDB reads a Caffe LMDB database of Datum records (a folder holding
// data.mdb, or the file) into samples, in key order, as Caffe's Data
// layer reads it. Every record must have the same shape; raw byte data
// gives byte samples, float_data float samples, and encoded records
// (convert_imageset --encoded) are decoded as images with o.
func ReadLMDB(path string, o ImageOptions) (*Samples, error) {
	db, err := OpenLMDB(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.samples(o)
}

// samples reads every record of the database into samples.
func (db *LMDB) samples(o ImageOptions) (*Samples, error) {
	c := datumCollector{file: db.name, o: o, records: db.Len(), limit: uint64(db.size)}
	if err := db.Walk(c.add); err != nil {
		return nil, err
	}
	return c.result()
}

func init() {
	mustRegister(Format{
		Name: "lmdb",
		Doc:  "an LMDB database of Caffe Datum records, as Caffe's convert tools write them",
		Detect: func(p string) bool {
			return exists(filepath.Join(p, "data.mdb")) || (strings.HasSuffix(p, ".mdb") && exists(p))
		},
		Read: samplesOf(func(p string, o ReadOptions) (*Samples, error) { return ReadLMDB(p, o.Image) }),
	})
}
