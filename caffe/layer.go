package caffe

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// Layer is one computation of a net. The net calls Setup once with the
// layer's bottom (input) and top (output) blobs, Reshape whenever input
// shapes may have changed, Forward to compute tops from bottoms, and
// Backward to turn the tops' diffs into the bottoms' and the parameters'
// diffs. Parameter diffs accumulate (the net clears them once per
// iteration), bottom diffs are overwritten.
//
// Optional abilities are separate interfaces found by type assertion (see
// LossLayer).
type Layer interface {
	// Type returns the registered type name, such as "Convolution".
	Type() string
	// Setup checks the number and shapes of the blobs, creates and fills
	// the parameter blobs (unless the net provides them) and shapes the
	// tops.
	Setup(bottom, top []*Blob) error
	// Reshape shapes the tops and internal buffers for the bottoms' shapes.
	Reshape(bottom, top []*Blob) error
	// Forward computes the tops.
	Forward(bottom, top []*Blob) error
	// Backward computes the diffs of the bottoms whose propagateDown entry
	// is true, and adds the parameters' gradients to their diffs.
	Backward(top []*Blob, propagateDown []bool, bottom []*Blob)
	// Params returns the learnable (and state) blobs, in Caffe's order.
	Params() []*Blob
}

// LossLayer is implemented by layers whose first top is a loss by default
// (Caffe's LossLayer: loss_weight 1 on top 0 unless the definition says
// otherwise).
type LossLayer interface {
	Layer
	IsLoss() bool
}

// LayerEnv is what a layer factory may need beyond its definition.
type LayerEnv struct {
	// Phase is the layer's phase (TRAIN or TEST), inherited from the net.
	Phase caffepb.Phase
	// Seed seeds the layer's random numbers (fillers, dropout masks, data
	// shuffling and cropping). Layers derive their own streams from it.
	Seed uint64
	// Threads is how many goroutines the layer's kernels may use.
	Threads int
	// Dir is the folder relative paths in the definition resolve against.
	Dir string
}

// LayerFactory makes a layer from its definition.
type LayerFactory func(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error)

var registry = struct {
	sync.RWMutex
	m map[string]LayerFactory
}{m: map[string]LayerFactory{}}

// RegisterLayer makes a layer type available to nets. Registering a type
// twice is an error.
func RegisterLayer(typ string, f LayerFactory) error {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[typ]; dup {
		return fmt.Errorf("caffe: layer type %q registered twice", typ)
	}
	registry.m[typ] = f
	return nil
}

func mustRegister(typ string, f LayerFactory) {
	if err := RegisterLayer(typ, f); err != nil {
		panic(err)
	}
}

// ComputedLayerTypes returns the sorted names of the layer types sparknet
// can run.
func ComputedLayerTypes() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for k := range registry.m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// NewLayer makes a layer from its definition through the registry. An
// unknown type gives an error listing the known ones.
func NewLayer(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	registry.RLock()
	f, ok := registry.m[def.GetType()]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("caffe: layer %q: unknown or unsupported layer type %q; sparknet runs: %s",
			def.GetName(), def.GetType(), strings.Join(ComputedLayerTypes(), ", "))
	}
	l, err := f(def, env)
	if err != nil {
		return nil, fmt.Errorf("caffe: layer %q (%s): %w", def.GetName(), def.GetType(), err)
	}
	return l, nil
}
