//go:build ignore

// # A layer written in the shell
//
// Caffe users write new layers in Python, as pycaffe's Python layer. In
// sparknet a layer is a Go type with the methods of `caffe.Layer` (Setup,
// Reshape, Forward, Backward, Params, Type), and the shell's Go is enough
// to write one: the type below is interpreted, registers like one of
// sparknet's own, passes the gradient checker and trains LeNet on the
// SparkNet trainer's workers. Interpreted code is slower than compiled
// code, but computes the same thing; a layer that proves itself here can
// move into a Go package unchanged.
//
//     go run ./cmd/sparknet-shell --notebook examples/custom_layer.go --out custom_layer.md
//
// The environment variables SPARKNET_EXAMPLE_ROUNDS, SPARKNET_EXAMPLE_TAU
// and SPARKNET_EXAMPLE_TEST make it smaller (tests use them).

// %% Settings
import (
	"math/rand/v2"
	"path/filepath"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

setting := func(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
rounds := setting("SPARKNET_EXAMPLE_ROUNDS", 10) // averaging rounds
tau := setting("SPARKNET_EXAMPLE_TAU", 50)       // local SGD steps per round
testN := setting("SPARKNET_EXAMPLE_TEST", 10000) // test images to evaluate on
here := filepath.Dir(os.Args[0]) // this notebook's folder, when run as a notebook or script
if _, err := os.Stat(filepath.Join(here, "lenet_leaky.prototxt")); err != nil {
	here = "examples" // loaded with :load from the repository's root
}
fmt.Printf("%d workers, %d rounds of %d steps, %d test images\n", sc.Workers(), rounds, tau, testN)

// %% The layer
// A leaky ReLU whose negative slope is learned: y = x where x > 0 and
// y = a·x elsewhere, with one slope a for the whole blob (Caffe's PReLU
// with channel_shared computes the same). Backward adds the slope's
// gradient, Σ dy·x over the negative inputs, to the parameter's diff (a
// net clears the diffs once per iteration; layers add to them) and
// overwrites the bottom's diff.
type learnedLeakyReLU struct {
	start float32     // the slope a starts at
	a     *caffe.Blob // the slope, a parameter the solver learns
}

func (l *learnedLeakyReLU) Type() string { return "LearnedLeakyReLU" }

func (l *learnedLeakyReLU) Setup(bottom, top []*caffe.Blob) error {
	if bottom[0] == top[0] {
		return fmt.Errorf("LearnedLeakyReLU cannot work in place: give it a top of its own")
	}
	l.a = caffe.NewBlob()
	l.a.DataSlice()[0] = l.start
	return l.Reshape(bottom, top)
}

func (l *learnedLeakyReLU) Reshape(bottom, top []*caffe.Blob) error {
	top[0].ReshapeLike(bottom[0])
	return nil
}

func (l *learnedLeakyReLU) Forward(bottom, top []*caffe.Blob) error {
	a, y := l.a.DataSlice()[0], top[0].DataSlice()
	for i, x := range bottom[0].DataSlice() {
		if x > 0 {
			y[i] = x
		} else {
			y[i] = a * x
		}
	}
	return nil
}

func (l *learnedLeakyReLU) Backward(top []*caffe.Blob, propagateDown []bool, bottom []*caffe.Blob) {
	a, x, dy := l.a.DataSlice()[0], bottom[0].DataSlice(), top[0].DiffSlice()
	var da float32
	for i, v := range x {
		if v <= 0 {
			da += dy[i] * v
		}
	}
	l.a.DiffSlice()[0] += da
	if propagateDown[0] {
		dx := bottom[0].DiffSlice()
		for i, v := range x {
			if v > 0 {
				dx[i] = dy[i]
			} else {
				dx[i] = a * dy[i]
			}
		}
	}
}

func (l *learnedLeakyReLU) Params() []*caffe.Blob { return []*caffe.Blob{l.a} }

// %% Registering it
// A layer type is registered once with its name, blob counts, constructor
// and shape rule. The constructor gets the layer's definition: here it
// reads the starting slope from python_param's param_str, so that nets
// written for a pycaffe layer of the same name run it too — a Python
// layer naming module "shell_layers", layer "LearnedLeakyReLU" runs the
// type registered under "shell_layers.LearnedLeakyReLU". The shape rule
// (top like bottom, one scalar parameter) lets summaries count the
// parameters without setting the layer up. ReplaceLayerType, unlike
// RegisterLayerType, lets this cell run again after an edit.
newLeaky := func(def *caffepb.LayerParameter, env *caffe.LayerEnv) (caffe.Layer, error) {
	l := &learnedLeakyReLU{start: 0.25}
	if s := def.GetPythonParam().GetParamStr(); s != "" {
		a, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, fmt.Errorf("param_str %q is not a slope", s)
		}
		l.start = float32(a)
	}
	return l, nil
}
leakyShape := func(c *caffe.ShapeContext) error {
	c.Params = []caffe.Shape{{}}
	c.SameShapes()
	return nil
}
for _, name := range []string{"LearnedLeakyReLU", "shell_layers.LearnedLeakyReLU"} {
	err := caffe.ReplaceLayerType(caffe.LayerType{Name: name, Bottoms: caffe.Exactly(1), Tops: caffe.Exactly(1), New: newLeaky, Shape: leakyShape})
	if err != nil {
		panic(err)
	}
}
lt, err := caffe.LookupLayerType("LearnedLeakyReLU")
fmt.Printf("%s: %s bottom, %s top, runs: %v\n", lt.Name, lt.Bottoms, lt.Tops, lt.Runs())

// %% Checking its gradient
// caffe.GradientCheck compares Backward with central differences of
// Forward, for the bottom and the slope, as Caffe's GradientChecker does.
// The inputs stay away from 0, where the function has a kink. The same
// layer made from a pycaffe-style definition is checked against Caffe's
// PReLU with one shared slope, which computes the same function.
layerOf := func(text string) caffe.Layer {
	def := &caffepb.LayerParameter{}
	if err := caffe.ParseText("layer", []byte(text), def); err != nil {
		panic(err)
	}
	l, err := caffe.NewLayer(def, nil)
	if err != nil {
		panic(err)
	}
	return l
}
rng := rand.New(rand.NewPCG(1, 2))
x := caffe.NewBlob(4, 3, 5, 5)
for i := range x.DataSlice() {
	v := 0.1 + 0.9*rng.Float32()
	if rng.IntN(2) == 0 {
		v = -v
	}
	x.DataSlice()[i] = v
}
leaky, y := layerOf(`name: "leaky" type: "LearnedLeakyReLU"`), caffe.NewBlob()
if err := leaky.Setup([]*caffe.Blob{x}, []*caffe.Blob{y}); err != nil {
	panic(err)
}
if err := (caffe.GradientCheck{}).Run(leaky, []*caffe.Blob{x}, []*caffe.Blob{y}); err != nil {
	panic(err)
}
fmt.Printf("gradient check passed: %d inputs and the slope\n", x.Count())

py := layerOf(`name: "py" type: "Python" python_param { module: "shell_layers" layer: "LearnedLeakyReLU" param_str: "0.1" }`)
prelu := layerOf(`name: "prelu" type: "PReLU" prelu_param { channel_shared: true filler { type: "constant" value: 0.1 } }`)
y1, y2 := caffe.NewBlob(), caffe.NewBlob()
for _, run := range []struct {
	l caffe.Layer
	y *caffe.Blob
}{{py, y1}, {prelu, y2}} {
	if err := run.l.Setup([]*caffe.Blob{x}, []*caffe.Blob{run.y}); err != nil {
		panic(err)
	}
	if err := run.l.Forward([]*caffe.Blob{x}, []*caffe.Blob{run.y}); err != nil {
		panic(err)
	}
}
same := 0
for i, v := range y1.DataSlice() {
	if v == y2.DataSlice()[i] {
		same++
	}
}
fmt.Printf("the Python layer (%s, slope 0.1) and PReLU agree on %d of %d outputs\n", py.Type(), same, y1.Count())

// %% LeNet with the layer
// lenet_leaky.prototxt is Caffe's LeNet with a LearnedLeakyReLU layer
// ("leaky1") in place of relu1. The solver is LeNet's; its net is
// replaced by this one. The summary counts the slope: one parameter.
solver, err := caffe.LoadSolverParameter(filepath.Join(here, "lenet_solver.prototxt"))
if err != nil {
	panic(err)
}
net, err := caffe.LoadNetParameter(filepath.Join(here, "lenet_leaky.prototxt"))
if err != nil {
	panic(err)
}
solver.Net, solver.NetParam = nil, net
def, err := caffe.ProcessNet(net, caffe.NetState{Phase: caffe.Train})
if err != nil {
	panic(err)
}
summary, err := caffe.Summarize(def, map[string][]int{"data": {64, 1, 28, 28}})
if err != nil {
	panic(err)
}
summary

// %% Training on the workers
// The trainer builds one replica of the net per partition, on the
// workers; each replica makes its own LearnedLeakyReLU through the
// registered constructor and runs the interpreted Forward and Backward.
// The slope is a weight like the others: averaged every round.
dir, err := data.MNISTDir()
if err != nil {
	panic(err)
}
train, err := sc.MNIST(dir, true, sc.Workers())
if err != nil {
	panic(err)
}
testSet, err := data.LoadMNIST(dir, false)
if err != nil {
	panic(err)
}
if testN < testSet.Len() {
	testSet = testSet.Slice(0, testN)
}
test := sc.ParallelizeSamples(testSet, sc.Workers())
trainer, err := sparknet.Parallelize(sc, solver, train.Cache(), sparknet.Options{Tau: tau, Seed: 1})
if err != nil {
	panic(err)
}
start := time.Now()
if err := trainer.Rounds(ctx, rounds); err != nil {
	panic(err)
}
result, err := trainer.Test(ctx, test)
if err != nil {
	panic(err)
}
interpreted := time.Since(start)
fmt.Printf("%d rounds of %d iterations in %s: test accuracy %.4f on %d images\n",
	rounds, tau, interpreted.Round(time.Second), result.Accuracy, result.N)
fmt.Printf("the learned slope: %.4f (it started at 0.25)\n", trainer.Weights().Get("leaky1")[0].Data()[0])

// %% The same net with compiled code
// Caffe's PReLU with one shared slope (starting at 0.25) computes the
// same function, and adds up the slope's gradient in the same order, so
// LeNet trained with it in place of the interpreted layer, from the same
// seed, must end with the very same weights. The interpreted layer is
// slower; how much depends on how much of the net's work it does.
prelu := "PReLU"
shared := true
compiled, err := caffe.LoadNetParameter(filepath.Join(here, "lenet_leaky.prototxt"))
if err != nil {
	panic(err)
}
for _, l := range compiled.Layer {
	if l.GetName() == "leaky1" {
		l.Type, l.PreluParam = &prelu, &caffepb.PReLUParameter{ChannelShared: &shared}
	}
}
solver.NetParam = compiled
reference, err := sparknet.Parallelize(sc, solver, train, sparknet.Options{Tau: tau, Seed: 1})
if err != nil {
	panic(err)
}
start = time.Now()
if err := reference.Rounds(ctx, rounds); err != nil {
	panic(err)
}
fmt.Printf("PReLU: %d rounds in %s; the interpreted layer took %.1f× as long\n", rounds,
	time.Since(start).Round(time.Second), interpreted.Seconds()/time.Since(start).Seconds())
fmt.Printf("largest difference between the two runs' weights: %g\n", trainer.Weights().MaxDiff(reference.Weights()))
reference.Close()

// %% Saving and loading
// The model saves as a .caffemodel like any other; loading it back builds
// the layer through the registry again, with the learned slope.
work, err := os.MkdirTemp("", "custom_layer")
if err != nil {
	panic(err)
}
model := filepath.Join(work, "lenet_leaky.caffemodel")
if err := trainer.Net().SaveWeights(model); err != nil {
	panic(err)
}
loaded, err := caffe.LoadNet(filepath.Join(here, "lenet_leaky.prototxt"), model)
if err != nil {
	panic(err)
}
fmt.Printf("%s: slope %.4f\n", filepath.Base(model), loaded.Params("leaky1")[0].DataSlice()[0])
trainer.Close()
os.RemoveAll(work)
