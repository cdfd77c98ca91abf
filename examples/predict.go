//go:build ignore

// # Predicting with a trained Caffe net
//
// A trained Caffe model is a definition (.prototxt) and its weights
// (.caffemodel). Running an array of samples through it takes one line
// each to load and to predict:
//
//     net, err := caffe.LoadNet("lenet_train_test.prototxt", "lenet.caffemodel")
//     out, err := net.Predict(x)
//
// The definition may be a deploy one or the train_val one the model was
// trained with; `x` holds any number of samples, and `out` maps each
// output blob to an array with one row per sample. This notebook trains
// LeNet briefly to have weights, then predicts MNIST digits with them. The
// same runs from the command line:
//
//     sparknet predict --model=lenet_train_test.prototxt --weights=lenet.caffemodel --input=x.npy --output=y.npy --transform
//
// Run it as a report:
//
//     go run ./cmd/sparknet-shell --notebook examples/predict.go --out predict.md
//
// SPARKNET_EXAMPLE_ITERS sets the training iterations (tests use few).

// %% Weights to predict with
// Caffe's LeNet solver trains on MNIST for a few hundred iterations and
// snapshots the weights as a .caffemodel, the file Caffe would write.
import "path/filepath"

iters := 300
if v, err := strconv.Atoi(os.Getenv("SPARKNET_EXAMPLE_ITERS")); err == nil && v > 0 {
	iters = v
}
here := filepath.Dir(os.Args[0])
scripts := filepath.Join(here, "..", "scripts")
mnist, err := data.MNISTDir()
if err != nil {
	panic(err)
}
work, _ := os.MkdirTemp("", "predict")
solver, err := caffe.LoadSolverWith(filepath.Join(scripts, "lenet_solver.prototxt"),
	caffe.SolverOptions{DataSource: "mnist:" + mnist, SnapshotPrefix: filepath.Join(work, "lenet")})
if err != nil {
	panic(err)
}
if err := solver.Step(ctx, iters); err != nil {
	panic(err)
}
weights, _, err := solver.Snapshot()
if err != nil {
	panic(err)
}
fmt.Println("trained", solver.Iter(), "iterations:", filepath.Base(weights))

// %% Load the net
// `LoadNet` builds the train_test definition for prediction: its data
// layer becomes an input, of the shape the weights fit (MNIST's 1×28×28),
// and the loss and accuracy, which need labels, are left out. What remains
// ends in `ip2`, the ten class scores.
net, err := caffe.LoadNet(filepath.Join(scripts, "lenet_train_test.prototxt"), weights)
if err != nil {
	panic(err)
}
fmt.Println("inputs:", net.Inputs(), "shape", net.Blob("data").Shape())
fmt.Println("outputs:", net.Outputs())

// %% Samples as an array
// The first 1,000 test images as raw pixels (0 to 255), N×1×28×28.
test, err := data.LoadMNIST(mnist, false)
if err != nil {
	panic(err)
}
n := 1000
x := ndarray.New(n, 1, 28, 28)
labels := make([]float32, n)
if err := test.CopyRange(x.Data(), labels, 0, n, nil); err != nil {
	panic(err)
}
fmt.Println("x:", x.Shape(), "label of the first:", labels[0])

// %% Predict
// The net was trained on pixels scaled by its data layer's
// transform_param (scale: 0.00390625). `PredictWith` applies that
// transform when asked, so raw pixels go in; `Predict` feeds the array as
// it is, for samples prepared already. Any batch size works: the net runs
// 100 samples at a time here, its data layer's batch size.
var out map[string]*ndarray.Array // the output blobs, by name
out, err = net.PredictWith(x, caffe.PredictOptions{Transform: true})
if err != nil {
	panic(err)
}
scores := out["ip2"]
pred := scores.Argmax(1)
right := 0
for i, p := range pred.Data() {
	if p == labels[i] {
		right++
	}
}
fmt.Printf("ip2: %v scores; %d of %d test images right (%.3f)\n", scores.Shape(), right, n, float64(right)/float64(n))

// %% A few predictions
t := display.NewTable("image", "label", "predicted", "score")
for i := 0; i < 8; i++ {
	t.Add(i, labels[i], pred.Data()[i], scores.Index(0, i).MaxAll())
}
t

// %% Features instead of scores
// `Outputs` names other blobs to return, such as the 500 features of
// `ip1` that the classifier reads.
feats, err := net.PredictWith(x.Slice(0, 0, 10), caffe.PredictOptions{Transform: true, Outputs: []string{"ip1"}})
if err != nil {
	panic(err)
}
fmt.Println("ip1:", feats["ip1"].Shape())

// %% To and from NumPy
// `ndarray.Save` writes an array as a .npy file that NumPy reads, and
// `ndarray.Load` reads one back: the files `sparknet predict` takes and
// writes.
path := filepath.Join(work, "x.npy")
if err := ndarray.Save(path, x.Slice(0, 0, 10)); err != nil {
	panic(err)
}
back, err := ndarray.Load(path)
if err != nil {
	panic(err)
}
fmt.Println("x.npy holds", back.Shape())
os.RemoveAll(work)
