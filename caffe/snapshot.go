package caffe

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/internal/fsio"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

// SnapshotPaths returns the files a snapshot at iteration iter writes:
// <prefix>_iter_<iter>.caffemodel and .solverstate, with prefix the
// solver's snapshot_prefix (relative to the working folder, as in Caffe;
// LoadSolver sets an unset one to the solver file's path without its
// extension).
func (s *Solver) SnapshotPaths(iter int) (model, state string) {
	prefix := s.param.GetSnapshotPrefix()
	if prefix == "" {
		prefix = s.net.def.Name
		if prefix == "" {
			prefix = "net"
		}
	}
	if fi, err := os.Stat(prefix); (err == nil && fi.IsDir()) || strings.HasSuffix(prefix, string(filepath.Separator)) {
		// A folder: name the files after the net inside it.
		name := s.net.def.Name
		if name == "" {
			name = "net"
		}
		prefix = filepath.Join(prefix, name)
	}
	base := fmt.Sprintf("%s_iter_%d", prefix, iter)
	return base + ".caffemodel", base + ".solverstate"
}

// Snapshot writes the train net's weights and the solver's state (the
// iteration, the multistep counter and the update rule's history) in
// Caffe's binary formats, each through a temporary file renamed into
// place, and returns their paths. Temporary files that killed writers of
// earlier snapshots with the same prefix left are removed first.
func (s *Solver) Snapshot() (model, state string, err error) {
	model, state = s.SnapshotPaths(s.iter)
	if dir := filepath.Dir(model); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", fmt.Errorf("caffe: snapshot: %w", err)
		}
	}
	fsio.RemoveStaleTempsPrefix(strings.TrimSuffix(model, strconv.Itoa(s.iter)+".caffemodel"))
	np := s.net.ToProto(s.param.GetSnapshotDiff())
	if err := WriteCaffemodel(model, np); err != nil {
		return "", "", fmt.Errorf("caffe: snapshot: %w", err)
	}
	if err := WriteSolverState(state, s.State(model)); err != nil {
		return "", "", fmt.Errorf("caffe: snapshot: %w", err)
	}
	if err := callHook(s.onSnapshot, SnapshotEvent{Iter: s.iter, Model: model, SolverFile: state}); err != nil {
		return model, state, err
	}
	return model, state, nil
}

// State returns the solver's state as Caffe's SolverState message, with
// learnedNet as the weights file it refers to: the history blobs in
// learnable-parameter order, all first arrays before all second ones.
func (s *Solver) State(learnedNet string) *caffepb.SolverState {
	st := &caffepb.SolverState{
		Iter:        proto.Int32(int32(s.iter)),
		CurrentStep: proto.Int32(int32(s.currentStep)),
	}
	if learnedNet != "" {
		st.LearnedNet = proto.String(learnedNet)
	}
	for _, set := range s.history {
		for _, h := range set {
			st.History = append(st.History, BlobFromArray(h.Data()))
		}
	}
	return st
}

// Restore continues from a snapshot: it reads the .solverstate at path
// (any Caffe version), loads the weights file it names, looked for beside
// the state first (the model of the same stem, then the named file's base
// name) and only then where the name points (see RestoredWeights), and
// sets the iteration, the multistep counter and the history. The Data layers of
// the nets are moved on by the batches the run had read, so that the
// training continues as the uninterrupted run would have.
func (s *Solver) Restore(path string) error {
	st, err := ReadSolverState(path)
	if err != nil {
		return err
	}
	if err := s.setState(st, filepath.Dir(path), strings.TrimSuffix(path, ".solverstate")); err != nil {
		return fmt.Errorf("%w (restoring %s)", err, path)
	}
	return nil
}

// SetState applies a SolverState: the weights file it names (found by
// base name in dir first, else as written, with or without the
// .caffemodel extension), the iteration, the step counter and the history. Shapes are
// checked, with Caffe's legacy 4-D rule, before anything changes.
func (s *Solver) SetState(st *caffepb.SolverState, dir string) error {
	return s.setState(st, dir, "")
}

// setState is SetState with one more place to look for the weights file:
// companion, the path of the .solverstate without its extension, names
// the model of the same stem next to it (with .caffemodel, or without an
// extension as 2014 Caffe wrote it).
func (s *Solver) setState(st *caffepb.SolverState, dir, companion string) error {
	def := s.net.def
	nl := len(def.Learnable)
	want := nl * s.rule.History
	if got := len(st.GetHistory()); got != want {
		return fmt.Errorf("caffe: the solver state has %d history blobs; the %s solver of net %q needs %d (%d learnable parameters × %d)",
			got, s.typeName, def.Name, want, nl, s.rule.History)
	}
	for i, bp := range st.GetHistory() {
		set, k := i/max(nl, 1), i%max(nl, 1)
		h := s.history[set][k]
		pd := def.Params[def.Learnable[k]]
		layer := def.Layers[pd.Layer].Name
		if !format.ShapeEquals(bp, h.shape) {
			return fmt.Errorf("caffe: history blob %d (layer %q, parameter %d) has shape %s, the net's parameter has shape %s",
				i, layer, pd.Index, format.DescribeBlobShape(bp), fmt.Sprint(h.shape))
		}
		if _, err := format.CheckBlob(bp); err != nil {
			return fmt.Errorf("%w (history blob %d, layer %q)", err, i, layer)
		}
	}
	if ln := st.GetLearnedNet(); ln != "" {
		wpath, err := findLearnedNet(ln, dir, companion)
		if err != nil {
			return err
		}
		if _, err := s.net.LoadWeights(wpath); err != nil {
			return err
		}
		s.restoredWeights = wpath
	}
	s.materializeDiffs()
	for i, bp := range st.GetHistory() {
		set, k := i/nl, i%nl
		if err := format.CopyBlobData(s.history[set][k].DataSlice(), bp); err != nil {
			return err
		}
	}
	s.iter = int(st.GetIter())
	s.currentStep = int(st.GetCurrentStep())
	return s.skipData()
}

// findLearnedNet locates the weights file a solver state names. Caffe
// writes the name as the snapshot prefix made it (absolute, or relative to
// the folder Caffe ran in), so a copied or moved snapshot names a file
// elsewhere. The files beside the state come first: the model of the
// state's own stem (companion; Caffe writes the two as a pair, and a pair
// renamed together keeps it), then the file of the name it gives; the path
// as written comes last. Each is tried with and without .caffemodel, as
// 2014 Caffe wrote models without an extension.
func findLearnedNet(name, dir, companion string) (string, error) {
	var cands []string
	// add tries p, then p with its .caffemodel extension added or
	// removed.
	add := func(p string) {
		if p == "" {
			return
		}
		other := p + ".caffemodel"
		if strings.HasSuffix(p, ".caffemodel") {
			other = strings.TrimSuffix(p, ".caffemodel")
		}
		for _, c := range []string{p, other} {
			if !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
	}
	if companion != "" {
		add(companion + ".caffemodel")
	}
	if dir != "" {
		add(filepath.Join(dir, filepath.Base(name)))
	}
	add(name)
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", fmt.Errorf("caffe: the solver state's weights file %q was not found (tried %s)", name, strings.Join(cands, ", "))
}

// RestoredWeights returns the weights file the last Restore or SetState
// loaded (the file its solver state names, found as findLearnedNet
// looks), or "" when none was loaded.
func (s *Solver) RestoredWeights() string { return s.restoredWeights }

// batchSkipper is implemented by data layers that can move on by a
// number of batches (DataLayer).
type batchSkipper interface {
	SkipBatches(n int) error
}

// skipData moves the nets' data layers to where a run that has done
// s.iter iterations (with its tests) would have left them.
func (s *Solver) skipData() error {
	sp := s.param
	skip := func(net *Net, batches int) error {
		if batches <= 0 {
			return nil
		}
		for i, l := range net.layers {
			if sk, ok := l.(batchSkipper); ok {
				if err := sk.SkipBatches(batches); err != nil {
					return fmt.Errorf("%w (layer %q)", err, net.def.Layers[i].Name)
				}
			}
		}
		return nil
	}
	if err := skip(s.net, s.iter*int(sp.GetIterSize())); err != nil {
		return err
	}
	ti := int(sp.GetTestInterval())
	if ti <= 0 {
		return nil
	}
	tests := 0
	if s.iter > 0 {
		tests = (s.iter-1)/ti + 1 // iterations 0, ti, 2ti, ... below iter
		if !sp.GetTestInitialization() {
			tests--
		}
	}
	for i, tn := range s.testNets {
		if err := skip(tn, tests*int(sp.GetTestIter()[i])); err != nil {
			return err
		}
	}
	return nil
}
