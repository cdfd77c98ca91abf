package caffe

// neuron is the base of element-wise layers: one bottom, one top of the
// same shape, which may be the bottom itself (in place).
type neuron struct{ layerBase }

// Setup checks the blobs and shapes the top.
func (l *neuron) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape gives the top the bottom's shape.
func (l *neuron) Reshape(bottom, top []*Blob) error {
	if top[0] != bottom[0] {
		top[0].ReshapeLike(bottom[0])
	}
	return nil
}

// wantDown reports whether bottom 0's gradient is wanted.
func wantDown(propagateDown []bool) bool { return len(propagateDown) > 0 && propagateDown[0] }

// neuronNotInPlace is a neuron whose gradient needs its input.
type neuronNotInPlace struct{ neuron }

// Setup also rejects in-place use.
func (l *neuronNotInPlace) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}
