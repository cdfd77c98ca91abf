package sparknet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// A snapshot of a trainer after round r with prefix P is a set of files:
//
//	P_round_r.sparknet            the trainer's state (JSON): round, iteration, settings, file names
//	P_round_r.caffemodel          the global weights, a Caffe model of the train net
//	P_round_r.part<p>.solverstate each replica's solver state (history, iteration), Caffe's format
//	P_round_r.part<p>.caffemodel  each replica's own weights (outer optimizers that pull replicas: elastic averaging)
//	P_round_r.outer.NAME          each collection of the outer optimizer's state (OuterNesterov: momentum)
//	P_round_r.pull                the center replicas pull toward next (outer optimizers that pull replicas)
//	P_round_r.history             the averaged solver history (WeightsAndHistory only)
//	P_round_r.part<p>.residual    each replica's error feedback (compressed averaging)
//	P_round_r.sum_residual        the error feedback of the compressed sum (bfloat16, float16)
//
// Every file is written to a temporary file and renamed into place, the
// state file last, so a crash never leaves a snapshot that Resume would
// take for whole; the temporary files a crash leaves are removed by the
// next snapshot with the prefix.

// snapshotState is the JSON of a .sparknet file.
type snapshotState struct {
	Version  int      `json:"version"`
	Round    int      `json:"round"`
	Iter     int      `json:"iter"`
	K        int      `json:"replicas"`
	Tau      int      `json:"tau"`
	Warmup   int      `json:"warmup_rounds"`
	Average  string   `json:"average"`
	Outer    string   `json:"outer"`
	Seed     uint64   `json:"seed"`
	Model    string   `json:"model"`
	Parts    []string `json:"replica_states"`
	PartNets []string `json:"replica_models,omitempty"`
	// OuterState names the file of each collection of the outer
	// optimizer's state (OuterState) by its name.
	OuterState map[string]string `json:"outer_state,omitempty"`
	// Momentum is where earlier snapshots kept OuterNesterov's momentum.
	Momentum string `json:"outer_momentum,omitempty"`
	Pull     string `json:"pull_center,omitempty"`
	History  string `json:"history,omitempty"`
	// Compressed averaging: the compression, each replica's error
	// feedback (what it has not sent yet) and that of the sum, laid out
	// as the weights.
	Compress    string   `json:"compress,omitempty"`
	Residuals   []string `json:"replica_residuals,omitempty"`
	SumResidual string   `json:"sum_residual,omitempty"`
}

// Snapshot writes the trainer's state with the given path prefix (folders
// are created) and returns the path of its .sparknet file, which Resume
// takes. Every replica writes its own solver state on its worker.
func (t *Trainer) Snapshot(ctx context.Context, prefix string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshot(ctx, prefix)
}

func (t *Trainer) snapshot(ctx context.Context, prefix string) (string, error) {
	if t.closed {
		return "", errors.New("sparknet: trainer is closed")
	}
	if dir := filepath.Dir(prefix); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("sparknet: snapshot: %w", err)
		}
	}
	stem := fmt.Sprintf("%s_round_%d", prefix, t.round)
	if t.sc.IsDriver() {
		// What killed writers of this run's or an earlier run's
		// checkpoints left (.NAME.tmp... files) goes first.
		fsio.RemoveStaleTempsPrefix(prefix + "_round_")
	}
	st := snapshotState{
		Version: 1, Round: t.round, Iter: t.iter, K: t.k, Tau: t.opts.Tau, Warmup: t.opts.WarmupRounds,
		Average: t.opts.Average.String(), Outer: t.opts.Outer.String(), Seed: t.opts.Seed,
		Model: filepath.Base(stem + ".caffemodel"),
	}
	if t.sc.IsDriver() {
		if err := t.driver.SaveWeights(stem + ".caffemodel"); err != nil {
			return "", fmt.Errorf("sparknet: snapshot: %w", err)
		}
	}
	extra := []struct {
		field *string
		ext   string
		w     *ndarray.WeightCollection
	}{
		{&st.Pull, ".pull", t.pullAt},
		{&st.History, ".history", t.history},
	}
	for _, e := range extra {
		if e.w == nil {
			continue
		}
		*e.field = filepath.Base(stem + e.ext)
		if t.sc.IsDriver() {
			if err := writeCollection(stem+e.ext, e.w); err != nil {
				return "", err
			}
		}
	}
	if t.opts.Compress.Enabled() {
		st.Compress = t.opts.Compress.String()
		// Every process takes part: under SPMD each holds a piece.
		res, err := t.gatherSumResidual()
		if err != nil {
			return "", fmt.Errorf("sparknet: snapshot: %w", err)
		}
		if res != nil {
			st.SumResidual = filepath.Base(stem + ".sum_residual")
			if t.sc.IsDriver() {
				w := t.weights.Clone()
				unflatten(w, res)
				if err := writeCollection(stem+".sum_residual", w); err != nil {
					return "", err
				}
			}
		}
	}
	for _, name := range t.outerState.Names() {
		if st.OuterState == nil {
			st.OuterState = map[string]string{}
		}
		ext := ".outer." + name
		st.OuterState[name] = filepath.Base(stem + ext)
		if t.sc.IsDriver() {
			if err := writeCollection(stem+ext, t.outerState.Get(name)); err != nil {
				return "", err
			}
		}
	}
	_, pulls := t.outer.(OuterPuller)
	if t.round > 0 {
		if err := t.snapshotReplicas(ctx, stem, pulls); err != nil {
			return "", fmt.Errorf("sparknet: snapshot: %w", err)
		}
	}
	for p := 0; p < t.k && t.round > 0; p++ {
		base := filepath.Base(fmt.Sprintf("%s.part%d", stem, p))
		st.Parts = append(st.Parts, base+".solverstate")
		if pulls {
			st.PartNets = append(st.PartNets, base+".caffemodel")
		}
		if t.opts.Compress.Enabled() {
			st.Residuals = append(st.Residuals, base+".residual")
		}
	}
	path := stem + ".sparknet"
	if t.sc.IsDriver() {
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return "", err
		}
		if err := writeFileAtomic(path, append(b, '\n')); err != nil {
			return "", fmt.Errorf("sparknet: snapshot: %w", err)
		}
	}
	return path, nil
}

// snapshotReplicas has every replica write its solver state (and, for
// elastic averaging, its weights) on its worker.
func (t *Trainer) snapshotReplicas(ctx context.Context, stem string, elastic bool) error {
	_, err := t.train.RunPartitions(ctx, func(tc *rdd.TaskContext) (any, error) {
		p := tc.Partition()
		v, ok := tc.Store().Lookup(t.replicaKey(p))
		if !ok {
			return nil, fmt.Errorf("replica %d has not trained yet; run a round before a snapshot", p)
		}
		r := v.(*replica)
		base := fmt.Sprintf("%s.part%d", stem, p)
		if err := caffe.WriteSolverState(base+".solverstate", r.solver.State("")); err != nil {
			return nil, err
		}
		if elastic {
			if err := r.solver.Net().SaveWeights(base + ".caffemodel"); err != nil {
				return nil, err
			}
		}
		if t.opts.Compress.Enabled() {
			w := r.weights.Clone()
			if r.residual != nil {
				unflatten(w, r.residual)
			} else {
				w.ScaleInPlace(0)
			}
			if err := writeCollection(base+".residual", w); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return err
}

// Resume continues from a snapshot written by Snapshot (the path of its
// .sparknet file): it restores the global weights, the outer optimizer,
// the round and iteration counters and every replica's solver state and
// minibatch position, so that the rounds that follow give the weights an
// uninterrupted run would have. The trainer must have the same solver,
// data partitioning and options as the one that wrote the snapshot.
// Layers that draw random numbers every iteration (Dropout) continue with
// fresh random streams, so only nets without them resume bit for bit.
func (t *Trainer) Resume(ctx context.Context, path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, err := fsio.ReadFile(path, checkpointLimit)
	if err != nil {
		return fmt.Errorf("sparknet: resume: %w", err)
	}
	var st snapshotState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("sparknet: resume: %s is not a trainer snapshot: %w", path, err)
	}
	if st.Version != 1 {
		return fmt.Errorf("sparknet: resume: %s has version %d; this build reads version 1", path, st.Version)
	}
	mismatch := func(what string, have, want any) error {
		return fmt.Errorf("sparknet: resume: %s was written with %s %v, this trainer has %v", path, what, want, have)
	}
	switch {
	case st.K != t.k:
		return mismatch("replicas", t.k, st.K)
	case st.Tau != t.opts.Tau:
		return mismatch("tau", t.opts.Tau, st.Tau)
	case st.Warmup != t.opts.WarmupRounds:
		return mismatch("warm-up rounds", t.opts.WarmupRounds, st.Warmup)
	case st.Average != t.opts.Average.String():
		return mismatch("averaging", t.opts.Average, st.Average)
	case st.Outer != t.opts.Outer.String():
		return mismatch("outer optimizer", t.opts.Outer, st.Outer)
	case compressionName(st.Compress) != t.opts.Compress.String():
		return mismatch("compression", t.opts.Compress, compressionName(st.Compress))
	case st.Round > 0 && t.opts.Compress.Enabled() && len(st.Residuals) != t.k:
		return fmt.Errorf("sparknet: resume: %s lists %d replica error-feedback files for %d replicas", path, len(st.Residuals), t.k)
	case st.Round > 0 && len(st.Parts) != t.k:
		return fmt.Errorf("sparknet: resume: %s lists %d replica states for %d replicas", path, len(st.Parts), t.k)
	}
	dir := filepath.Dir(path)
	at := func(name string) string { return filepath.Join(dir, name) }
	if _, err := t.driver.LoadWeights(at(st.Model)); err != nil {
		return fmt.Errorf("sparknet: resume: %w", err)
	}
	read := func(name string) (*ndarray.WeightCollection, error) {
		if name == "" {
			return nil, nil
		}
		return readCollection(at(name), t.weights)
	}
	if st.Momentum != "" {
		// A snapshot that predates named outer states: Nesterov's momentum.
		if st.OuterState == nil {
			st.OuterState = map[string]string{}
		}
		st.OuterState["momentum"] = st.Momentum
	}
	var outerState OuterState
	for name, file := range st.OuterState {
		w, err := readCollection(at(file), t.weights)
		if err != nil {
			return err
		}
		outerState.Set(name, w)
	}
	t.outerState = outerState
	if t.pullAt, err = read(st.Pull); err != nil {
		return err
	}
	if t.history, err = read(st.History); err != nil {
		return err
	}
	t.sumResidual = nil
	if st.SumResidual != "" {
		w, err := read(st.SumResidual)
		if err != nil {
			return err
		}
		t.sumResidual = flatten(nil, w)
	}
	t.round, t.iter = st.Round, st.Iter
	if st.Round == 0 {
		return nil
	}
	_, err = t.train.RunPartitions(ctx, func(tc *rdd.TaskContext) (any, error) {
		p := tc.Partition()
		tc.Store().Delete(t.replicaKey(p))
		r, err := t.newReplica(p, tc.Samples())
		if err != nil {
			return nil, err
		}
		ss, err := caffe.ReadSolverState(at(st.Parts[p]))
		if err != nil {
			return nil, err
		}
		ss.LearnedNet = nil
		if err := r.solver.SetState(ss, dir); err != nil {
			return nil, err
		}
		if len(st.PartNets) > p {
			if _, err := r.solver.Net().LoadWeights(at(st.PartNets[p])); err != nil {
				return nil, err
			}
		}
		if len(st.Residuals) > p {
			w, err := readCollection(at(st.Residuals[p]), r.weights)
			if err != nil {
				return nil, err
			}
			r.residual = flatten(nil, w)
		}
		skip := st.Iter * int(max(t.sp.GetIterSize(), 1))
		for _, b := range r.batchers {
			if err := b.Skip(skip); err != nil {
				return nil, err
			}
		}
		tc.Store().Set(t.replicaKey(p), r)
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("sparknet: resume: %w", err)
	}
	return nil
}

// LatestCheckpoint returns the .sparknet file of the latest round among
// the snapshots with the given prefix, or "" when there is none.
func LatestCheckpoint(prefix string) (string, error) {
	rounds, err := checkpointRounds(prefix)
	if err != nil || len(rounds) == 0 {
		return "", err
	}
	return checkpointPath(prefix, rounds[len(rounds)-1]), nil
}

func checkpointPath(prefix string, round int) string {
	return fmt.Sprintf("%s_round_%d.sparknet", prefix, round)
}

// checkpointRounds lists the rounds of the snapshots with the given
// prefix (those with a .sparknet file), in increasing order.
func checkpointRounds(prefix string) ([]int, error) {
	matches, err := filepath.Glob(globEscape(prefix) + "_round_*.sparknet")
	if err != nil {
		return nil, fmt.Errorf("sparknet: checkpoints %s: %w", prefix, err)
	}
	var rounds []int
	for _, m := range matches {
		if r, ok := roundOf(prefix, m, ".sparknet"); ok {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	return rounds, nil
}

// roundOf parses PREFIX_round_R<suffix...>, where what follows the round
// starts with dot; it reports the round when path has that form.
func roundOf(prefix, path, dot string) (int, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"_round_")
	if !ok {
		return 0, false
	}
	i := strings.IndexByte(rest, '.')
	if i <= 0 || !strings.HasPrefix(rest[i:], dot) {
		return 0, false
	}
	r, err := strconv.Atoi(rest[:i])
	if err != nil || r < 0 || strconv.Itoa(r) != rest[:i] {
		return 0, false
	}
	return r, true
}

// checkpointFiles lists every file of the snapshots with the given prefix:
// PREFIX_round_R.sparknet and the files beside it (.caffemodel,
// .partN.solverstate, .outer, ...).
func checkpointFiles(prefix string) ([]string, error) {
	matches, err := filepath.Glob(globEscape(prefix) + "_round_*")
	if err != nil {
		return nil, fmt.Errorf("sparknet: checkpoints %s: %w", prefix, err)
	}
	var files []string
	for _, m := range matches {
		if _, ok := roundOf(prefix, m, "."); ok {
			files = append(files, m)
		}
	}
	return files, nil
}

// globEscape quotes the pattern characters of a path for filepath.Glob.
func globEscape(path string) string {
	if runtime.GOOS == "windows" {
		return path // no escapes there; \ separates folders
	}
	var b strings.Builder
	for _, c := range path {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// claimCheckpoints makes the checkpoints under Options.Checkpoint this
// run's (see Options.Resume): it resumes from the latest, refuses another
// run's, or, with Overwrite, marks them for removal.
func (t *Trainer) claimCheckpoints() error {
	prefix := t.opts.Checkpoint
	rounds, err := checkpointRounds(prefix)
	if err != nil {
		return err
	}
	if len(rounds) == 0 {
		return nil
	}
	latest := checkpointPath(prefix, rounds[len(rounds)-1])
	switch {
	case t.opts.Resume:
		if err := t.Resume(context.Background(), latest); err != nil {
			return err
		}
		t.resumedFrom = latest
		return nil
	case t.opts.Overwrite:
		t.replaceOld, err = checkpointFiles(prefix)
		return err
	}
	when := ""
	if fi, err := os.Stat(latest); err == nil {
		when = ", written " + fi.ModTime().Format("2006-01-02 15:04:05")
	}
	list := make([]string, len(rounds))
	for i, r := range rounds {
		list[i] = strconv.Itoa(r)
	}
	what := "round " + list[0]
	if len(list) > 1 {
		what = "rounds " + strings.Join(list, ", ")
	}
	return fmt.Errorf("sparknet: the checkpoint prefix %s holds the checkpoints of another run (%s; the latest, %s%s), which this run would overwrite: "+
		"continue that run with Options.Resume (sparknet-shell --resume), give another prefix, or replace them with Options.Overwrite (sparknet-shell --overwrite)",
		prefix, what, latest, when)
}

// removeOldCheckpoints removes, before this run's first checkpoint, the
// checkpoints of the run it replaces (Options.Overwrite).
func (t *Trainer) removeOldCheckpoints() error {
	old := t.replaceOld
	t.replaceOld = nil
	if len(old) == 0 || !t.sc.IsDriver() {
		return nil
	}
	// The .sparknet files first: a crash halfway leaves no checkpoint
	// that looks whole.
	slices.SortStableFunc(old, func(a, b string) int {
		return cmpBool(!strings.HasSuffix(a, ".sparknet"), !strings.HasSuffix(b, ".sparknet"))
	})
	for _, f := range old {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing the checkpoints of the run this one replaces: %w", err)
		}
	}
	return nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// ResumedFrom returns the checkpoint (its .sparknet file) that Parallelize
// resumed from (Options.Resume), or "" when the trainer started afresh.
func (t *Trainer) ResumedFrom() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.resumedFrom
}

// writeCollection writes a weight collection's binary encoding atomically.
func writeCollection(path string, w *ndarray.WeightCollection) error {
	b, err := w.MarshalBinary()
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, b); err != nil {
		return fmt.Errorf("sparknet: snapshot: %w", err)
	}
	return nil
}

// readCollection reads a collection written by writeCollection and checks
// it against the layout of like.
func readCollection(path string, like *ndarray.WeightCollection) (*ndarray.WeightCollection, error) {
	b, err := fsio.ReadFile(path, checkpointLimit)
	if err != nil {
		return nil, fmt.Errorf("sparknet: resume: %w", err)
	}
	w, err := ndarray.DecodeWeightCollection(b)
	if err != nil {
		return nil, fmt.Errorf("sparknet: resume: %s: %w", path, err)
	}
	if strings.HasSuffix(path, ".history") {
		return w, nil // laid out as the solver's history, not as the weights
	}
	if err := like.Compatible(w); err != nil {
		return nil, fmt.Errorf("sparknet: resume: %s does not match the net: %w", path, err)
	}
	return w, nil
}

// checkpointLimit bounds the files of a checkpoint that Resume reads.
const checkpointLimit = 1 << 40

// writeFileAtomic writes through a temporary file in the same folder,
// flushed to disk and readable by all, as the Caffe files beside it are.
func writeFileAtomic(path string, b []byte) error {
	return fsio.WriteFile(path, b)
}
