package rdd

import (
	"encoding/binary"
	"errors"
	"math"
)

// GatherPieces returns the whole of a vector of which every process
// holds one piece, the positions EncodedPiece gives it, as SumEncoded's
// finish leaves state behind (the error feedback of a compressed sum).
// v has the whole vector's length; only this process's piece of it is
// read. Under a local master the one process holds all of v, which is
// returned as it is; under an SPMD engine the processes gather their
// pieces, and every process gets the same vector.
func (sc *Context) GatherPieces(v []float32) ([]float32, error) {
	c := sc.Comm()
	if c == nil || v == nil {
		return v, nil
	}
	n := len(v)
	lo, hi := EncodedPiece(n, c.Rank(), c.Size())
	b := make([]byte, 0, 4*(hi-lo))
	for _, x := range v[lo:hi] {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	all, err := c.Allgather(b)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	for j, piece := range all {
		lo, hi := EncodedPiece(n, j, c.Size())
		if len(piece) != 4*(hi-lo) {
			return nil, errors.New("rdd: GatherPieces: a process sent a piece of the wrong length")
		}
		for i := lo; i < hi; i++ {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(piece[4*(i-lo):]))
		}
	}
	return out, nil
}
