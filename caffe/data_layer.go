package caffe

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
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
	mustRegister("Data", newDataLayer)
	markComputed("Data")
	mustRegister("ImageData", newImageDataLayer)
	markComputed("ImageData")
}

// DataLayer is Caffe's Data layer: it reads minibatches of a data set
// (see DataSource) in file order, wrapping around at the end, transformed
// as its transform_param says (scale, mean_file, mean_value, crop_size,
// mirror). Tops: data [batch, C, H, W] and optionally label [batch].
type DataLayer struct {
	name    string
	batcher *data.Batcher
	scratch []float32 // SkipBatches writes here
	labels  []float32
}

var _ Layer = (*DataLayer)(nil)

func newDataLayer(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	dp := def.GetDataParam()
	if dp.GetBatchSize() == 0 {
		return nil, fmt.Errorf("data_param.batch_size must be positive")
	}
	train := env.Phase == caffepb.Phase_TRAIN
	s, err := loadSource(dp.GetSource(), env.Dir, dp.GetBackend(), train)
	if err != nil {
		return nil, err
	}
	if skip := dp.GetRandSkip(); skip > 0 {
		// Caffe skips a random number of samples in [0, rand_skip) once.
		r := rand.New(rand.NewPCG(env.Seed, env.Seed^0x5eed))
		if k := r.IntN(int(skip)) % s.N; k > 0 {
			if s, err = data.Concat(s.Slice(k, s.N), s.Slice(0, k)); err != nil {
				return nil, err
			}
		}
	}
	tr, err := DataTransform(def.GetTransformParam(), env.Dir, Phase(env.Phase), int64(env.Seed))
	if err != nil {
		return nil, err
	}
	b, err := data.NewBatcher(s, data.BatchOptions{Size: int(dp.GetBatchSize()), Order: data.Sequential, Transform: tr})
	if err != nil {
		return nil, err
	}
	return &DataLayer{name: def.GetName(), batcher: b}, nil
}

// DataTransform turns a TransformationParameter into the data package's
// Transform for a layer in the given phase (random crops in Train, centred
// in Test), reading mean_file (relative to dir) if it is set; seed drives
// the crops and mirrors. A nil parameter gives the identity. Code feeding
// MemoryData layers that replaced Data layers (ReplaceDataLayers) applies
// it with a data.Batcher or data.Transformer.
func DataTransform(tp *caffepb.TransformationParameter, dir string, phase Phase, seed int64) (data.Transform, error) {
	t := data.Transform{
		Scale:      tp.GetScale(),
		Mirror:     tp.GetMirror(),
		CropSize:   int(tp.GetCropSize()),
		MeanValues: tp.GetMeanValue(),
		Train:      phase == Train,
		Seed:       seed,
	}
	if f := tp.GetMeanFile(); f != "" {
		if len(t.MeanValues) > 0 {
			return t, fmt.Errorf("transform_param: give mean_file or mean_value, not both")
		}
		if !filepath.IsAbs(f) && dir != "" {
			f = filepath.Join(dir, f)
		}
		bp, err := ReadBlobProto(f)
		if err != nil {
			return t, fmt.Errorf("transform_param.mean_file: %w", err)
		}
		if len(bp.GetDoubleData()) > 0 {
			t.Mean = make([]float32, len(bp.GetDoubleData()))
			for i, v := range bp.GetDoubleData() {
				t.Mean[i] = float32(v)
			}
		} else {
			t.Mean = bp.GetData()
		}
		if len(t.Mean) == 0 {
			return t, fmt.Errorf("transform_param.mean_file %s holds no values", f)
		}
	}
	return t, nil
}

// Type returns "Data".
func (l *DataLayer) Type() string { return "Data" }

// Setup checks the tops and shapes them.
func (l *DataLayer) Setup(bottom, top []*Blob) error {
	if len(bottom) != 0 || len(top) < 1 || len(top) > 2 {
		return fmt.Errorf("Data layer takes no bottoms and 1 or 2 tops, got %d and %d", len(bottom), len(top))
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes data as [batch, C, H, W] and label as [batch].
func (l *DataLayer) Reshape(_, top []*Blob) error {
	n, c, h, w := l.batcher.Shape()
	top[0].Reshape(n, c, h, w)
	if len(top) > 1 {
		top[1].Reshape(n)
	}
	return nil
}

// Forward fills the tops with the next batch.
func (l *DataLayer) Forward(_, top []*Blob) error {
	var labels []float32
	if len(top) > 1 {
		labels = top[1].DataSlice()
	}
	return l.batcher.Next(top[0].DataSlice(), labels)
}

// Backward does nothing: data has no gradient.
func (l *DataLayer) Backward([]*Blob, []bool, []*Blob) {}

// Params returns nil.
func (l *DataLayer) Params() []*Blob { return nil }

// SkipBatches moves the layer n batches on, with the same random crops and
// mirrors as if they had been read, so that a restored solver continues
// with the batches an uninterrupted run would have used.
func (l *DataLayer) SkipBatches(n int) error {
	if l.scratch == nil {
		l.scratch = make([]float32, l.batcher.DataLen())
		l.labels = make([]float32, l.batcher.Size())
	}
	for i := 0; i < n; i++ {
		if err := l.batcher.Next(l.scratch, l.labels); err != nil {
			return err
		}
	}
	return nil
}

// Epoch returns the number of completed passes over the data set.
func (l *DataLayer) Epoch() int { return l.batcher.Epoch() }

// SetDataSources makes every Data layer of np read source ("KIND:PATH",
// such as "mnist:/data/mnist"): TRAIN-phase layers then read the training
// split and TEST-phase ones the test split. It is what sparknet's
// --data=KIND=DIR flag does.
func SetDataSources(np *caffepb.NetParameter, source string) {
	for _, l := range np.GetLayer() {
		if l.GetType() != "Data" {
			continue
		}
		if l.DataParam == nil {
			l.DataParam = &caffepb.DataParameter{}
		}
		l.DataParam.Source = &source
	}
}

// DataInput describes a Data layer that ReplaceDataLayers turned into a
// MemoryData layer, for the code that feeds it.
type DataInput struct {
	// Layer is the layer's name, for Net.MemoryDataLayer.
	Layer string
	// Tops are the layer's tops: data and, usually, label.
	Tops []string
	// BatchSize is the layer's batch size.
	BatchSize int
	// Source is the data_param.source the layer had.
	Source string
	// Include are the layer's include rules (which nets it is part of).
	Include []*caffepb.NetStateRule
	// Transform is the layer's transform_param, which the feeder must
	// apply: MemoryData gets the transformed batches. Build it into a
	// data.Transform with DataTransform.
	Transform *caffepb.TransformationParameter
}

// ReplaceDataLayers turns every Data (and ImageData) layer of np into a
// MemoryData layer with the same name, tops, include rules and batch
// size, whose data top has shape [batch, channels, height, width] (the
// shape of the samples after the layer's transform: with crop_size, the
// crop). The transform itself is removed from the definition and
// returned, so that the Go code feeding the layers (Net.MemoryDataLayer,
// MemoryData.SetFeeder) applies it. Legacy definitions are upgraded
// first.
func ReplaceDataLayers(np *caffepb.NetParameter, channels, height, width int) ([]DataInput, error) {
	if channels <= 0 || height <= 0 || width <= 0 {
		return nil, fmt.Errorf("caffe: ReplaceDataLayers: sample shape %d×%d×%d must be positive", channels, height, width)
	}
	if format.NetNeedsUpgrade(np) {
		if err := format.UpgradeNetParameter(np); err != nil {
			return nil, err
		}
	}
	var out []DataInput
	for _, l := range np.GetLayer() {
		var batch uint32
		var source string
		switch l.GetType() {
		case "Data":
			batch, source = l.GetDataParam().GetBatchSize(), l.GetDataParam().GetSource()
		case "ImageData":
			batch, source = l.GetImageDataParam().GetBatchSize(), l.GetImageDataParam().GetSource()
		default:
			continue
		}
		if batch == 0 {
			return nil, fmt.Errorf("caffe: layer %q (%s): the batch_size must be positive", l.GetName(), l.GetType())
		}
		h, w := height, width
		if c := int(l.GetTransformParam().GetCropSize()); c > 0 {
			h, w = c, c
		}
		out = append(out, DataInput{
			Layer:     l.GetName(),
			Tops:      append([]string(nil), l.Top...),
			BatchSize: int(batch),
			Source:    source,
			Include:   l.Include,
			Transform: l.TransformParam,
		})
		b, c, hh, ww := batch, uint32(channels), uint32(h), uint32(w)
		l.Type = proto.String("MemoryData")
		l.DataParam, l.ImageDataParam = nil, nil
		l.TransformParam = nil
		l.MemoryDataParam = &caffepb.MemoryDataParameter{BatchSize: &b, Channels: &c, Height: &hh, Width: &ww}
	}
	return out, nil
}

// newImageDataLayer builds Caffe's ImageData layer: the images its list
// file names (image_data_param.source, "PATH LABEL" lines; root_folder
// prepended to the paths, else the list's folder) resized to new_height ×
// new_width when given, gray unless is_color, read in list order or
// shuffled every epoch, transformed by transform_param. It runs as a
// DataLayer over the decoded images.
func newImageDataLayer(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetImageDataParam()
	if p.GetBatchSize() == 0 {
		return nil, fmt.Errorf("image_data_param.batch_size must be positive")
	}
	if (p.GetNewHeight() == 0) != (p.GetNewWidth() == 0) {
		return nil, fmt.Errorf("image_data_param: give both new_height and new_width, or neither")
	}
	list := p.GetSource()
	if list == "" {
		return nil, fmt.Errorf("image_data_param.source is empty: name a list file of \"PATH LABEL\" lines")
	}
	if !filepath.IsAbs(list) && env.Dir != "" && !exists(list) {
		list = filepath.Join(env.Dir, list)
	}
	o := data.ImageOptions{Height: int(p.GetNewHeight()), Width: int(p.GetNewWidth()), Gray: !p.GetIsColor()}
	key := fmt.Sprintf("imagedata\x00%s\x00%s\x00%d×%d/%v", list, p.GetRootFolder(), o.Height, o.Width, o.Gray)
	samplesCache.Lock()
	s := samplesCache.m[key]
	samplesCache.Unlock()
	if s == nil {
		var err error
		if s, err = data.ReadImageList(list, p.GetRootFolder(), o); err != nil {
			return nil, err
		}
		samplesCache.Lock()
		samplesCache.m[key] = s
		samplesCache.Unlock()
	}
	if skip := p.GetRandSkip(); skip > 0 {
		r := rand.New(rand.NewPCG(env.Seed, env.Seed^0x5eed))
		if k := r.IntN(int(skip)) % s.N; k > 0 {
			var err error
			if s, err = data.Concat(s.Slice(k, s.N), s.Slice(0, k)); err != nil {
				return nil, err
			}
		}
	}
	tr, err := DataTransform(def.GetTransformParam(), env.Dir, Phase(env.Phase), int64(env.Seed))
	if err != nil {
		return nil, err
	}
	order := data.Sequential
	if p.GetShuffle() {
		order = data.Shuffle
	}
	b, err := data.NewBatcher(s, data.BatchOptions{Size: int(p.GetBatchSize()), Order: order, Seed: int64(env.Seed), Transform: tr})
	if err != nil {
		return nil, err
	}
	return &DataLayer{name: def.GetName(), batcher: b}, nil
}
