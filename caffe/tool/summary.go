package tool

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
)

func init() {
	register(&command{
		name:    "summary",
		summary: "print a net's layers with their output shapes and parameter counts",
		usage:   "--model=NET.prototxt [--phase=TRAIN|TEST] [--level=N] [--stage=a,b] [--input-shape=BLOB=N,C,H,W]... [--weights=FILE.caffemodel]",
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

// load reads the net and processes it for the state the flags give: the
// phase, the level and the stages, added to the stages the net's own state
// lists, as Caffe's tool builds nets.
func (f *netFlags) load() (*caffe.NetDef, error) {
	if f.model == "" {
		return nil, usageErrorf("--model is required")
	}
	phase, err := caffe.ParsePhase(f.phase)
	if err != nil {
		return nil, usageErrorf("--phase: %v", err)
	}
	np, err := caffe.LoadNetParameter(f.model)
	if err != nil {
		return nil, err
	}
	state := caffe.NetStateOf(np)
	state.Phase = phase
	state.Level = f.level
	if f.stage != "" {
		state.Stages = append(state.Stages, strings.Split(f.stage, ",")...)
	}
	return caffe.ProcessNet(np, state)
}

func runSummary(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	var nf netFlags
	nf.register(fs, "TEST")
	shapes := shapeFlags{}
	fs.Var(shapes, "input-shape", "the shape of a data or input blob, BLOB=D1,D2,... (repeatable), e.g. data=64,1,28,28")
	weights := fs.String("weights", "", "a .caffemodel to check against the net: its blobs are loaded by layer name")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	def, err := nf.load()
	if err != nil {
		return err
	}
	sum, err := caffe.Summarize(def, shapes)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, sum)
	if *weights == "" {
		return nil
	}
	inferred, err := caffe.InferShapes(def, shapes)
	if err != nil {
		return err
	}
	dst, err := caffe.NewParamArrays(def, inferred)
	if err != nil {
		return fmt.Errorf("checking --weights: %w", err)
	}
	model, err := caffe.ReadCaffemodel(*weights)
	if err != nil {
		return err
	}
	report, err := caffe.CopyWeights(model, dst)
	if err != nil {
		return fmt.Errorf("%w (loading %s)", err, *weights)
	}
	if err := report.Err(*weights); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Weights %s: loaded %d layers (%s)\n", *weights, len(report.Copied), strings.Join(report.Copied, ", "))
	if len(report.Ignored) > 0 {
		fmt.Fprintf(stdout, "  not in the net, ignored: %s\n", strings.Join(report.Ignored, ", "))
	}
	if len(report.Kept) > 0 {
		fmt.Fprintf(stdout, "  not in the weights, left at their initial values: %s\n", strings.Join(report.Kept, ", "))
	}
	return nil
}
