package sparknet

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// Compression is how replicas report a round to the trainer: the zero
// value sends their weights in float32, as SparkNet does. Otherwise every
// replica sends the change of its weights since the round's broadcast,
// compressed, and the sum of the changes comes back compressed too:
//
//   - CompressBFloat16 and CompressFloat16 round every value of the change
//     to 16 bits, halving the bytes;
//   - CompressTopK(f) keeps only the fraction f of the values largest in
//     magnitude, sent with their positions (about 6 to 9 bytes each).
//
// Both keep what they leave out, per replica and per value, and add it to
// the change of the next round (error feedback), so nothing is lost, only
// delayed; the sum is rounded the same way, with its own error feedback.
// Snapshots keep every error-feedback vector, so resuming stays exact.
// Under MPI the changes cross processes in their compressed form
// (rdd.SumEncoded: an Alltoall of pieces and an Allgather of the summed
// pieces), and every process gets the same sum, bit for bit that of a
// local master.
type Compression struct {
	// Encoding rounds the values sent: ndarray.BFloat16 or
	// ndarray.Float16; nil with TopK (the kept values go in float32).
	Encoding ndarray.Encoding
	// TopK is the fraction of each replica's change sent, 0 < TopK < 1;
	// 0 sends every value.
	TopK float64
}

// CompressBFloat16 sends the replicas' changes in bfloat16.
func CompressBFloat16() Compression { return Compression{Encoding: ndarray.BFloat16} }

// CompressFloat16 sends the replicas' changes in IEEE half precision.
func CompressFloat16() Compression { return Compression{Encoding: ndarray.Float16} }

// CompressTopK sends the fraction of each replica's change largest in
// magnitude (0.01: one value in a hundred).
func CompressTopK(fraction float64) Compression { return Compression{TopK: fraction} }

// ParseCompression reads a compression's name as String writes it:
// "none", "bfloat16" (or "bf16"), "float16" ("fp16"), "top-1%" or
// "topk=0.01".
func ParseCompression(s string) (Compression, error) {
	switch s {
	case "", "none", "float32":
		return Compression{}, nil
	case "bfloat16", "bf16":
		return CompressBFloat16(), nil
	case "float16", "fp16":
		return CompressFloat16(), nil
	}
	var f float64
	var err error
	if pct, ok := cutAffixes(s, "top-", "%"); ok {
		f, err = strconv.ParseFloat(pct, 64)
		f /= 100
	} else if v, ok := cutAffixes(s, "topk=", ""); ok {
		f, err = strconv.ParseFloat(v, 64)
	} else {
		return Compression{}, fmt.Errorf("sparknet: unknown compression %q: none, bfloat16, float16, top-P%% (top-1%%) or topk=F (topk=0.01)", s)
	}
	c := CompressTopK(f)
	if err == nil && !(f > 0 && f < 1) {
		err = fmt.Errorf("the fraction kept must be above 0 and below 1 (top-1%%, topk=0.01), not %g", f)
	}
	if err != nil {
		return Compression{}, fmt.Errorf("sparknet: compression %q: %w", s, err)
	}
	return c, nil
}

func cutAffixes(s, prefix, suffix string) (string, bool) {
	if len(s) < len(prefix)+len(suffix) || s[:len(prefix)] != prefix || s[len(s)-len(suffix):] != suffix {
		return "", false
	}
	return s[len(prefix) : len(s)-len(suffix)], true
}

// Enabled reports whether the replicas send compressed changes.
func (c Compression) Enabled() bool { return c.Encoding != nil || c.TopK != 0 }

// String names the compression: "none", "bfloat16", "float16" or
// "top-1%".
func (c Compression) String() string {
	switch {
	case c.TopK != 0:
		return "top-" + strconv.FormatFloat(100*c.TopK, 'g', -1, 64) + "%"
	case c.Encoding != nil:
		return c.Encoding.String()
	}
	return "none"
}

func (c Compression) check() error {
	if c.TopK != 0 {
		if !(c.TopK > 0 && c.TopK < 1) {
			return fmt.Errorf("the top-k fraction must be above 0 and below 1 (0.01 keeps one value in a hundred), not %g", c.TopK)
		}
		if c.Encoding != nil && c.Encoding != ndarray.Sparse {
			return fmt.Errorf("top-k sends its values in float32 (sparse), not %s", c.Encoding)
		}
		return nil
	}
	if c.Encoding != nil && c.Encoding != ndarray.BFloat16 && c.Encoding != ndarray.Float16 {
		return fmt.Errorf("the encoding of the changes is ndarray.BFloat16 or ndarray.Float16, not %s (top-k: CompressTopK)", c.Encoding)
	}
	return nil
}

// encoding returns the wire encoding of the changes.
func (c Compression) encoding() ndarray.Encoding {
	if c.TopK != 0 {
		return ndarray.Sparse
	}
	return c.Encoding
}

// keep returns how many of n values a replica sends (top-k).
func (c Compression) keep(n int) int { return max(1, int(math.Round(c.TopK*float64(n)))) }

// flatten copies the values of a collection into dst, layer by layer.
func flatten(dst []float32, w *ndarray.WeightCollection) []float32 {
	dst = dst[:0]
	for _, name := range w.Layers() {
		for _, a := range w.Get(name) {
			dst = append(dst, a.Data()...)
		}
	}
	return dst
}

// unflatten copies a flat vector into the collection's arrays.
func unflatten(w *ndarray.WeightCollection, src []float32) {
	for _, name := range w.Layers() {
		for _, a := range w.Get(name) {
			d := a.Data()
			copy(d, src)
			src = src[len(d):]
		}
	}
}

// compressedTask runs one round on one partition and returns the
// replica's compressed change: its weights less the round's broadcast
// weights, plus what earlier rounds left out (error feedback), rounded or
// sparsified; what this round leaves out is kept for the next.
func (t *Trainer) compressedTask(tc *rdd.TaskContext) (rdd.PartitionVector, error) {
	res, err := t.trainTask(tc)
	if err != nil {
		return rdd.PartitionVector{}, err
	}
	v, _ := tc.Store().Lookup(t.replicaKey(tc.Partition()))
	r := v.(*replica)
	msg := t.current()
	n := t.weights.NumParams()
	if r.residual == nil {
		r.residual = make([]float32, n)
	}
	if len(r.send) != n {
		r.send = make([]float32, n)
	}
	// The change, with what is owed, accumulates in the residual, layer
	// by layer; what is sent of it is taken out again below.
	x, off := r.residual, 0
	for _, name := range r.weights.Layers() {
		ws, bs := r.weights.Get(name), msg.Weights.Get(name)
		if len(ws) != len(bs) {
			return rdd.PartitionVector{}, fmt.Errorf("partition %d: layer %s has %d blobs, the broadcast weights %d", tc.Partition(), name, len(ws), len(bs))
		}
		for j, a := range ws {
			xd, bd := a.Data(), bs[j].Data()
			if len(xd) != len(bd) || off+len(xd) > n {
				return rdd.PartitionVector{}, fmt.Errorf("partition %d: layer %s's blob %d does not match the broadcast weights", tc.Partition(), name, j)
			}
			dst := x[off : off+len(xd)]
			for i := range dst {
				dst[i] += xd[i] - bd[i]
			}
			off += len(xd)
		}
	}
	// The replica's buffer is read by the sum after the task and not
	// again before the next round.
	send := r.send
	copy(send, x)
	c := t.opts.Compress
	if c.TopK != 0 {
		ndarray.TopK(send, c.keep(n))
	} else {
		c.Encoding.Round(send)
	}
	for i := range x {
		x[i] -= send[i]
	}
	stats := res.Value.(*partStats)
	stats.Encoded = int64(c.encoding().EncodedLen(send))
	return rdd.PartitionVector{Values: send, Value: stats}, nil
}

// reduceCompressed sums the replicas' compressed changes and hands the
// outer optimizer the sum of the weights they stand for (K times the
// broadcast weights plus the summed changes). It returns the bytes the
// round moved: every replica's change, and the sum to every replica.
func (t *Trainer) reduceCompressed(ctx context.Context) (*rdd.EncodedSum, int64, error) {
	c := t.opts.Compress
	enc := c.encoding()
	n := t.weights.NumParams()
	if c.Encoding != nil && t.sumResidual == nil {
		t.sumResidual = make([]float32, n)
	}
	finish := func(lo int, sum []float32) {
		if c.Encoding == nil {
			return // a sum of sparse vectors is sent as it is
		}
		res := t.sumResidual[lo : lo+len(sum)]
		for i, s := range sum {
			sum[i] = s + res[i]
		}
		rounded := append([]float32(nil), sum...)
		c.Encoding.Round(rounded)
		for i := range sum {
			res[i] = sum[i] - rounded[i]
		}
		copy(sum, rounded)
	}
	es, err := t.train.SumEncoded(ctx, n, enc, t.compressedTask, finish)
	if err != nil {
		return nil, 0, err
	}
	var moved int64
	for _, v := range es.Values {
		moved += v.(*partStats).Encoded
	}
	moved += int64(t.k) * int64(enc.EncodedLen(es.Sum))
	return es, moved, nil
}

// compressedSum turns the summed changes into the sum of the weights they
// stand for.
func (t *Trainer) compressedSum(changes []float32) *ndarray.WeightCollection {
	sum := t.weights.Clone()
	k := float32(t.k)
	off := 0
	for _, name := range sum.Layers() {
		for _, a := range sum.Get(name) {
			d := a.Data()
			ch := changes[off : off+len(d)]
			for i := range d {
				d[i] = float32(k*d[i]) + ch[i] // the conversion rounds: never fused
			}
			off += len(d)
		}
	}
	return sum
}

// gatherSumResidual returns the whole error-feedback vector of the sum,
// for a snapshot: under an SPMD engine every process holds its piece of
// it, which rdd gathers.
func (t *Trainer) gatherSumResidual() ([]float32, error) {
	return t.sc.GatherPieces(t.sumResidual)
}

// compressionName is the name a snapshot records ("" before compression
// existed: none).
func compressionName(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
