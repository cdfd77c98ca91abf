package data

import (
	"fmt"
	"math/rand/v2"
)

// Order is how a Batcher walks through its samples.
type Order int

const (
	// Sequential takes contiguous windows in order and wraps around at the
	// end, as Caffe's Data layer reads its database.
	Sequential Order = iota
	// Shuffle visits the samples in a new random order every epoch.
	Shuffle
	// RandomWindows picks a random window among the N/Size contiguous,
	// non-overlapping windows for every batch, as SparkNet's
	// MinibatchSampler picked minibatches from a partition.
	RandomWindows
)

func (o Order) String() string {
	switch o {
	case Sequential:
		return "Sequential"
	case Shuffle:
		return "Shuffle"
	case RandomWindows:
		return "RandomWindows"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// BatchOptions configures a Batcher.
type BatchOptions struct {
	// Size is the number of samples per batch; it must be positive.
	Size int
	// Order selects how samples are visited; the zero value is Sequential.
	Order Order
	// Seed seeds Shuffle and RandomWindows; equal seeds give equal orders.
	Seed int64
	// Transform is applied to every sample (its own Seed drives crops and
	// mirrors); the zero value copies samples unchanged.
	Transform Transform
}

// Batcher fills caller-owned buffers with minibatches from a sample set.
// After NewBatcher it allocates nothing. It is not safe for concurrent use.
type Batcher struct {
	s      *Samples
	size   int
	order  Order
	tr     *Transformer
	rng    *rand.Rand
	perm   []int // Shuffle: this epoch's order
	cursor int   // next position in the epoch
	epoch  int
}

// NewBatcher returns a Batcher over s. s must hold at least one sample.
func NewBatcher(s *Samples, o BatchOptions) (*Batcher, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if o.Size <= 0 {
		return nil, fmt.Errorf("data: batch size %d must be positive", o.Size)
	}
	if s.N == 0 {
		return nil, fmt.Errorf("data: cannot draw batches from an empty sample set")
	}
	tr, err := NewTransformer(o.Transform, s.C, s.H, s.W)
	if err != nil {
		return nil, err
	}
	seed := uint64(o.Seed)
	b := &Batcher{s: s, size: o.Size, order: o.Order, tr: tr, rng: rand.New(rand.NewPCG(seed, ^seed))}
	switch o.Order {
	case Sequential:
	case Shuffle:
		b.perm = make([]int, s.N)
		b.shuffle()
	case RandomWindows:
		if s.N < o.Size {
			return nil, fmt.Errorf("data: RandomWindows needs at least one full window: %d samples, batch size %d", s.N, o.Size)
		}
	default:
		return nil, fmt.Errorf("data: unknown batch order %d (known: Sequential, Shuffle, RandomWindows)", int(o.Order))
	}
	return b, nil
}

// shuffle draws a new permutation for the next epoch.
func (b *Batcher) shuffle() {
	for i := range b.perm {
		b.perm[i] = i
	}
	b.rng.Shuffle(len(b.perm), func(i, j int) { b.perm[i], b.perm[j] = b.perm[j], b.perm[i] })
}

// Size is the number of samples per batch.
func (b *Batcher) Size() int { return b.size }

// Shape is the shape of a batch: Size samples of the transformed shape.
func (b *Batcher) Shape() (n, c, h, w int) {
	c, h, w = b.tr.OutShape()
	return b.size, c, h, w
}

// DataLen is the length Next needs for its data buffer.
func (b *Batcher) DataLen() int { return b.size * b.tr.OutDim() }

// Epoch counts completed passes over the samples (for RandomWindows, the
// number of batches drawn divided by the number of windows).
func (b *Batcher) Epoch() int { return b.epoch }

// Next fills data (DataLen values) and labels (Size values, or nil) with
// the next batch. A shorter buffer of k samples (k×C×H×W values, with k
// labels) takes a short batch of the next k samples: a test pass over a
// partition feeds its last, partial batch this way.
func (b *Batcher) Next(data, labels []float32) error {
	od := b.tr.OutDim()
	size := len(data) / od
	if len(data)%od != 0 || size < 1 || size > b.size {
		return fmt.Errorf("data: batch needs a data buffer of %d values (or of k×%d for a short batch of k), have %d", b.DataLen(), od, len(data))
	}
	if labels != nil && len(labels) != size {
		return fmt.Errorf("data: batch of %d needs %d labels, have %d", size, size, len(labels))
	}
	switch b.order {
	case RandomWindows:
		windows := b.s.N / b.size
		k := b.rng.IntN(windows)
		b.cursor++
		if b.cursor == windows {
			b.cursor = 0
			b.epoch++
		}
		return b.s.CopyRange(data, labels, k*b.size, k*b.size+size, b.tr)
	case Sequential:
		for k := 0; k < size; {
			n := min(size-k, b.s.N-b.cursor)
			var lab []float32
			if labels != nil {
				lab = labels[k : k+n]
			}
			if err := b.s.CopyRange(data[k*od:(k+n)*od], lab, b.cursor, b.cursor+n, b.tr); err != nil {
				return err
			}
			k += n
			b.advance(n)
		}
	case Shuffle:
		for k := 0; k < size; {
			n := min(size-k, b.s.N-b.cursor)
			var lab []float32
			if labels != nil {
				lab = labels[k : k+n]
			}
			if err := b.s.CopyIndices(data[k*od:(k+n)*od], lab, b.perm[b.cursor:b.cursor+n], b.tr); err != nil {
				return err
			}
			k += n
			b.advance(n)
		}
	}
	return nil
}

// Skip draws and discards the next n batches, leaving the Batcher exactly
// where n calls of Next would (random crops and mirrors included). It lets
// a resumed run continue with the batches an uninterrupted one would see.
func (b *Batcher) Skip(n int) error {
	if n <= 0 {
		return nil
	}
	d := make([]float32, b.DataLen())
	l := make([]float32, b.size)
	for ; n > 0; n-- {
		if err := b.Next(d, l); err != nil {
			return err
		}
	}
	return nil
}

// advance moves the cursor n samples on, starting a new epoch at the end.
func (b *Batcher) advance(n int) {
	b.cursor += n
	if b.cursor == b.s.N {
		b.cursor = 0
		b.epoch++
		if b.order == Shuffle {
			b.shuffle()
		}
	}
}
