package caffe

import "github.com/sparknet-go/sparknet/caffe/caffepb"

// Layer is one computation of a net. The net calls Setup once with the
// layer's bottom (input) and top (output) blobs, Reshape whenever input
// shapes may have changed, Forward to compute tops from bottoms, and
// Backward to turn the tops' diffs into the bottoms' and the parameters'
// diffs. Parameter diffs accumulate (the net clears them once per
// iteration), bottom diffs are overwritten.
//
// A layer's type is registered once, in the file that implements it
// (LayerType, RegisterLayerType): its name, blob counts, whether it is a
// loss, its constructor and its shape rule. Optional abilities are
// separate interfaces found by type assertion (ParamPropagation,
// ForceBackwardLimiter).
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

// ParamPropagation is implemented by sparknet's layers. The net calls
// SetParamPropagateDown(i, false) for a parameter blob whose gradient it
// does not need (lr_mult 0), and the layer then skips computing it, as
// Caffe's set_param_propagate_down. By default every gradient is computed.
type ParamPropagation interface {
	SetParamPropagateDown(i int, propagate bool)
}

// ForceBackwardLimiter is implemented by layers that cannot propagate to
// some bottoms even when the net definition says force_backward (the
// labels of a loss, for instance), as Caffe's AllowForceBackward. Without
// it, a loss layer (LayerType.Loss) propagates to every bottom but the
// second, and other layers to every bottom.
type ForceBackwardLimiter interface {
	AllowForceBackward(bottom int) bool
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
