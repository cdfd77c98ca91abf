package caffe

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

// LayerType is everything the engine knows about a layer type, registered
// once (RegisterLayerType), in the file that implements the layer: its
// name, how many blobs it takes, whether it is a loss or reads data, how to
// make it and how its shapes follow from its input's. Every one of Caffe's
// 61 types is registered, also those sparknet cannot run (HDF5Data,
// WindowData, LSTM, ...): a net using them still parses, processes and
// summarises. Programs and shell sessions register their own types the
// same way.
type LayerType struct {
	// Name is the type string definitions use ("Convolution"); type
	// strings are case-sensitive, as in Caffe.
	Name string
	// Bottoms and Tops are the numbers of bottom and top blobs a layer of
	// the type takes, as Caffe's ExactNumBottomBlobs and friends check
	// them; the zero value allows any number.
	Bottoms, Tops BlobCount
	// Loss is set for loss layers: their first top has loss weight 1
	// unless loss_weight says otherwise, and force_backward does not reach
	// their second bottom (the labels) unless the layer allows it
	// (ForceBackwardLimiter).
	Loss bool
	// Data is set for layers that read samples from a source outside the
	// net (Data, ImageData, ...): the shapes of their tops may be unknown
	// without that source, and the shape given for their first top sets
	// the batch of their label top.
	Data bool
	// NotLearned is set for layers whose parameter blobs hold statistics
	// the layer keeps itself (BatchNorm's means and variances), not
	// weights a solver learns: they get lr_mult 0, and a definition that
	// gives another is refused.
	NotLearned bool
	// New makes a layer from its definition. It reads and checks the
	// definition's parameters and keeps them in the layer; it does not
	// allocate blobs or read files, which Setup does, because ProcessNet
	// and InferShapes make layers only to ask them about their parameter
	// blobs and shapes. Nil for a type sparknet knows but does not run.
	New LayerFactory
	// Shape is the type's shape rule (see ShapeRule). Without one,
	// InferShapes sets a layer up on blobs of its bottoms' shapes to learn
	// its tops' and parameters' shapes, and the number of its parameter
	// blobs is known only once it is set up (LayerDef.ParamsKnown false).
	Shape ShapeRule
}

// Runs reports whether sparknet can run layers of the type.
func (t LayerType) Runs() bool { return t.New != nil }

// LayerFactory makes a layer from its definition; see LayerType.New.
type LayerFactory func(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error)

// ShapeRule computes the shapes of a layer's tops and parameter blobs from
// its bottoms' shapes, checking what the layer's Setup would check. It
// reads the layer's settings from c.Layer (the layer New made, not set up)
// or, for a type without New, from c.Def. It must set c.Params to one entry
// per parameter blob even when the bottoms' shapes are unknown (nil
// entries are unknown shapes): ProcessNet calls it so, to count a layer's
// parameter blobs.
type ShapeRule func(c *ShapeContext) error

// BlobCount is how many bottom or top blobs a layer type takes. The zero
// value allows any number; Exactly, Between and AtLeast make the others.
type BlobCount struct {
	min, max int // max < 0: no upper bound
	checked  bool
}

// Exactly allows n blobs.
func Exactly(n int) BlobCount { return BlobCount{n, n, true} }

// Between allows lo to hi blobs.
func Between(lo, hi int) BlobCount { return BlobCount{lo, hi, true} }

// AtLeast allows n or more blobs.
func AtLeast(n int) BlobCount { return BlobCount{n, -1, true} }

// Allows reports whether n blobs are allowed.
func (c BlobCount) Allows(n int) bool {
	return !c.checked || n >= c.min && (c.max < 0 || n <= c.max)
}

// String says how many blobs are allowed: "exactly 1", "1 to 2", "at
// least 1" or "any number of".
func (c BlobCount) String() string {
	switch {
	case !c.checked:
		return "any number of"
	case c.min == c.max:
		return fmt.Sprintf("exactly %d", c.min)
	case c.max < 0:
		return fmt.Sprintf("at least %d", c.min)
	}
	return fmt.Sprintf("%d to %d", c.min, c.max)
}

var registry = struct {
	sync.RWMutex
	m       map[string]*LayerType
	names   []string        // sorted
	builtin map[string]bool // sparknet's own types, which ReplaceLayerType leaves alone
}{m: map[string]*LayerType{}, builtin: map[string]bool{}}

// RegisterLayerType makes a layer type available to nets. Registering a
// name twice is an error (ReplaceLayerType replaces a program's own type).
// A type without a constructor is known (nets naming it process and
// summarise) but does not run.
func RegisterLayerType(t LayerType) error { return register(t, false) }

// ReplaceLayerType registers t, replacing a type of the same name that a
// program registered before, so that a shell cell or notebook cell that
// defines a layer can run again. Nets built before keep the layers they
// made; nets built after get the new type. sparknet's own types cannot be
// replaced.
func ReplaceLayerType(t LayerType) error { return register(t, true) }

// register adds t to the registry; replace allows it to replace a type
// registered by a program.
func register(t LayerType, replace bool) error {
	what := "RegisterLayerType"
	if replace {
		what = "ReplaceLayerType"
	}
	if t.Name == "" {
		return fmt.Errorf("caffe: %s: the layer type needs a name", what)
	}
	for _, c := range []BlobCount{t.Bottoms, t.Tops} {
		if c.checked && (c.min < 0 || c.max >= 0 && c.max < c.min) {
			return fmt.Errorf("caffe: %s(%q): blob count %d to %d is not a range", what, t.Name, c.min, c.max)
		}
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[t.Name]; dup {
		switch {
		case registry.builtin[t.Name]:
			return fmt.Errorf("caffe: layer type %q is one of sparknet's and cannot be registered again; give yours another name", t.Name)
		case !replace:
			return fmt.Errorf("caffe: layer type %q registered twice (ReplaceLayerType replaces it)", t.Name)
		}
		registry.m[t.Name] = &t
		return nil
	}
	registry.m[t.Name] = &t
	i := sort.SearchStrings(registry.names, t.Name)
	registry.names = append(registry.names, "")
	copy(registry.names[i+1:], registry.names[i:])
	registry.names[i] = t.Name
	return nil
}

// RegisterLayer registers a layer type by its name and constructor alone:
// any number of blobs, no shape rule (InferShapes sets the layer up to
// learn its shapes). RegisterLayerType registers the rest.
func RegisterLayer(typ string, f LayerFactory) error {
	if f == nil {
		return fmt.Errorf("caffe: RegisterLayer(%q): nil constructor", typ)
	}
	return RegisterLayerType(LayerType{Name: typ, New: f})
}

// mustRegisterLayerType registers one of sparknet's layer types from init.
func mustRegisterLayerType(t LayerType) {
	if err := RegisterLayerType(t); err != nil {
		panic(err)
	}
	registry.Lock()
	registry.builtin[t.Name] = true
	registry.Unlock()
}

// ruleOf turns a method of a layer type into the type's shape rule: the
// method reads the settings its layer parsed.
func ruleOf[L Layer](f func(L, *ShapeContext) error) ShapeRule {
	return func(c *ShapeContext) error { return f(c.Layer.(L), c) }
}

// LayerTypes returns every registered layer type, sorted by name.
func LayerTypes() []LayerType {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]LayerType, len(registry.names))
	for i, name := range registry.names {
		out[i] = *registry.m[name]
	}
	return out
}

// LayerTypeNames returns the names of every registered layer type, sorted.
func LayerTypeNames() []string {
	registry.RLock()
	defer registry.RUnlock()
	return append([]string(nil), registry.names...)
}

// ComputedLayerTypes returns the sorted names of the layer types sparknet
// can run.
func ComputedLayerTypes() []string {
	registry.RLock()
	defer registry.RUnlock()
	var names []string
	for _, name := range registry.names {
		if registry.m[name].New != nil {
			names = append(names, name)
		}
	}
	return names
}

// LookupLayerType returns the layer type called name. For an unknown name
// the error suggests the closest known name and lists them all.
func LookupLayerType(name string) (LayerType, error) {
	registry.RLock()
	t := registry.m[name]
	registry.RUnlock()
	if t != nil {
		return *t, nil
	}
	names := LayerTypeNames()
	return LayerType{}, fmt.Errorf("caffe: unknown layer type %q%s; known types: %s",
		name, format.DidYouMean(name, names), strings.Join(names, ", "))
}

// layerTypeOf returns the type that makes and shapes the layer def
// defines: its registered type, or for a Python layer whose python_param
// names a registered type, that type (see the Python layer).
func layerTypeOf(def *caffepb.LayerParameter) (LayerType, error) {
	if def.GetType() == pythonType {
		if t, ok := pythonTarget(def); ok {
			return t, nil
		}
	}
	return LookupLayerType(def.GetType())
}

// NewLayer makes a layer from its definition through the registry. An
// unknown type, or one sparknet does not run, gives an error listing the
// types it runs.
func NewLayer(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	if env == nil {
		env = &LayerEnv{}
	}
	t, err := layerTypeOf(def)
	if err == nil && t.New == nil {
		if def.GetType() == pythonType {
			return nil, fmt.Errorf("caffe: layer %q: %w", def.GetName(), pythonUnregistered(def))
		}
		err = fmt.Errorf("sparknet does not run %s layers", t.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("caffe: layer %q: unknown or unsupported layer type %q; sparknet runs: %s",
			def.GetName(), def.GetType(), strings.Join(ComputedLayerTypes(), ", "))
	}
	l, err := t.New(def, env)
	if err != nil {
		return nil, fmt.Errorf("caffe: layer %q (%s): %w", def.GetName(), def.GetType(), err)
	}
	if l == nil {
		return nil, fmt.Errorf("caffe: layer %q (%s): the constructor returned no layer", def.GetName(), def.GetType())
	}
	return l, nil
}
