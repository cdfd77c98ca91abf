package rdd

import (
	"fmt"

	"github.com/sparknet-go/sparknet/data"
)

// block is one computed partition: a list of elements, or, in an RDD of
// samples, a typed sample set whose elements are its data.Sample views.
// Blocks may be cached and shared, so they are never modified once made.
// The fields are exported so that blocks can be encoded.
type block struct {
	Elems   []any
	Samples *data.Samples
}

// Len is the number of elements.
func (b block) Len() int {
	if b.Samples != nil {
		return b.Samples.N
	}
	return len(b.Elems)
}

// elements returns the elements as a list; samples are boxed as
// data.Sample views.
func (b block) elements() []any {
	if b.Samples == nil {
		return b.Elems
	}
	out := make([]any, b.Samples.N)
	for i := range out {
		out[i] = b.Samples.At(i)
	}
	return out
}

// at returns element i.
func (b block) at(i int) any {
	if b.Samples != nil {
		return b.Samples.At(i)
	}
	return b.Elems[i]
}

// pick returns the elements at idx, keeping samples typed.
func (b block) pick(idx []int) (block, error) {
	if b.Samples != nil {
		s, err := b.Samples.Subset(idx)
		if err != nil {
			return block{}, fmt.Errorf("rdd: %w", err)
		}
		return block{Samples: s}, nil
	}
	out := make([]any, len(idx))
	for k, i := range idx {
		out[k] = b.Elems[i]
	}
	return block{Elems: out}, nil
}

// slice returns elements [i, j) without copying.
func (b block) slice(i, j int) block {
	if b.Samples != nil {
		return block{Samples: b.Samples.Slice(i, j)}
	}
	return block{Elems: b.Elems[i:j:j]}
}

// concatBlocks joins blocks in order. Sample blocks stay typed when all
// are samples; a single block is returned as it is.
func concatBlocks(bs []block) (block, error) {
	if len(bs) == 1 {
		return bs[0], nil
	}
	allSamples := len(bs) > 0
	for _, b := range bs {
		if b.Samples == nil {
			allSamples = false
		}
	}
	if allSamples {
		parts := make([]*data.Samples, len(bs))
		for i, b := range bs {
			parts[i] = b.Samples
		}
		s, err := data.Concat(parts...)
		if err != nil {
			return block{}, fmt.Errorf("rdd: %w", err)
		}
		return block{Samples: s}, nil
	}
	n := 0
	for _, b := range bs {
		n += b.Len()
	}
	out := make([]any, 0, n)
	for _, b := range bs {
		out = append(out, b.elements()...)
	}
	return block{Elems: out}, nil
}
