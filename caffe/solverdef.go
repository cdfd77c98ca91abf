package caffe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// LoadOptions tunes LoadSolverParameterWith.
type LoadOptions struct {
	// SearchDirs are more folders to look for the net files a solver
	// names (net, train_net, test_net) when they are not found next to the
	// solver; in each, the path as written is tried, then its base name.
	// Caffe's own solvers name paths inside Caffe's source tree
	// ("examples/mnist/lenet_train_test.prototxt"), which this resolves.
	SearchDirs []string
}

// LoadSolverParameter reads a solver definition (.prototxt) as
// LoadSolverParameterWith does with no extra search folders.
func LoadSolverParameter(path string) (*caffepb.SolverParameter, error) {
	return LoadSolverParameterWith(path, LoadOptions{})
}

// LoadSolverParameterWith reads a solver definition and makes it
// self-contained:
//
//   - the deprecated solver_type enum is upgraded to type;
//   - nets named by path (net, train_net, test_net) are read, upgraded and
//     stored inline (net_param, train_net_param, test_net_param after any
//     inline test nets, which is Caffe's order) and the paths cleared; a
//     path is looked for relative to the solver's folder, then by its base
//     name there, then in opts.SearchDirs, then relative to the working
//     folder;
//   - inline nets are upgraded too (Caffe's own lenet_consolidated_solver
//     has a V1 net inline);
//   - an unset snapshot_prefix becomes the solver's path without its
//     extension, and a prefix naming a folder gets the solver's file stem
//     appended, as Caffe does.
//
// The solver must give exactly one train net. TrainNetParameter and
// TestNetParameters then give the nets with their states.
func LoadSolverParameterWith(path string, opts LoadOptions) (*caffepb.SolverParameter, error) {
	src, err := fsio.ReadFile(path, fsio.TextLimit)
	if err != nil {
		return nil, fmt.Errorf("caffe: %w", err)
	}
	sp, err := ParseSolverParameter(path, src)
	if err != nil {
		return nil, err
	}
	if err := checkTrainNetSources(sp); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	if sp.GetNetParam() != nil && sp.Net != nil {
		return nil, fmt.Errorf("caffe: %s: solver gives both net and net_param; give one", path)
	}
	load := func(field, name string) (*caffepb.NetParameter, error) {
		file, err := FindNetFile(path, name, opts)
		if err != nil {
			return nil, fmt.Errorf("caffe: %s: %s: %w", path, field, err)
		}
		return LoadNetParameter(file)
	}
	if sp.Net != nil {
		if sp.NetParam, err = load("net", sp.GetNet()); err != nil {
			return nil, err
		}
		sp.Net = nil
	}
	if sp.TrainNet != nil {
		if sp.TrainNetParam, err = load("train_net", sp.GetTrainNet()); err != nil {
			return nil, err
		}
		sp.TrainNet = nil
	}
	for _, name := range sp.TestNet {
		np, err := load("test_net", name)
		if err != nil {
			return nil, err
		}
		sp.TestNetParam = append(sp.TestNetParam, np)
	}
	sp.TestNet = nil

	if sp.SnapshotPrefix == nil {
		sp.SnapshotPrefix = proto.String(strings.TrimSuffix(path, filepath.Ext(path)))
	} else if fi, err := os.Stat(sp.GetSnapshotPrefix()); err == nil && fi.IsDir() {
		stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		sp.SnapshotPrefix = proto.String(filepath.Join(sp.GetSnapshotPrefix(), stem))
	}
	return sp, nil
}

// FindNetFile finds the net file name given in the solver at solverPath:
// relative to the solver's folder, then by base name there, then (path as
// written, then base name) in each of opts.SearchDirs, then relative to
// the working folder. The error lists the places tried.
func FindNetFile(solverPath, name string, opts LoadOptions) (string, error) {
	var tried []string
	seen := map[string]bool{}
	try := func(p string) bool {
		if seen[p] {
			return false
		}
		seen[p] = true
		tried = append(tried, p)
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir()
	}
	if filepath.IsAbs(name) && try(name) {
		return name, nil
	}
	dirs := append([]string{filepath.Dir(solverPath)}, opts.SearchDirs...)
	for _, dir := range dirs {
		if !filepath.IsAbs(name) {
			if p := filepath.Join(dir, name); try(p) {
				return p, nil
			}
		}
		if p := filepath.Join(dir, filepath.Base(name)); try(p) {
			return p, nil
		}
	}
	if !filepath.IsAbs(name) && try(name) {
		return name, nil
	}
	return "", fmt.Errorf("net file %q not found; tried %s (add folders with LoadOptions.SearchDirs)", name, strings.Join(tried, ", "))
}

func checkTrainNetSources(sp *caffepb.SolverParameter) error {
	var given []string
	if sp.Net != nil {
		given = append(given, "net")
	}
	if sp.NetParam != nil {
		given = append(given, "net_param")
	}
	if sp.TrainNet != nil {
		given = append(given, "train_net")
	}
	if sp.TrainNetParam != nil {
		given = append(given, "train_net_param")
	}
	switch len(given) {
	case 0:
		return fmt.Errorf("caffe: solver gives no train net; set one of net, net_param, train_net, train_net_param")
	case 1:
		return nil
	}
	return fmt.Errorf("caffe: solver gives more than one train net (%s); keep one", strings.Join(given, ", "))
}

// mergeNetState builds a net's state as Caffe does: the phase, then the
// net's own state, then the solver's state for it, each merged over the
// previous (set fields replace, stages add up).
func mergeNetState(phase Phase, own *caffepb.NetState, solver *caffepb.NetState) *caffepb.NetState {
	s := &caffepb.NetState{Phase: caffepb.Phase(phase).Enum()}
	if own != nil {
		proto.Merge(s, own)
	}
	if solver != nil {
		proto.Merge(s, solver)
	}
	return s
}

// readNetField returns an inline net (copied) or reads a net file.
func readNetField(inline *caffepb.NetParameter, path *string) (*caffepb.NetParameter, error) {
	if inline != nil {
		return format.CloneNet(inline), nil
	}
	return LoadNetParameter(*path)
}

// TrainNetParameter returns the train net of a solver with its state set
// as Caffe's solver sets it: phase TRAIN, merged with the net's own state
// and the solver's train_state. Nets still named by path (a solver from
// ParseSolverParameter) are read relative to the working folder.
func TrainNetParameter(sp *caffepb.SolverParameter) (*caffepb.NetParameter, error) {
	if err := checkTrainNetSources(sp); err != nil {
		return nil, err
	}
	var np *caffepb.NetParameter
	var err error
	switch {
	case sp.TrainNetParam != nil || sp.TrainNet != nil:
		np, err = readNetField(sp.TrainNetParam, sp.TrainNet)
	default:
		np, err = readNetField(sp.NetParam, sp.Net)
	}
	if err != nil {
		return nil, err
	}
	np.State = mergeNetState(Train, np.State, sp.TrainState)
	return np, nil
}

// TestNetParameters returns the test nets of a solver, as Caffe's solver
// builds them: the test_net_param nets, then the test_net files, then, for
// every test_iter left over, the generic net (net or net_param). Each
// state is phase TEST merged with the net's own state and the matching
// test_state. Caffe's count rules are checked: one test_iter per test net,
// and test_state given never or once per test net.
func TestNetParameters(sp *caffepb.SolverParameter) ([]*caffepb.NetParameter, error) {
	generic := 0
	if sp.NetParam != nil {
		generic++
	}
	if sp.Net != nil {
		generic++
	}
	if generic > 1 {
		return nil, fmt.Errorf("caffe: solver gives both net and net_param; give one")
	}
	specific := len(sp.TestNetParam) + len(sp.TestNet)
	iters := len(sp.TestIter)
	if generic > 0 && iters < specific || generic == 0 && iters != specific {
		return nil, fmt.Errorf("caffe: solver has %d test nets but %d test_iter values; give one test_iter per test net", specific, iters)
	}
	total := specific
	if generic > 0 {
		total = iters
	}
	if n := len(sp.TestState); n > 0 && n != total {
		return nil, fmt.Errorf("caffe: solver has %d test nets but %d test_state values; give none or one per test net", total, n)
	}
	var nets []*caffepb.NetParameter
	for _, np := range sp.TestNetParam {
		nets = append(nets, format.CloneNet(np))
	}
	for _, path := range sp.TestNet {
		np, err := LoadNetParameter(path)
		if err != nil {
			return nil, err
		}
		nets = append(nets, np)
	}
	for len(nets) < total {
		np, err := readNetField(sp.NetParam, sp.Net)
		if err != nil {
			return nil, err
		}
		nets = append(nets, np)
	}
	for i, np := range nets {
		var st *caffepb.NetState
		if len(sp.TestState) > 0 {
			st = sp.TestState[i]
		}
		np.State = mergeNetState(Test, np.State, st)
	}
	return nets, nil
}
