package caffe

import (
	"fmt"
	"sort"
	"sync"

	"github.com/sparknet-go/sparknet/caffe/format"
)

// LayerType describes a layer type that Caffe registers, by its type
// string ("Convolution", "ReLU", ...). Every one of Caffe's 61 types is
// known, also those sparknet cannot run (Python, HDF5Data, WindowData, ...):
// a net using them still parses, processes and summarises.
type LayerType struct {
	Name string
	// Loss is set for Caffe's loss layers, whose first top has loss
	// weight 1 unless loss_weight says otherwise.
	Loss bool
	// Data is set for layers that read samples from a source outside the
	// net (Data, ImageData, HDF5Data, ...): the shapes of their tops may
	// be unknown without that source.
	Data bool
	// Computed reports whether sparknet can run the layer.
	Computed bool

	bottoms, tops blobCountRange
}

// blobCountRange is the allowed number of bottoms or tops: min..max, max < 0
// meaning no upper bound; check false leaves the count to the layer.
type blobCountRange struct {
	min, max int
	check    bool
}

func countExactly(n int) blobCountRange    { return blobCountRange{n, n, true} }
func countBetween(a, b int) blobCountRange { return blobCountRange{a, b, true} }
func countAtLeast(n int) blobCountRange    { return blobCountRange{n, -1, true} }

var countUnchecked = blobCountRange{}

func (c blobCountRange) allows(n int) bool {
	return !c.check || n >= c.min && (c.max < 0 || n <= c.max)
}

func (c blobCountRange) String() string {
	switch {
	case c.min == c.max:
		return fmt.Sprintf("exactly %d", c.min)
	case c.max < 0:
		return fmt.Sprintf("at least %d", c.min)
	}
	return fmt.Sprintf("%d to %d", c.min, c.max)
}

// Blob counts follow the checks Caffe's layers make (ExactNumBottomBlobs
// and friends). Convolution-like layers take one top per bottom; the
// recurrent layers depend on expose_hidden; both are checked elsewhere.
var layerTypes = map[string]*LayerType{
	"AbsVal":                  {bottoms: countExactly(1), tops: countExactly(1)},
	"Accuracy":                {bottoms: countExactly(2), tops: countBetween(1, 2)},
	"ArgMax":                  {bottoms: countExactly(1), tops: countExactly(1)},
	"BNLL":                    {bottoms: countExactly(1), tops: countExactly(1)},
	"BatchNorm":               {bottoms: countExactly(1), tops: countExactly(1)},
	"BatchReindex":            {bottoms: countExactly(2), tops: countExactly(1)},
	"Bias":                    {bottoms: countBetween(1, 2), tops: countExactly(1)},
	"Clip":                    {bottoms: countExactly(1), tops: countExactly(1)},
	"Concat":                  {bottoms: countAtLeast(1), tops: countExactly(1)},
	"ContrastiveLoss":         {Loss: true, bottoms: countExactly(3), tops: countExactly(1)},
	"Convolution":             {bottoms: countAtLeast(1), tops: countAtLeast(1)},
	"Crop":                    {bottoms: countExactly(2), tops: countExactly(1)},
	"Data":                    {Data: true, bottoms: countExactly(0), tops: countBetween(1, 2)},
	"Deconvolution":           {bottoms: countAtLeast(1), tops: countAtLeast(1)},
	"Dropout":                 {bottoms: countExactly(1), tops: countExactly(1)},
	"DummyData":               {bottoms: countExactly(0), tops: countAtLeast(1)},
	"ELU":                     {bottoms: countExactly(1), tops: countExactly(1)},
	"Eltwise":                 {bottoms: countAtLeast(2), tops: countExactly(1)},
	"Embed":                   {bottoms: countExactly(1), tops: countExactly(1)},
	"EuclideanLoss":           {Loss: true, bottoms: countExactly(2), tops: countExactly(1)},
	"Exp":                     {bottoms: countExactly(1), tops: countExactly(1)},
	"Filter":                  {bottoms: countAtLeast(2), tops: countAtLeast(1)},
	"Flatten":                 {bottoms: countExactly(1), tops: countExactly(1)},
	"HDF5Data":                {Data: true, bottoms: countExactly(0), tops: countAtLeast(1)},
	"HDF5Output":              {bottoms: countExactly(2), tops: countExactly(0)},
	"HingeLoss":               {Loss: true, bottoms: countExactly(2), tops: countExactly(1)},
	"Im2col":                  {bottoms: countExactly(1), tops: countExactly(1)},
	"ImageData":               {Data: true, bottoms: countExactly(0), tops: countExactly(2)},
	"InfogainLoss":            {Loss: true, bottoms: countBetween(2, 3), tops: countBetween(1, 2)},
	"InnerProduct":            {bottoms: countExactly(1), tops: countExactly(1)},
	"Input":                   {bottoms: countExactly(0), tops: countAtLeast(1)},
	"LRN":                     {bottoms: countExactly(1), tops: countExactly(1)},
	"LSTM":                    {bottoms: countUnchecked, tops: countUnchecked},
	"LSTMUnit":                {bottoms: countExactly(3), tops: countExactly(2)},
	"Log":                     {bottoms: countExactly(1), tops: countExactly(1)},
	"MVN":                     {bottoms: countExactly(1), tops: countExactly(1)},
	"MemoryData":              {Data: true, bottoms: countExactly(0), tops: countExactly(2)},
	"MultinomialLogisticLoss": {Loss: true, bottoms: countExactly(2), tops: countExactly(1)},
	"PReLU":                   {bottoms: countExactly(1), tops: countExactly(1)},
	"Parameter":               {bottoms: countExactly(0), tops: countExactly(1)},
	"Pooling":                 {bottoms: countExactly(1), tops: countBetween(1, 2)},
	"Power":                   {bottoms: countExactly(1), tops: countExactly(1)},
	"Python":                  {bottoms: countUnchecked, tops: countUnchecked},
	"RNN":                     {bottoms: countUnchecked, tops: countUnchecked},
	"ReLU":                    {bottoms: countExactly(1), tops: countExactly(1)},
	"Reduction":               {bottoms: countExactly(1), tops: countExactly(1)},
	"Reshape":                 {bottoms: countExactly(1), tops: countExactly(1)},
	"SPP":                     {bottoms: countExactly(1), tops: countExactly(1)},
	"Scale":                   {bottoms: countBetween(1, 2), tops: countExactly(1)},
	"Sigmoid":                 {bottoms: countExactly(1), tops: countExactly(1)},
	"SigmoidCrossEntropyLoss": {Loss: true, bottoms: countExactly(2), tops: countExactly(1)},
	"Silence":                 {bottoms: countAtLeast(1), tops: countExactly(0)},
	"Slice":                   {bottoms: countExactly(1), tops: countAtLeast(1)},
	"Softmax":                 {bottoms: countExactly(1), tops: countExactly(1)},
	"SoftmaxWithLoss":         {Loss: true, bottoms: countExactly(2), tops: countBetween(1, 2)},
	"Split":                   {bottoms: countExactly(1), tops: countAtLeast(1)},
	"Swish":                   {bottoms: countExactly(1), tops: countExactly(1)},
	"TanH":                    {bottoms: countExactly(1), tops: countExactly(1)},
	"Threshold":               {bottoms: countExactly(1), tops: countExactly(1)},
	"Tile":                    {bottoms: countExactly(1), tops: countExactly(1)},
	"WindowData":              {Data: true, bottoms: countExactly(0), tops: countExactly(2)},
}

var (
	computedMu    sync.RWMutex
	computedTypes = map[string]bool{}
	typeNames     []string
)

func init() {
	for name, t := range layerTypes {
		t.Name = name
		typeNames = append(typeNames, name)
	}
	sort.Strings(typeNames)
}

// markComputed records that sparknet implements the layer type name. The
// files implementing layers call it from init; marking an unknown type or
// one type twice is a programming error and panics.
func markComputed(name string) {
	computedMu.Lock()
	defer computedMu.Unlock()
	if layerTypes[name] == nil {
		panic(fmt.Sprintf("caffe: markComputed(%q): not a Caffe layer type", name))
	}
	if computedTypes[name] {
		panic(fmt.Sprintf("caffe: markComputed(%q): marked twice", name))
	}
	computedTypes[name] = true
}

func (t LayerType) withComputed() LayerType {
	computedMu.RLock()
	t.Computed = computedTypes[t.Name]
	computedMu.RUnlock()
	return t
}

// LayerTypes returns every layer type Caffe registers, sorted by name.
func LayerTypes() []LayerType {
	out := make([]LayerType, len(typeNames))
	for i, name := range typeNames {
		out[i] = layerTypes[name].withComputed()
	}
	return out
}

// LayerTypeNames returns the names of every layer type Caffe registers,
// sorted.
func LayerTypeNames() []string {
	return append([]string(nil), typeNames...)
}

// LookupLayerType returns the layer type called name (type strings are
// case-sensitive, as in Caffe). For an unknown name the error suggests the
// closest known name and lists them all.
func LookupLayerType(name string) (LayerType, error) {
	if t := layerTypes[name]; t != nil {
		return t.withComputed(), nil
	}
	return LayerType{}, fmt.Errorf("caffe: unknown layer type %q%s; known types: %s",
		name, format.DidYouMean(name, typeNames), format.SortedList(typeNames))
}
