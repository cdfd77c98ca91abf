package caffe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// Caffe's Python layer runs a class written in Python (pycaffe), named by
// python_param { module layer }. sparknet runs no Python: a Python layer
// runs the Go layer type registered under "module.layer" (or under
// "layer" alone), which gets the definition, python_param.param_str
// included, as any registered layer does. So a net written for a pycaffe
// layer loads once a program registers a Go implementation of it:
//
//	caffe.RegisterLayer("pyloss.EuclideanLossLayer", newEuclidean)
//
// Without one, the net still parses, processes and summarises (the
// layer's shapes are unknown), and building it says what to register.

const pythonType = "Python"

func init() {
	// No constructor and no shape rule of its own: see layerTypeOf.
	mustRegisterLayerType(LayerType{Name: pythonType})
}

// pythonNames returns the type names a Python layer's python_param may be
// registered under: "module.layer", then "layer".
func pythonNames(def *caffepb.LayerParameter) []string {
	p := def.GetPythonParam()
	module, layer := p.GetModule(), p.GetLayer()
	var names []string
	if module != "" && layer != "" {
		names = append(names, module+"."+layer)
	}
	if layer != "" {
		names = append(names, layer)
	}
	return names
}

// pythonTarget returns the registered type a Python layer runs as.
func pythonTarget(def *caffepb.LayerParameter) (LayerType, bool) {
	registry.RLock()
	defer registry.RUnlock()
	for _, name := range pythonNames(def) {
		if t := registry.m[name]; t != nil && name != pythonType {
			return *t, true
		}
	}
	return LayerType{}, false
}

// pythonUnregistered explains what to register for a Python layer.
func pythonUnregistered(def *caffepb.LayerParameter) error {
	p := def.GetPythonParam()
	names := pythonNames(def)
	if len(names) == 0 {
		return fmt.Errorf("a Python layer needs python_param { module: \"...\" layer: \"...\" } naming its class")
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return fmt.Errorf("python_param names module %q layer %q, a pycaffe class; sparknet runs no Python: register a Go layer under %s (caffe.RegisterLayer or RegisterLayerType), which gets python_param.param_str in its definition",
		p.GetModule(), p.GetLayer(), strings.Join(quoted, " or "))
}
