package caffe

// The FLOP counts of a net are those of its matrix products: the
// multiply-adds of Convolution, Deconvolution and InnerProduct, each
// counting two operations (the convention of the GEMM literature and of
// Caffe's and PyTorch's FLOP counters). Forward computes the outputs;
// Backward, as the net runs it, computes the weight gradient (when the
// weights learn) and the input gradient (when a bottom wants one) with
// products of the same size. Biases, activations, pooling, normalisation
// and losses do O(1) work per value and are not counted: their time
// shows as the time of layers without FLOPs.

// flopCounter is implemented by the layers whose products the FLOP counts
// include. For the current shapes, it returns the operations of one
// Forward over the bottoms into the tops, and of one Backward that
// computes the parameter gradients the layer wants and the gradients of
// the bottoms for which down is true.
type flopCounter interface {
	flops(bottom, top []*Blob, down []bool) (forward, backward int64)
}

// LayerFLOPs returns the floating-point operations of layer i's Forward
// and of its Backward as the net runs them (0 for a layer that runs no
// Backward), counting the multiply-adds of its matrix products: those of
// Convolution, Deconvolution and InnerProduct layers. Other layers count
// 0.
func (n *Net) LayerFLOPs(i int) (forward, backward int64) {
	fc, ok := n.layers[i].(flopCounter)
	if !ok {
		return 0, 0
	}
	forward, backward = fc.flops(n.bottoms[i], n.tops[i], n.bottomNeedBackward[i])
	if !n.layerNeedBackward[i] {
		backward = 0
	}
	return forward, backward
}

// FLOPs returns the floating-point operations of a forward and of a
// backward pass of the whole net (see LayerFLOPs).
func (n *Net) FLOPs() (forward, backward int64) {
	for i := range n.layers {
		f, b := n.LayerFLOPs(i)
		forward += f
		backward += b
	}
	return forward, backward
}

// productFLOPs returns the operations of a product whose forward pass
// makes macs multiply-adds: the forward pass, and the backward pass that
// repeats a product of the same size for the weight gradient if
// weights, and for each bottom whose gradient is wanted.
func productFLOPs(macs int64, weights bool, down []bool, bottoms int) (forward, backward int64) {
	forward = 2 * macs * int64(bottoms)
	if weights {
		backward += forward
	}
	for i := range min(len(down), bottoms) {
		if down[i] {
			backward += 2 * macs
		}
	}
	return forward, backward
}

func (l *Convolution) flops(bottom, top []*Blob, down []bool) (int64, int64) {
	// Per image: numOutput filters of channels/group·kh·kw at every
	// output position.
	macs := int64(l.num) * int64(l.numOutput) * int64(l.channels/l.group*l.kh*l.kw) * int64(l.outH*l.outW)
	return productFLOPs(macs, l.paramGrad(0), down, len(bottom))
}

func (l *Deconvolution) flops(bottom, top []*Blob, down []bool) (int64, int64) {
	// Per image: every input value of a group meets numOutput/group
	// filters of kh·kw.
	macs := int64(bottom[0].Dim(0)) * int64(l.channels) * int64(l.numOutput/l.group*l.kh*l.kw) * int64(l.inH*l.inW)
	return productFLOPs(macs, l.paramGrad(0), down, len(bottom))
}

func (l *InnerProduct) flops(bottom, top []*Blob, down []bool) (int64, int64) {
	return productFLOPs(int64(l.m)*int64(l.n)*int64(l.k), l.paramGrad(0), down, 1)
}
