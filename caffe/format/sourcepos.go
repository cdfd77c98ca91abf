package format

import (
	"runtime"
	"sync"
	"weak"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// Where each layer of a parsed text file came from, so that errors found
// later (by ProcessNet, InferShapes) can name file:line:col. The table holds
// its layers weakly: an entry goes away when its layer is collected.
// Layers made in code, cloned, or read from binary files have no entry and
// errors name them by index and name only.

type layerSource struct {
	layer Position // the start of the layer's block
	typ   Position // the layer's type value, if given
}

var layerSources sync.Map // weak.Pointer[caffepb.LayerParameter or V1LayerParameter] -> layerSource

func rememberSource[T any](p *T, src layerSource) {
	w := weak.Make(p)
	if _, loaded := layerSources.Swap(w, src); !loaded {
		runtime.AddCleanup(p, func(w weak.Pointer[T]) { layerSources.Delete(w) }, w)
	}
}

func lookupSource[T any](p *T) (layerSource, bool) {
	if p == nil {
		return layerSource{}, false
	}
	v, ok := layerSources.Load(weak.Make(p))
	if !ok {
		return layerSource{}, false
	}
	return v.(layerSource), true
}

// LayerPos returns where a layer was defined (the zero Position if
// unknown).
func LayerPos(lp *caffepb.LayerParameter) Position {
	src, _ := lookupSource(lp)
	return src.layer
}

// sourceRecorder is a fieldHook that notes where layers and their types
// were written; commit stores the positions once parsing succeeded.
type sourceRecorder struct {
	found map[any]*layerSource
}

func newSourceRecorder() *sourceRecorder {
	return &sourceRecorder{found: map[any]*layerSource{}}
}

func (r *sourceRecorder) entry(key any) *layerSource {
	e := r.found[key]
	if e == nil {
		e = &layerSource{}
		r.found[key] = e
	}
	return e
}

func (r *sourceRecorder) hook(m protoreflect.Message, fd protoreflect.FieldDescriptor, v protoreflect.Value, name, value Position) {
	switch msg := m.Interface().(type) {
	case *caffepb.LayerParameter, *caffepb.V1LayerParameter:
		if fd.Name() == "type" {
			r.entry(msg).typ = value
		}
	}
	if fd.Message() != nil {
		switch child := v.Message().Interface().(type) {
		case *caffepb.LayerParameter, *caffepb.V1LayerParameter:
			r.entry(child).layer = name
		}
	}
}

func (r *sourceRecorder) commit() {
	for k, e := range r.found {
		switch lp := k.(type) {
		case *caffepb.LayerParameter:
			rememberSource(lp, *e)
		case *caffepb.V1LayerParameter:
			rememberSource(lp, *e)
		}
	}
}

// moveSource gives an upgraded layer the position of the legacy layer it
// came from.
func moveSource(from *caffepb.V1LayerParameter, to *caffepb.LayerParameter) {
	if src, ok := lookupSource(from); ok {
		rememberSource(to, src)
	}
}

// CopyLayerPos gives layer to the position where layer from was defined,
// for a layer made from another (a copy, a replacement).
func CopyLayerPos(from, to *caffepb.LayerParameter) {
	if src, ok := lookupSource(from); ok {
		rememberSource(to, src)
	}
}

// CloneNet deep-copies a net, keeping the positions of its layers.
func CloneNet(np *caffepb.NetParameter) *caffepb.NetParameter {
	c := proto.Clone(np).(*caffepb.NetParameter)
	copyNetPositions(np, c)
	return c
}

// CloneSolver deep-copies a solver definition, keeping the positions of
// the layers of the nets it holds inline.
func CloneSolver(sp *caffepb.SolverParameter) *caffepb.SolverParameter {
	c := proto.Clone(sp).(*caffepb.SolverParameter)
	copyNetPositions(sp.GetNetParam(), c.GetNetParam())
	copyNetPositions(sp.GetTrainNetParam(), c.GetTrainNetParam())
	for i, np := range sp.GetTestNetParam() {
		copyNetPositions(np, c.TestNetParam[i])
	}
	return c
}

// copyNetPositions gives the layers of to, a copy of from, the positions
// of from's layers.
func copyNetPositions(from, to *caffepb.NetParameter) {
	if from == nil || to == nil {
		return
	}
	for i, l := range from.GetLayer() {
		if src, ok := lookupSource(l); ok {
			rememberSource(to.Layer[i], src)
		}
	}
	for i, l := range from.GetLayers() {
		if src, ok := lookupSource(l); ok {
			rememberSource(to.Layers[i], src)
		}
	}
}
