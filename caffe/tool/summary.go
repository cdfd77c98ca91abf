package tool

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	register(&command{
		name:    "summary",
		summary: "print a net's layers with their output shapes and parameter counts",
		usage:   "--model=NET.prototxt [--phase=TRAIN|TEST (default: every phase the net defines)] [--level=N] [--stage=a,b] [--input-shape=BLOB=N,C,H,W]... [--weights=FILE.caffemodel]",
		run:     runSummary,
	})
}

// shapeFlags collects repeated --input-shape=BLOB=D1,D2,... flags.
type shapeFlags map[string][]int

func (s shapeFlags) String() string {
	var parts []string
	for k, v := range s {
		parts = append(parts, k+"="+caffe.Shape(v).String())
	}
	return strings.Join(parts, " ")
}

func (s shapeFlags) Set(v string) error {
	name, dims, ok := strings.Cut(v, "=")
	if !ok || name == "" || dims == "" {
		return fmt.Errorf("want BLOB=D1,D2,..., e.g. data=64,1,28,28; got %q", v)
	}
	var shape []int
	for _, d := range strings.Split(dims, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(d))
		if err != nil || n < 0 {
			return fmt.Errorf("bad dimension %q in %q; dimensions are non-negative integers", d, v)
		}
		shape = append(shape, n)
	}
	count := 1
	for _, d := range shape {
		if d > 0 && count > caffe.MaxBlobCount/d {
			return fmt.Errorf("more values than the %d a blob may hold (%d GiB)", caffe.MaxBlobCount, caffe.MaxBlobCount*4>>30)
		}
		count *= d
	}
	s[name] = shape
	return nil
}

// netFlags are the flags selecting a net and its state, as in Caffe's
// tool.
type netFlags struct {
	model string
	phase string
	level int
	stage string
}

func (f *netFlags) register(fs *flag.FlagSet, defaultPhase string) {
	fs.StringVar(&f.model, "model", "", "the net definition (.prototxt)")
	fs.StringVar(&f.phase, "phase", defaultPhase, "the phase to build the net for: TRAIN or TEST")
	fs.IntVar(&f.level, "level", 0, "the net state's level")
	fs.StringVar(&f.stage, "stage", "", "the net state's stages, comma-separated")
}

// state returns the net state the flags give for phase: the phase, the
// level and the stages, added to the stages the net's own state lists, as
// Caffe's tool builds nets.
func (f *netFlags) state(np *caffepb.NetParameter, phase caffe.Phase) caffe.NetState {
	state := caffe.NetStateOf(np)
	state.Phase = phase
	state.Level = f.level
	if f.stage != "" {
		state.Stages = append(state.Stages, strings.Split(f.stage, ",")...)
	}
	return state
}

// definedStates returns the states a net's include and exclude rules tell
// apart, for summarising every one when no --phase is given: each phase
// the rules name (TRAIN first), alone and with each stage that rules for
// that phase name. A net whose rules name no phase has one state, base.
func definedStates(np *caffepb.NetParameter, base caffe.NetState) []caffe.NetState {
	phases := map[caffe.Phase]bool{}
	for _, l := range np.GetLayer() {
		for _, r := range append(append([]*caffepb.NetStateRule{}, l.Include...), l.Exclude...) {
			if r.Phase != nil {
				phases[caffe.Phase(r.GetPhase())] = true
			}
		}
	}
	if len(phases) == 0 {
		return []caffe.NetState{base}
	}
	var states []caffe.NetState
	for _, ph := range []caffe.Phase{caffe.Train, caffe.Test} {
		if !phases[ph] {
			continue
		}
		st := base
		st.Phase = ph
		states = append(states, st)
		seen := map[string]bool{}
		for _, l := range np.GetLayer() {
			for _, r := range l.Include {
				if r.Phase != nil && caffe.Phase(r.GetPhase()) != ph {
					continue
				}
				for _, stage := range r.Stage {
					if !seen[stage] && !slices.Contains(base.Stages, stage) {
						seen[stage] = true
						withStage := st
						withStage.Stages = append(slices.Clone(st.Stages), stage)
						states = append(states, withStage)
					}
				}
			}
		}
	}
	return states
}

func runSummary(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	var nf netFlags
	nf.register(fs, "TEST")
	shapes := shapeFlags{}
	fs.Var(shapes, "input-shape", "the shape of a data or input blob, BLOB=D1,D2,... (repeatable), e.g. data=64,1,28,28")
	weights := fs.String("weights", "", "a .caffemodel to check against the net: its blobs are loaded by layer name (for data layers whose database is absent, at the sample shape they fit)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if nf.model == "" {
		return usageErrorf("--model is required")
	}
	phase, err := caffe.ParsePhase(nf.phase)
	if err != nil {
		return usageErrorf("--phase: %v", err)
	}
	np, err := caffe.LoadNetParameter(nf.model)
	if err != nil {
		return err
	}
	states := []caffe.NetState{nf.state(np, phase)}
	phaseGiven := false
	fs.Visit(func(f *flag.Flag) { phaseGiven = phaseGiven || f.Name == "phase" })
	if !phaseGiven {
		states = definedStates(np, nf.state(np, phase))
	}
	// Summarise each state; a state that cannot be built (a TEST phase
	// whose data layers all need a stage) is left out when another state
	// of its phase can, and states that keep the same layers are shown
	// once.
	type done struct {
		state  caffe.NetState
		layers string
	}
	var shown []done
	var firstErr error
	phaseShown := map[caffe.Phase]bool{}
	var failed []caffe.NetState
	var failures []error
	for _, st := range states {
		def, err := caffe.ProcessNet(np, st)
		if err == nil {
			var sum *caffe.Summary
			if sum, err = caffe.Summarize(def, shapes); err == nil {
				layers := layerSources(def)
				if slices.ContainsFunc(shown, func(d done) bool { return d.state.Phase == st.Phase && d.layers == layers }) {
					continue
				}
				if len(shown) > 0 {
					fmt.Fprintln(stdout)
				}
				fmt.Fprint(stdout, sum)
				shown = append(shown, done{st, layers})
				phaseShown[st.Phase] = true
				if *weights != "" {
					if err := checkWeights(stdout, np, def, shapes, *weights); err != nil {
						return err
					}
				}
				continue
			}
		}
		if len(states) == 1 {
			return err
		}
		failed, failures = append(failed, st), append(failures, err)
		if firstErr == nil {
			firstErr = err
		}
	}
	for i, st := range failed {
		if !phaseShown[st.Phase] {
			return failures[i]
		}
	}
	if len(shown) == 0 {
		return firstErr
	}
	return nil
}

// layerSources identifies the layers a state keeps: their indices in the
// definition.
func layerSources(def *caffe.NetDef) string {
	var b strings.Builder
	for _, l := range def.Layers {
		fmt.Fprintf(&b, "%d ", l.Source)
	}
	return b.String()
}

// checkWeights loads a .caffemodel into parameter arrays of the shapes a
// net definition infers, and reports what it loaded. When the shapes of
// some parameters depend on data the definition does not describe (a
// data layer's database) and no --input-shape gives it, the data's shape
// is the one the weights fit, as LoadNet finds it.
func checkWeights(stdout io.Writer, np *caffepb.NetParameter, def *caffe.NetDef, shapes map[string][]int, weights string) error {
	inferred, err := caffe.InferShapes(def, shapes)
	if err != nil {
		return err
	}
	model, err := caffe.ReadCaffemodel(weights)
	if err != nil {
		return err
	}
	dst, err := caffe.NewParamArrays(def, inferred)
	fitted := ""
	if err != nil && len(shapes) == 0 {
		fit, ferr := caffe.DataShapesFromWeights(np, model)
		if ferr != nil {
			return fmt.Errorf("checking --weights=%s: %w (or give --input-shape=BLOB=N,C,H,W to see the layers that differ)", weights, ferr)
		}
		if len(fit) > 0 {
			if again, ierr := caffe.InferShapes(def, fit); ierr == nil {
				if d, nerr := caffe.NewParamArrays(def, again); nerr == nil {
					dst, err = d, nil
					var parts []string
					for _, top := range slices.Sorted(maps.Keys(fit)) {
						parts = append(parts, top+" "+caffe.Shape(fit[top][1:]).String())
					}
					fitted = fmt.Sprintf(" for samples of %s, the shape the weights fit", strings.Join(parts, ", "))
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("checking --weights=%s: %w (with --input-shape=BLOB=N,C,H,W)", weights, err)
	}
	report, err := caffe.CopyWeights(model, dst)
	if err != nil {
		return fmt.Errorf("%w (loading %s)", err, weights)
	}
	if err := report.Err(weights); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Weights %s: loaded %d layers (%s)%s\n", weights, len(report.Copied), strings.Join(report.Copied, ", "), fitted)
	if len(report.Ignored) > 0 {
		fmt.Fprintf(stdout, "  not in the net, ignored: %s\n", strings.Join(report.Ignored, ", "))
	}
	if len(report.Kept) > 0 {
		fmt.Fprintf(stdout, "  not in the weights, left at their initial values: %s\n", strings.Join(report.Kept, ", "))
	}
	return nil
}
