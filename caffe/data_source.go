package caffe

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
)

// Caffe's Data layer reads its data_param.source through package data's
// registry of formats, the one rdd's sc.Read uses: "KIND:PATH" (such as
// "mnist:/data/mnist" or "parquet:out/train") or a bare path that one
// format detects. The layer reads the training split in the TRAIN phase
// and the test split in the TEST phase (formats without splits, such as
// LMDB, read the same data in both). A new format registers itself with
// data.RegisterFormat and Data layers read it.

// DataSources returns the sorted names of the formats a Data layer can
// read: those of package data that give samples.
func DataSources() []string {
	var names []string
	for _, name := range data.Formats() {
		if f, _ := data.LookupFormat(name); !f.RowsOnly {
			names = append(names, name)
		}
	}
	return names
}

// SplitDataSources returns the sorted names of the formats whose paths
// hold both a training and a test split, which can stand for a whole data
// set (as sparknet's --data flag wants).
func SplitDataSources() []string {
	var names []string
	for _, name := range DataSources() {
		if f, _ := data.LookupFormat(name); f.Splits {
			names = append(names, name)
		}
	}
	return names
}

// describeDataSources lists the formats with their docs for error
// messages.
func describeDataSources() string {
	var parts []string
	for _, name := range DataSources() {
		f, _ := data.LookupFormat(name)
		parts = append(parts, fmt.Sprintf("%s (%s)", name, f.Doc))
	}
	return strings.Join(parts, ", ")
}

// SplitDataSource splits a Data layer source "KIND:PATH" into a registered
// format and a path; for anything else it returns "" and the source.
func SplitDataSource(source string) (kind, path string) {
	kind, path = data.SplitSpec(source)
	if f, ok := data.LookupFormat(kind); ok && f.RowsOnly {
		return "", source
	}
	return kind, path
}

// samplesCache keeps the data sets Data layers have read, so that a train
// net and its test nets, or many nets built in one process, read each file
// once. Samples are read-only once loaded.
var samplesCache = struct {
	sync.Mutex
	m map[string]*data.Samples
}{m: map[string]*data.Samples{}}

// LoadDataSource reads a data set as a Data layer whose data_param.source
// is source reads it: "KIND:PATH" or a path whose kind is detected; train
// picks the training split of kinds that have two.
func LoadDataSource(source string, train bool) (*data.Samples, error) {
	return loadSource(source, "", caffepb.DataParameter_LEVELDB, train)
}

// ImageMean returns the mean of the samples, value by value, as the
// 1×C×H×W BlobProto that Caffe's compute_image_mean writes and that
// transform_param.mean_file reads.
func ImageMean(s *data.Samples) (*caffepb.BlobProto, error) {
	if s == nil || s.N == 0 {
		return nil, fmt.Errorf("caffe: ImageMean of no samples")
	}
	size := s.C * s.H * s.W
	sum := make([]float64, size)
	for i := 0; i < s.N; i++ {
		if s.Pixels != nil {
			for j, v := range s.Pixels[i*size : (i+1)*size] {
				sum[j] += float64(v)
			}
		} else {
			for j, v := range s.Floats[i*size : (i+1)*size] {
				sum[j] += float64(v)
			}
		}
	}
	mean := make([]float32, size)
	for j, v := range sum {
		mean[j] = float32(v / float64(s.N))
	}
	return &caffepb.BlobProto{
		Num: proto.Int32(1), Channels: proto.Int32(int32(s.C)), Height: proto.Int32(int32(s.H)), Width: proto.Int32(int32(s.W)),
		Data: mean,
	}, nil
}

// loadSource reads the split of a Data layer's source, resolving a
// relative path against the working directory, then against dir.
func loadSource(source, dir string, backend caffepb.DataParameter_DB, train bool) (*data.Samples, error) {
	if k, _ := data.SplitSpec(source); k != "" {
		if f, _ := data.LookupFormat(k); f.RowsOnly {
			return nil, fmt.Errorf("data source %q: the %s format holds %s, not samples; a Data layer reads %s", source, k, f.Doc, describeDataSources())
		}
	}
	kind, path := SplitDataSource(source)
	if path == "" {
		return nil, fmt.Errorf("data_param.source is empty; give \"KIND:PATH\" with KIND one of %s", describeDataSources())
	}
	// A relative path is relative to the working directory, as in Caffe
	// (whose examples run from Caffe's root), or else to the folder of
	// the net's definition.
	if !filepath.IsAbs(path) && dir != "" && !exists(path) {
		path = filepath.Join(dir, path)
	}
	if kind == "" {
		var err error
		if kind, err = detectSource(source, path, backend); err != nil {
			return nil, err
		}
	}
	split := "test"
	if train {
		split = "train"
	}
	key := kind + "\x00" + split + "\x00" + path
	if abs, err := filepath.Abs(path); err == nil {
		key = kind + "\x00" + split + "\x00" + abs
	}
	samplesCache.Lock()
	defer samplesCache.Unlock()
	if s := samplesCache.m[key]; s != nil {
		return s, nil
	}
	s, err := data.ReadSamples(kind+":"+path, data.ReadOptions{Split: split})
	if err != nil {
		return nil, fmt.Errorf("reading the %s split of %s data set %s: %w", split, kind, path, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s data set %s: %w", kind, path, err)
	}
	if s.N == 0 {
		return nil, fmt.Errorf("the %s split of %s data set %s is empty", split, kind, path)
	}
	samplesCache.m[key] = s
	return s, nil
}

// detectSource finds the kind of data set at path, or explains why none
// fits: databases Caffe writes (LMDB, LevelDB) are named as such.
func detectSource(source, path string, backend caffepb.DataParameter_DB) (string, error) {
	hint := fmt.Sprintf("sparknet's Data layer reads %s; name one as source: \"KIND:PATH\", or give --data=KIND=DIR to sparknet", describeDataSources())
	if _, err := os.Stat(path); err != nil {
		db := ""
		if strings.Contains(strings.ToLower(source), "lmdb") || backend == caffepb.DataParameter_LMDB {
			db = " (an LMDB database)"
		} else if strings.Contains(strings.ToLower(source), "leveldb") {
			db = " (a LevelDB database)"
		}
		return "", fmt.Errorf("data source %q%s: %s not found; %s", source, db, path, hint)
	}
	if name, err := data.DetectFormat(path); err == nil && slices.Contains(DataSources(), name) {
		return name, nil
	}
	return "", fmt.Errorf("data source %q: no known kind of data set at %s; %s", source, path, hint)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
