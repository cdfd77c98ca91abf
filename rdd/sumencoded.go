package rdd

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/sparknet-go/sparknet/ndarray"
)

// PartitionVector is what a task of SumEncoded returns.
type PartitionVector struct {
	// Values is the partition's vector, with as many values as SumEncoded
	// was given, each already one the encoding represents exactly
	// (ndarray.Encoding.Round): they are summed as they are.
	Values []float32
	// Value is the task's own small result, returned per partition as
	// RunPartitions returns results; under an SPMD engine it crosses
	// processes, so its type must be registered (Register).
	Value any
}

// EncodedSum is what SumEncoded returns.
type EncodedSum struct {
	// Sum is the sum of the partitions' vectors, after finish.
	Sum []float32
	// Values holds the tasks' values in partition order.
	Values []any
	// ReduceTime is how long the sum took once the tasks were done: the
	// communication part of the action.
	ReduceTime time.Duration
	// BytesSent counts the encoded bytes this process sent to the others
	// (0 under a local master): its partitions' pieces to the processes
	// that sum them, and its piece of the sum to every other process.
	BytesSent int64
}

// SumEncoded runs f once for every partition, on the worker that holds
// it, and sums the vectors of n float32 values the tasks return, moving
// them between processes in a compact encoding (bfloat16, float16 or
// sparse). It is the reduce of data-parallel training with compressed
// updates: every replica sends its rounded (or sparsified) change of the
// weights, and every process gets the sum, which finish rounds again
// before it is shared.
//
// finish(lo, sum) receives the sum of positions lo to lo+len(sum) of the
// vector and must leave in it values the encoding represents exactly; it
// may keep what it rounded away, per position, for the next call (error
// feedback). It is called once per position, with the same positions on
// every run of the same processes.
//
// Under a local master the vectors are added in partition order and
// finish sees the whole sum. Under an SPMD engine the vector is cut into
// one piece per process: every process sends each piece of its
// partitions' vectors, encoded, to the process that owns the piece
// (Alltoall), which adds the partitions' pieces in partition order,
// calls finish on its piece, and sends it, encoded, to all
// (Allgather). Every value is thus added in partition order whatever the
// number of processes, so every engine gets the sum of a local master bit
// for bit, and each process sends about twice its pieces' encoded size
// instead of the float32 vector.
func (r *RDD) SumEncoded(ctx context.Context, n int, enc ndarray.Encoding, f func(tc *TaskContext) (PartitionVector, error), finish func(lo int, sum []float32)) (*EncodedSum, error) {
	if f == nil || enc == nil || finish == nil {
		return nil, fmt.Errorf("rdd: SumEncoded: nil function or encoding")
	}
	if n < 0 {
		return nil, fmt.Errorf("rdd: SumEncoded: %d values", n)
	}
	var mu sync.Mutex
	held := map[int][]float32{} // this process's partitions
	values, err := r.runEach(ctx, "SumEncoded", func(tc *TaskContext) (any, error) {
		pv, err := f(tc)
		if err != nil {
			return nil, err
		}
		if len(pv.Values) != n {
			return nil, fmt.Errorf("rdd: SumEncoded: partition %d returned %d values, want %d", tc.info.Partition, len(pv.Values), n)
		}
		mu.Lock()
		held[tc.info.Partition] = pv.Values
		mu.Unlock()
		return pv.Value, nil
	})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res := &EncodedSum{Values: values}
	c := r.sc.Comm()
	if c == nil {
		res.Sum = make([]float32, n)
		for p := 0; p < r.nparts; p++ {
			if v, ok := held[p]; ok {
				addTo(res.Sum, v)
			}
		}
		finish(0, res.Sum)
		for i := range res.Sum {
			res.Sum[i] += 0 // -0 becomes 0, as decoding makes it under SPMD
		}
	} else if res.Sum, res.BytesSent, err = sumEncodedSPMD(c, r.nparts, n, enc, held, finish); err != nil {
		return nil, fmt.Errorf("rdd: SumEncoded: %w", err)
	}
	res.ReduceTime = time.Since(start)
	return res, nil
}

func addTo(sum, v []float32) {
	for i, x := range v {
		sum[i] += x
	}
}

// EncodedPiece returns the positions [lo, hi) of the piece of an n-value
// vector that rank owns among size ranks in SumEncoded.
func EncodedPiece(n, rank, size int) (lo, hi int) {
	return rank * n / size, (rank + 1) * n / size
}

// sumEncodedSPMD is SumEncoded's reduce across processes.
func sumEncodedSPMD(c Comm, nparts, n int, enc ndarray.Encoding, held map[int][]float32, finish func(int, []float32)) ([]float32, int64, error) {
	size, me := c.Size(), c.Rank()
	var sent int64
	// Every piece of every partition held here goes to its owner:
	// uvarint partition, uvarint length, the encoded piece.
	out := make([][]byte, size)
	for p := 0; p < nparts; p++ {
		v, ok := held[p]
		if !ok {
			continue
		}
		for j := range out {
			lo, hi := EncodedPiece(n, j, size)
			b := enc.Encode(nil, v[lo:hi])
			out[j] = binary.AppendUvarint(out[j], uint64(p))
			out[j] = binary.AppendUvarint(out[j], uint64(len(b)))
			out[j] = append(out[j], b...)
		}
	}
	for j, b := range out {
		if j != me {
			sent += int64(len(b))
		}
	}
	in, err := c.Alltoall(out)
	if err != nil {
		return nil, sent, err
	}
	lo, hi := EncodedPiece(n, me, size)
	pieces := make([][]byte, nparts)
	for from, b := range in {
		for len(b) > 0 {
			p, k := binary.Uvarint(b)
			if k <= 0 || p >= uint64(nparts) {
				return nil, sent, fmt.Errorf("rank %d sent a bad partition number", from)
			}
			b = b[k:]
			m, k := binary.Uvarint(b)
			if k <= 0 || m > uint64(len(b)-k) {
				return nil, sent, fmt.Errorf("rank %d sent a piece of partition %d cut short", from, p)
			}
			pieces[p] = b[k : k+int(m)]
			b = b[k+int(m):]
		}
	}
	mine := make([]float32, hi-lo)
	for p, b := range pieces {
		if b == nil {
			return nil, sent, fmt.Errorf("no piece of partition %d arrived at rank %d", p, me)
		}
		if err := enc.AddDecoded(mine, b); err != nil {
			return nil, sent, fmt.Errorf("partition %d's piece: %w", p, err)
		}
	}
	finish(lo, mine)
	own := enc.Encode(nil, mine)
	sent += int64(size-1) * int64(len(own))
	all, err := c.Allgather(own)
	if err != nil {
		return nil, sent, err
	}
	sum := make([]float32, n)
	for j, b := range all {
		lo, hi := EncodedPiece(n, j, size)
		if err := enc.AddDecoded(sum[lo:hi], b); err != nil {
			return nil, sent, fmt.Errorf("rank %d's piece of the sum: %w", j, err)
		}
	}
	return sum, sent, nil
}
