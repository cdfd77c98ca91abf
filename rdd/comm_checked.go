package rdd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// checkedComm wraps the Comm of an SPMD engine so that ranks whose driver
// code has diverged (one closes its Context or fails alone while the
// others run a job, say) are caught at the first collective where they
// differ. Every collective starts with an Allgather that carries a
// description of the call on each rank; when the descriptions differ,
// every rank sees it at once and the job is aborted with a message that
// says what each rank was doing, instead of hanging in mismatched calls.
//
// Once the job is aborted, every call returns the abort's error.
type checkedComm struct {
	c Comm

	mu sync.Mutex // one collective at a time

	errMu sync.Mutex
	err   error // set once the job is aborted

	detail string // added to this rank's abort message, such as a stack
}

var _ Comm = (*checkedComm)(nil)

// newCheckedComm wraps c, unless it is wrapped already.
func newCheckedComm(c Comm) *checkedComm {
	if cc, ok := c.(*checkedComm); ok {
		return cc
	}
	return &checkedComm{c: c}
}

func (c *checkedComm) Rank() int { return c.c.Rank() }
func (c *checkedComm) Size() int { return c.c.Size() }

// collective is one rank's description of a collective: what must be the same
// on every rank, and a note that may differ (such as an error message).
type collective struct {
	What string
	Note string
}

func (h collective) String() string {
	if h.Note == "" {
		return h.What
	}
	return h.What + " (" + h.Note + ")"
}

// appendCall encodes h before a payload.
func appendCall(b []byte, h collective) []byte {
	b = binary.AppendUvarint(b, uint64(len(h.What)))
	b = append(b, h.What...)
	b = binary.AppendUvarint(b, uint64(len(h.Note)))
	return append(b, h.Note...)
}

// readCall decodes what appendCall wrote and returns the payload after it.
func readCall(b []byte) (collective, []byte, error) {
	var h collective
	for _, s := range []*string{&h.What, &h.Note} {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return collective{}, nil, errors.New("truncated call description")
		}
		*s = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	return h, b, nil
}

// exchange gathers h and payload from every rank, checks that every rank
// made the same call, and returns every rank's call and payload.
func (c *checkedComm) exchange(h collective, payload []byte) ([]collective, [][]byte, error) {
	if err := c.aborted(); err != nil {
		return nil, nil, err
	}
	buf := appendCall(make([]byte, 0, 16+len(h.What)+len(h.Note)+len(payload)), h)
	all, err := c.c.Allgather(append(buf, payload...))
	if err != nil {
		return nil, nil, c.failed(h.What, err)
	}
	if len(all) != c.c.Size() {
		return nil, nil, c.abort(fmt.Sprintf("rank %d: %s: Allgather returned %d parts for %d ranks", c.Rank(), h.What, len(all), c.Size()))
	}
	calls := make([]collective, len(all))
	payloads := make([][]byte, len(all))
	for r, b := range all {
		calls[r], payloads[r], err = readCall(b)
		if err != nil {
			return nil, nil, c.abort(fmt.Sprintf("rank %d: %s: the message from rank %d is corrupt: %v", c.Rank(), h.What, r, err))
		}
	}
	for _, o := range calls {
		if o.What != h.What {
			return nil, nil, c.abort(divergence(calls))
		}
	}
	return calls, payloads, nil
}

// divergence describes ranks that made different calls.
func divergence(calls []collective) string {
	byCall := map[string][]int{}
	for r, h := range calls {
		byCall[h.String()] = append(byCall[h.String()], r)
	}
	var parts []string
	for h, ranks := range byCall {
		parts = append(parts, fmt.Sprintf("%s: %s", rankList(ranks), h))
	}
	sort.Strings(parts)
	msg := "the ranks diverged: " + strings.Join(parts, "; ")
	for _, h := range calls {
		if h.Note != "" {
			// A rank says why it left the code the others still run.
			return msg
		}
	}
	return msg + ". Every rank must run the same actions and collectives in the same order (print only where sc.IsDriver(), but compute on every rank)"
}

// AllgatherNoting is c.Allgather for code that may have left the path the
// other ranks take, such as a shell that ends an input with an error on
// one rank while the others still run it. When c checks that the ranks
// make the same calls (the Comm of an SPMD Context does) and they did not,
// the message that ends the job names this call as what, with note (the
// error, say) beside it, so the cause shows on every rank. what must be the
// same on every rank; note may differ.
func AllgatherNoting(c Comm, what, note string, data []byte) ([][]byte, error) {
	cc, ok := c.(*checkedComm)
	if !ok {
		return c.Allgather(data)
	}
	note = strings.ReplaceAll(strings.TrimSpace(note), "\n\t", " ")
	note = strings.ReplaceAll(note, "\n", "; ")
	cc.mu.Lock()
	defer cc.mu.Unlock()
	_, payloads, err := cc.exchange(collective{What: what, Note: note}, data)
	return payloads, err
}

// rankList writes "rank 1" or "ranks 0, 2".
func rankList(ranks []int) string {
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = fmt.Sprint(r)
	}
	if len(ranks) == 1 {
		return "rank " + s[0]
	}
	return "ranks " + strings.Join(s, ", ")
}

// aborted returns the error of the abort that ended the job, if any.
func (c *checkedComm) aborted() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// setAborted records err as the end of the job unless an earlier error
// did, and reports whether it was the first.
func (c *checkedComm) setAborted(err error) (first bool) {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	if c.err != nil {
		return false
	}
	c.err = err
	return true
}

// abort aborts the job with msg and returns the error later calls
// report.
func (c *checkedComm) abort(msg string) error {
	if c.detail != "" {
		msg += "\n" + c.detail
	}
	if c.setAborted(&AbortError{Rank: c.Rank(), Code: 1, Msg: msg}) {
		c.c.Abort(1, msg)
	}
	return c.aborted()
}

// failed handles an error of the underlying Comm: the job is over,
// since this rank cannot take part in collectives any longer.
func (c *checkedComm) failed(what string, err error) error {
	if errors.Is(err, ErrAborted) {
		c.setAborted(err)
		return c.aborted()
	}
	return c.abort(fmt.Sprintf("rank %d: %s failed: %v", c.Rank(), what, err))
}

func (c *checkedComm) Barrier() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _, err := c.exchange(collective{What: "Barrier"}, nil)
	return err
}

func (c *checkedComm) Broadcast(root int, data []byte) ([]byte, error) {
	return c.broadcast(fmt.Sprintf("Broadcast from rank %d", root), root, data)
}

func (c *checkedComm) broadcast(what string, root int, data []byte) ([]byte, error) {
	if root < 0 || root >= c.Size() {
		return nil, fmt.Errorf("rdd: Broadcast root %d: ranks are 0 to %d", root, c.Size()-1)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, _, err := c.exchange(collective{What: what}, nil); err != nil {
		return nil, err
	}
	got, err := c.c.Broadcast(root, data)
	if err != nil {
		return nil, c.failed(what, err)
	}
	return got, nil
}

func (c *checkedComm) AllreduceFloat32Sum(xs []float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	what := fmt.Sprintf("AllreduceFloat32Sum of %d floats", len(xs))
	if _, _, err := c.exchange(collective{What: what}, nil); err != nil {
		return err
	}
	if err := c.c.AllreduceFloat32Sum(xs); err != nil {
		return c.failed(what, err)
	}
	return nil
}

func (c *checkedComm) Allgather(data []byte) ([][]byte, error) {
	return c.allgather("Allgather", data)
}

func (c *checkedComm) allgather(what string, data []byte) ([][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, payloads, err := c.exchange(collective{What: what}, data)
	return payloads, err
}

func (c *checkedComm) Alltoall(data [][]byte) ([][]byte, error) {
	return c.alltoall("Alltoall", data)
}

// alltoall checks that every rank makes the same call, then exchanges.
func (c *checkedComm) alltoall(what string, data [][]byte) ([][]byte, error) {
	if len(data) != c.Size() {
		return nil, fmt.Errorf("rdd: %s: Alltoall with %d parts for %d ranks", what, len(data), c.Size())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, _, err := c.exchange(collective{What: what}, nil); err != nil {
		return nil, err
	}
	got, err := c.c.Alltoall(data)
	if err != nil {
		return nil, c.failed(what, err)
	}
	if len(got) != c.Size() {
		return nil, c.abort(fmt.Sprintf("rank %d: %s: Alltoall returned %d parts for %d ranks", c.Rank(), what, len(got), c.Size()))
	}
	return got, nil
}

// Abort may be called from any goroutine, also while another is in a
// collective.
func (c *checkedComm) Abort(code int, msg string) {
	c.setAborted(&AbortError{Rank: c.Rank(), Code: code, Msg: msg})
	c.c.Abort(code, msg)
}

// agree tells every rank whether this one failed; see Context.Agree.
func (c *checkedComm) agree(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := collective{What: "Agree"}
	if err != nil {
		h.Note = err.Error()
	}
	calls, _, xerr := c.exchange(h, nil)
	if xerr != nil {
		return xerr
	}
	var failed, ok []int
	for r, o := range calls {
		if o.Note != "" {
			failed = append(failed, r)
		} else {
			ok = append(ok, r)
		}
	}
	if len(failed) > 0 && len(ok) > 0 {
		msgs := make([]string, len(failed))
		for i, r := range failed {
			msgs[i] = fmt.Sprintf("rank %d: %s", r, calls[r].Note)
		}
		return c.abort(fmt.Sprintf("the ranks disagree: %s failed while %s did not, so their driver code would diverge: %s",
			rankList(failed), rankList(ok), strings.Join(msgs, "; ")))
	}
	return err
}

// close ends this rank's part: once every rank has reached close, the
// underlying Comm is closed (MPI is finalized). A rank that closes while
// others still run collectives aborts the job instead; so does a close
// with a note (a panic on the way out), whose note the message carries,
// and on this rank the detail too (the panic's stack).
func (c *checkedComm) close(note, detail string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.detail = detail
	if err := c.aborted(); err != nil {
		// Closing the Comm (finalizing MPI) after an abort could wait
		// for ranks that are gone.
		return err
	}
	calls, _, err := c.exchange(collective{What: "closing its Context", Note: note}, nil)
	if err != nil {
		return err
	}
	var notes []string
	for r, h := range calls {
		if h.Note != "" {
			notes = append(notes, fmt.Sprintf("rank %d: %s", r, h.Note))
		}
	}
	if len(notes) > 0 {
		return c.abort(strings.Join(notes, "; "))
	}
	if cl, ok := c.c.(closer); ok {
		return cl.Close()
	}
	return nil
}
