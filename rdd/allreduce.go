package rdd

import (
	"fmt"

	"github.com/sparknet-go/sparknet/ndarray"
)

// directAllreduce is the size from which an array is summed in its own
// call, in place when it is contiguous; smaller arrays share one call.
const directAllreduce = 1 << 16

// AllreduceWeights replaces every array of w, in place, with its sum over
// the ranks of c: after it returns, every rank holds the same sums. Every
// rank passes a collection with the same layers and shapes; divide by
// c.Size() for the average. A nil c (a local master, see Context.Comm)
// leaves w as it is.
//
// Large contiguous arrays are summed where they lie; the others are
// packed into one buffer, so that a net with many small blobs costs one
// collective for all of them.
func AllreduceWeights(c Comm, w *ndarray.WeightCollection) error {
	if c == nil || w == nil {
		return nil
	}
	var small []*ndarray.Array
	packed := 0
	for _, layer := range w.Layers() {
		for i, a := range w.Get(layer) {
			n := a.Size()
			if n < directAllreduce {
				small = append(small, a)
				packed += n
				continue
			}
			if err := allreduceArray(c, a); err != nil {
				return fmt.Errorf("rdd: AllreduceWeights: layer %q array %d (%d values): %w", layer, i, n, err)
			}
		}
	}
	if len(small) == 0 {
		return nil
	}
	buf := make([]float32, 0, packed)
	for _, a := range small {
		buf = append(buf, a.Contiguous().Data()...)
	}
	if err := c.AllreduceFloat32Sum(buf); err != nil {
		return fmt.Errorf("rdd: AllreduceWeights: %d arrays packed in %d values: %w", len(small), packed, err)
	}
	for _, a := range small {
		n := a.Size()
		a.CopyFrom(ndarray.FromSlice(buf[:n:n], a.Shape()...))
		buf = buf[n:]
	}
	return nil
}

// allreduceArray sums one array over the ranks, in place.
func allreduceArray(c Comm, a *ndarray.Array) error {
	if a.IsContiguous() {
		return c.AllreduceFloat32Sum(a.Data())
	}
	tmp := a.Copy()
	if err := c.AllreduceFloat32Sum(tmp.Data()); err != nil {
		return err
	}
	a.CopyFrom(tmp)
	return nil
}
