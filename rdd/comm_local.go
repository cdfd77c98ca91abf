package rdd

import (
	"fmt"
	"strings"
	"sync"
)

// NewLocalComms returns n communicators whose ranks are goroutines of
// this process: run each rank's driver code in its own goroutine with its
// own Comm. It is how SPMD code is tested without MPI, and it implements
// the same contract: every collective waits for every rank.
//
// AllreduceFloat32Sum is a shared-memory reduce-scatter and allgather
// between the ranks' own vectors: each rank sums its segment over all
// ranks, in rank order (so every rank gets the same bits as a sum in rank
// order), then copies the other segments from their ranks. Results
// of Broadcast and Allgather share memory between ranks and are
// read-only. Close on a rank makes it leave: collectives that need it
// then fail with an error wrapping ErrAborted instead of waiting.
func NewLocalComms(n int) ([]Comm, error) {
	if n < 1 {
		return nil, fmt.Errorf("rdd: NewLocalComms(%d): the number of ranks must be at least 1", n)
	}
	g := &localGroup{n: n, slots: make([]localDeposit, n)}
	g.cond = sync.NewCond(&g.mu)
	out := make([]Comm, n)
	for r := range out {
		out[r] = &localComm{g: g, rank: r}
	}
	return out, nil
}

// localGroup is the state the ranks of NewLocalComms share. Every
// collective is made of rounds: each rank deposits something, the last to
// arrive completes the round, and every rank reads all deposits.
type localGroup struct {
	n    int
	mu   sync.Mutex
	cond *sync.Cond

	gen     uint64         // rounds completed
	arrived int            // deposits in the current round
	slots   []localDeposit // deposits of the current round, by rank
	result  localRound     // the last completed round

	aborted *AbortError // set by Abort
	left    []int       // ranks that closed their Comm
}

// localDeposit is one rank's part of a round.
type localDeposit struct {
	op   string // the collective, for checking that ranks agree
	arg  int    // root or length, which every rank must agree on
	data any
}

// localRound is a completed round: every rank's deposit, the value the
// completing rank made from them, or the reason the ranks disagree.
type localRound struct {
	deposits []localDeposit
	shared   any
	err      error
}

// localComm is one rank of a localGroup.
type localComm struct {
	g    *localGroup
	rank int
}

var _ Comm = (*localComm)(nil)

func (c *localComm) Rank() int { return c.rank }
func (c *localComm) Size() int { return c.g.n }

// round deposits d and waits until every rank has deposited. The rank
// that completes the round calls complete (when non-nil) on the
// deposits, once, and every rank gets its result as round.shared.
func (c *localComm) round(d localDeposit, complete func([]localDeposit) any) (localRound, error) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.failure(d.op); err != nil {
		return localRound{}, err
	}
	gen := g.gen
	g.slots[c.rank] = d
	g.arrived++
	if g.arrived == g.n {
		res := localRound{deposits: g.slots}
		res.err = agreeOn(res.deposits)
		if res.err == nil && complete != nil {
			res.shared = complete(res.deposits)
		}
		g.result, g.slots, g.arrived = res, make([]localDeposit, g.n), 0
		g.gen++
		g.cond.Broadcast()
	}
	for gen == g.gen {
		if err := g.failure(d.op); err != nil {
			return localRound{}, err
		}
		g.cond.Wait()
	}
	if g.result.err != nil {
		return localRound{}, g.result.err
	}
	return g.result, nil
}

// failure reports why a collective cannot complete: an abort, or a rank
// that left. The caller holds g.mu.
func (g *localGroup) failure(op string) error {
	if g.aborted != nil {
		return g.aborted
	}
	if len(g.left) > 0 {
		return &AbortError{Rank: g.left[0], Code: 1, Msg: fmt.Sprintf("rank %d closed its communicator while other ranks called %s", g.left[0], op)}
	}
	return nil
}

// agreeOn checks that every rank made the same call.
func agreeOn(ds []localDeposit) error {
	for _, d := range ds[1:] {
		if d.op != ds[0].op || d.arg != ds[0].arg {
			parts := make([]string, len(ds))
			for r, d := range ds {
				parts[r] = fmt.Sprintf("rank %d %s(%d)", r, d.op, d.arg)
			}
			return fmt.Errorf("rdd: the ranks made different collective calls: %s", strings.Join(parts, ", "))
		}
	}
	return nil
}

func (c *localComm) Barrier() error {
	_, err := c.round(localDeposit{op: "Barrier"}, nil)
	return err
}

func (c *localComm) Broadcast(root int, data []byte) ([]byte, error) {
	if root < 0 || root >= c.g.n {
		return nil, fmt.Errorf("rdd: Broadcast root %d: ranks are 0 to %d", root, c.g.n-1)
	}
	var d localDeposit
	if c.rank == root {
		// Copied now, so root may change data once Broadcast returns.
		d.data = append([]byte(nil), data...)
	}
	d.op, d.arg = "Broadcast", root
	res, err := c.round(d, nil)
	if err != nil {
		return nil, err
	}
	if c.rank == root {
		return data, nil
	}
	return res.deposits[root].data.([]byte), nil
}

func (c *localComm) Allgather(data []byte) ([][]byte, error) {
	res, err := c.round(localDeposit{op: "Allgather", data: append([]byte(nil), data...)}, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(res.deposits))
	for r, d := range res.deposits {
		out[r] = d.data.([]byte)
	}
	return out, nil
}

func (c *localComm) Alltoall(data [][]byte) ([][]byte, error) {
	if len(data) != c.g.n {
		return nil, fmt.Errorf("rdd: Alltoall with %d parts for %d ranks", len(data), c.g.n)
	}
	parts := make([][]byte, len(data))
	for r, d := range data {
		parts[r] = append([]byte(nil), d...)
	}
	res, err := c.round(localDeposit{op: "Alltoall", data: parts}, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(res.deposits))
	for r, d := range res.deposits {
		out[r] = d.data.([][]byte)[c.rank]
	}
	return out, nil
}

func (c *localComm) AllreduceFloat32Sum(xs []float32) error {
	n, size := len(xs), c.g.n
	res, err := c.round(localDeposit{op: "AllreduceFloat32Sum", arg: n, data: xs}, nil)
	if err != nil {
		return err
	}
	vecs := make([][]float32, size)
	for r, d := range res.deposits {
		vecs[r] = d.data.([]float32)
	}
	seg := func(r int) (int, int) { return r * n / size, (r + 1) * n / size }
	// Reduce-scatter: this rank sums its own segment over all ranks, in
	// rank order, into its own vector. The others read only their own
	// segments of this vector meanwhile.
	lo, hi := seg(c.rank)
	var tmp [1024]float32
	for at := lo; at < hi; at += len(tmp) {
		t := tmp[:min(len(tmp), hi-at)]
		copy(t, vecs[0][at:])
		for _, v := range vecs[1:] {
			for i, x := range v[at : at+len(t)] {
				t[i] += x
			}
		}
		copy(xs[at:], t)
	}
	if _, err := c.round(localDeposit{op: "AllreduceFloat32Sum:reduced", arg: n}, nil); err != nil {
		return err
	}
	// Allgather: copy every other rank's summed segment from its vector.
	for r, v := range vecs {
		if r != c.rank {
			lo, hi := seg(r)
			copy(xs[lo:hi], v[lo:hi])
		}
	}
	// No rank may change its vector before all have copied from it.
	_, err = c.round(localDeposit{op: "AllreduceFloat32Sum:gathered", arg: n}, nil)
	return err
}

func (c *localComm) Abort(code int, msg string) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.aborted == nil {
		g.aborted = &AbortError{Rank: c.rank, Code: code, Msg: msg}
	}
	g.cond.Broadcast()
}

// Close makes this rank leave the group.
func (c *localComm) Close() error {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.left {
		if r == c.rank {
			return nil
		}
	}
	g.left = append(g.left, c.rank)
	g.cond.Broadcast()
	return nil
}
