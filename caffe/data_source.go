package caffe

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
)

// DataSource is a kind of data set that Caffe's Data layer can read: the
// layer's data_param.source names one, either as "KIND:PATH" (such as
// "mnist:/data/mnist") or as a bare path that one kind's Detect accepts.
// The layer reads the training split in the TRAIN phase and the test split
// in the TEST phase.
type DataSource struct {
	// Doc says in a few words which files the kind expects; it appears in
	// error messages.
	Doc string
	// Detect reports whether path holds this kind of data set; nil means
	// the kind is only used when named.
	Detect func(path string) bool
	// Load reads the training (train true) or test split from path.
	Load func(path string, train bool) (*data.Samples, error)
	// OneSplit says that a path holds a single split (as an LMDB database
	// does), which Load reads whatever the phase; such a kind cannot
	// stand for a whole data set (as sparknet's --data flag wants).
	OneSplit bool
}

var dataSources = struct {
	sync.RWMutex
	m map[string]DataSource
}{m: map[string]DataSource{}}

// RegisterDataSource makes a kind of data set available to Data layers
// under name. Registering a name twice is an error.
func RegisterDataSource(name string, s DataSource) error {
	if s.Load == nil {
		return fmt.Errorf("caffe: data source %q has no Load function", name)
	}
	if name == "" || strings.ContainsAny(name, ":/\\") {
		return fmt.Errorf("caffe: data source name %q must be non-empty without ':' or slashes", name)
	}
	dataSources.Lock()
	defer dataSources.Unlock()
	if _, dup := dataSources.m[name]; dup {
		return fmt.Errorf("caffe: data source %q registered twice", name)
	}
	dataSources.m[name] = s
	return nil
}

// SplitDataSources returns the sorted names of the registered data
// sources whose paths hold both a training and a test split.
func SplitDataSources() []string {
	var names []string
	for _, name := range DataSources() {
		if s, _ := lookupDataSource(name); !s.OneSplit {
			names = append(names, name)
		}
	}
	return names
}

// DataSources returns the sorted names of the registered data sources.
func DataSources() []string {
	dataSources.RLock()
	defer dataSources.RUnlock()
	names := make([]string, 0, len(dataSources.m))
	for k := range dataSources.m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func lookupDataSource(name string) (DataSource, bool) {
	dataSources.RLock()
	defer dataSources.RUnlock()
	s, ok := dataSources.m[name]
	return s, ok
}

// describeDataSources lists the kinds with their docs for error messages.
func describeDataSources() string {
	var parts []string
	for _, name := range DataSources() {
		s, _ := lookupDataSource(name)
		parts = append(parts, fmt.Sprintf("%s (%s)", name, s.Doc))
	}
	return strings.Join(parts, ", ")
}

// SplitDataSource splits a Data layer source "KIND:PATH" into a registered
// kind and a path; for anything else it returns "" and the source.
func SplitDataSource(source string) (kind, path string) {
	if i := strings.IndexByte(source, ':'); i > 0 {
		if _, ok := lookupDataSource(source[:i]); ok {
			return source[:i], source[i+1:]
		}
	}
	return "", source
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
	ds, _ := lookupDataSource(kind)
	s, err := ds.Load(path, train)
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
	for _, name := range DataSources() {
		if ds, _ := lookupDataSource(name); ds.Detect != nil && ds.Detect(path) {
			return name, nil
		}
	}
	return "", fmt.Errorf("data source %q: no known kind of data set at %s; %s", source, path, hint)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// globAny reports whether any of the patterns matches a file in dir.
func globAny(dir string, patterns ...string) bool {
	for _, p := range patterns {
		if m, _ := filepath.Glob(filepath.Join(dir, p)); len(m) > 0 {
			return true
		}
	}
	return false
}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(RegisterDataSource("mnist", DataSource{
		Doc:    "a folder of MNIST IDX files, plain or gzipped",
		Detect: func(p string) bool { return globAny(p, "*-images-idx3-ubyte*", "*-images.idx3-ubyte*") },
		Load:   data.LoadMNIST,
	}))
	must(RegisterDataSource("cifar10", DataSource{
		Doc: "a folder of CIFAR-10 binary batches",
		Detect: func(p string) bool {
			return globAny(p, "data_batch_*.bin", "test_batch.bin", "cifar-10-batches-bin/*_batch*.bin")
		},
		Load: data.LoadCIFAR10,
	}))
	must(RegisterDataSource("lmdb", DataSource{
		Doc: "an LMDB database of Caffe Datum records, as Caffe's convert tools write them",
		Detect: func(p string) bool {
			return exists(filepath.Join(p, "data.mdb")) || (strings.HasSuffix(p, ".mdb") && exists(p))
		},
		Load:     func(p string, _ bool) (*data.Samples, error) { return data.ReadLMDB(p, data.ImageOptions{}) },
		OneSplit: true,
	}))
	must(RegisterDataSource("leveldb", DataSource{
		Doc: "a LevelDB database of Caffe Datum records, as Caffe's convert tools write them",
		Detect: func(p string) bool {
			return exists(filepath.Join(p, "CURRENT")) && globAny(p, "MANIFEST-*")
		},
		Load:     func(p string, _ bool) (*data.Samples, error) { return data.ReadLevelDB(p, data.ImageOptions{}) },
		OneSplit: true,
	}))
}
