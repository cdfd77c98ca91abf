// Package caffe is sparknet's Caffe-compatible engine: it reads and writes
// Caffe's files (nets, solvers, weights, solver states), builds nets from
// their definitions, runs their layers forward and backward, and trains
// them with Caffe's solvers, so that a model moves between Caffe and
// sparknet in both directions and learns as it would in Caffe.
//
// # Net and solver definitions
//
// Caffe's files are read and written by package format, below the engine;
// the functions scripts use most are here too. LoadNetParameter reads a
// .prototxt net in protobuf's text format, with everything Caffe's parser
// accepts, and upgrades legacy definitions (V0 and V1 layers, data-layer
// transform fields, net-level inputs, BatchNorm params) exactly as Caffe
// does:
//
//	np, err := caffe.LoadNetParameter("lenet_train_test.prototxt")
//	if err != nil {
//		return err // caffe: lenet_train_test.prototxt:12:5: unknown field "kernal_size" in caffe.ConvolutionParameter (did you mean "kernel_size"?); valid fields: ...
//	}
//
// LoadSolverParameterWith reads a solver and reads the nets it names,
// looking next to the solver, by base name, and in extra folders; then
// TrainNetParameter and TestNetParameters give the nets with their states:
//
//	sp, err := caffe.LoadSolverParameterWith("lenet_solver.prototxt",
//		caffe.LoadOptions{SearchDirs: []string{"models/mnist"}})
//	train, err := caffe.TrainNetParameter(sp)
//
// FormatText writes any message back in Caffe's text style, and ParseText
// parses any message type. ReadCaffemodel and WriteCaffemodel read and
// write .caffemodel weights (upgraded like text on reading),
// ReadSolverState and WriteSolverState .solverstate files, ReadBlobProto and
// WriteBlobProto .binaryproto blobs such as mean images; damaged files give
// errors that name the offset and field, and writes never leave a torn
// file. Package format has the rest: decoding any message, the upgrades on
// their own, and the positions of parsed layers.
//
// # Processing a net
//
// ProcessNet builds the definition of a net for a NetState (phase, level,
// stages) as Caffe's Net does: layers filtered by their include/exclude
// rules, Split layers inserted for blobs read more than once (with Caffe's
// names), loss weights and parameter specs (sharing by name, lr_mult,
// decay_mult) resolved. InferShapes computes every blob's shape and every
// parameter's shape with Caffe's rules, and Summarize tabulates them:
//
//	def, err := caffe.ProcessNet(np, caffe.NetState{Phase: caffe.Train})
//	sum, err := caffe.Summarize(def, map[string][]int{"data": {64, 1, 28, 28}})
//	fmt.Print(sum)
//
// Every layer type Caffe registers is known (LayerTypes), also those
// sparknet does not run (HDF5Data, WindowData, LSTM, ...).
//
// # Layer types
//
// Each layer type is registered once, in the file that implements it
// (layer_pooling.go registers Pooling): a LayerType gives its name, how
// many bottoms and tops it takes, whether it is a loss or reads data, its
// constructor and its shape rule. The constructor reads and checks the
// layer's parameters; Setup allocates and reads files. The shape rule is a
// method of the layer that reads the settings the constructor parsed and
// shares its computation with Reshape, so a layer's parameters are parsed
// in one place. ProcessNet, InferShapes, Summarize and Net all work from
// the registration.
//
// Programs register their own layers the same way, and nets naming them
// process, summarise, build, train and save their weights like any other:
//
//	caffe.RegisterLayer("TimesW", func(def *caffepb.LayerParameter, env *caffe.LayerEnv) (caffe.Layer, error) {
//		return &timesW{}, nil
//	})
//
// A type registered by RegisterLayer alone takes any number of blobs and
// has no shape rule: shape inference sets a layer up on blobs of its
// input's shape, and a net counts its parameter blobs once it is set up.
// RegisterLayerType registers blob counts, flags and a shape rule too;
// registering a name twice is an error, and ReplaceLayerType replaces a
// program's own type (sparknet's stay). A shell session registers layers
// written in it, interpreted types implementing Layer, the same way, and
// ReplaceLayerType lets the cell that defines one run again (see
// examples/custom_layer.go): interpreted layers are slower, but run
// wherever a net runs, on the trainer's workers too. Caffe's Python layers
// run the Go layer registered under "module.layer" (or "layer") of their
// python_param, which gets param_str in its definition, so nets written
// for pycaffe layers load once those are registered; without one they
// still process and summarise, and building them says what to register.
// GradientCheck checks a layer's Backward against numeric differences.
//
// # Weights
//
// CopyWeights copies a .caffemodel's blobs into a net's parameter arrays
// by layer name with Caffe's shape rules, so legacy 4-D blobs load into
// today's shapes; NewParamArrays allocates those arrays for a processed
// net, and NetDef.Proto writes them back as Caffe's snapshots do.
//
// # Nets
//
// A Net is built from a definition for a phase: its layers come from the
// registry of types (an unknown type is an error listing the known ones),
// its blobs hold data and gradients, and it runs Forward, Backward and
// ForwardBackward:
//
//	net, err := caffe.LoadNetPhase("lenet_train_test.prototxt", caffe.Test)
//	_, err = net.LoadWeights("lenet_iter_10000.caffemodel") // V1 files too
//	loss, err := net.Forward()
//	acc := net.Blob("accuracy").DataSlice()[0]
//
// Weights returns the learnable parameters as an ndarray.WeightCollection
// of views (no copy); SetWeights copies values in. A net reshapes itself
// when its input shape changes, and NetOptions.Threads says how many
// goroutines its kernels may use (1 for a worker that owns one core).
//
// Data enters a net through Caffe's Data layer, which reads its source
// through package data's registry of formats, the one rdd's sc.Read uses
// (LMDB and LevelDB databases of Datum records, MNIST IDX and CIFAR-10
// binary files, Parquet, CSV, image folders and lists: data.Formats;
// data.RegisterFormat adds one), into a data.Batcher with Caffe's
// transform_param, or through MemoryData layers fed from Go
// (MemoryData.SetFeeder, or SetFeederInPieces for a feeder that can fill
// a batch in consecutive pieces): ReplaceDataLayers turns a definition's Data
// layers into MemoryData layers of the same tops and batch size, which is
// how package sparknet feeds nets from RDD partitions.
//
// # Predictions
//
// LoadNet reads a definition (deploy or train_val) and its weights for
// running on arrays, and Predict runs an NDArray of any number of samples
// through it, returning the output blobs:
//
//	net, err := caffe.LoadNet("lenet_train_test.prototxt", "lenet_iter_10000.caffemodel")
//	out, err := net.Predict(x)                                              // x: N×1×28×28, scaled as the net was trained
//	out, err = net.PredictWith(raw, caffe.PredictOptions{Transform: true}) // raw pixels: the data layer's scale, mean and crop first
//	labels := out["ip2"].Argmax(1)
//
// A train_val definition's data layers become inputs and the layers that
// read labels (losses, accuracies) are left out; the shapes the data layers
// would have read from their databases are found from the weights.
//
// # Speed
//
// Convolutions with stride 1 and no dilation (all of LeNet's, and
// CIFAR-10 quick's and AlexNet's but their first) run on the direct
// convolution of package kernel, which works on blocks of images
// interleaved in vector lanes and needs no column matrices (a last block
// of at most half the lanes, CIFAR-10 quick's 4 images after six blocks
// of 16, with the images' strips in the lanes: kernel.DirectTail); the
// others multiply column matrices (im2col) of chunks of images. A stride-1 layer
// with few input channels and many outputs (CIFAR-10 quick's first)
// runs Forward on the row convolution of package kernel (one image at a
// time, its output rows in the lanes, the same sums as the column
// products, bit for bit), as does AlexNet's first (stride 4); CIFAR-10
// quick's first computes its weight gradient there too, when its input
// wants none (a net's first layer), in another order than the column
// products (on the direct convolution where the row convolution does not
// take the geometry). The
// direct convolution adds a convolution's products in another order than
// the column products, so
// results agree to rounding, not bit for bit; both are deterministic.
//
// Net.Forward and Net.Backward run a convolution, an in-place ReLU of its
// top, a MAX or AVE pooling of that top and an in-place ReLU of the
// pooling's as one pass over the batch, a block of images at a time, so
// that the pooling reads what the convolution wrote while it is in the
// core's cache, and the pooling's gradient is read back the same way
// (LeNet's conv1–pool1 and conv2–pool2, CIFAR-10 quick's three stages).
// On the direct convolution the ReLU and the pooling run on the
// convolution's interleaved blocks (kernel.DirectConv.NewPool: LeNet's
// MAX, CIFAR-10 quick's overlapping AVE after a ReLU), their gradients
// routed back into the convolution's own layouts without a pass over the
// convolution's top in Caffe's layout (which Net.SetKeepTops(false), as
// the trainer trains, leaves unwritten, and its gradient too). With
// Net.SetKeepTops(false) a group on the column path without a ReLU
// before its pooling (CIFAR-10 quick's conv1) keeps each chunk's output
// and output gradient in a worker's buffer instead of the top. On the row
// convolution (AlexNet's conv1) the ReLU runs as the output is written
// (kernel.RowConv.ForwardReLU); a cross-channel LRN that is the only other
// reader of a group's rectified top (AlexNet's norm1 and norm2) computes
// the ReLU's gradient in its own backward pass (kernel.LRNBackwardReLU),
// and the group then leaves it out. A cross-channel LRN and the MAX or AVE
// pooling of its output (AlexNet's norm1–pool1 and norm2–pool2) run as
// one pass over the images, each image pooled right after it is
// normalised and its pooling's gradient routed right before the LRN's
// backward reads it; with Net.SetKeepTops(false) the LRN's output and
// gradient stay in a worker's buffer of one image. Where the LRN reads a
// group's rectified top and the group's convolution computes its weight
// gradient on the row convolution (AlexNet's conv1), the pair's backward
// runs inside the group's, an image at a time, right before the weight
// gradient reads the image's output gradient.
// Every value is computed as when the layers run one by one, so the
// results are identical. With several threads the group is shared out
// over images, the convolution's blocks or chunks, with one hand-off;
// two groups in a row whose convolutions run on the direct path in the
// same blocks of images (LeNet's conv1 and conv2 groups, CIFAR-10
// quick's conv2 and conv3) run as one run, forward and backward, each
// part taking a block's images through both (backward, a part offers its
// block's weight gradient to a thread that has no part left, which
// computes it beside the part's input gradient, and the parts' weight
// gradients are added and the weights updated by ranges in the same run,
// the first convolution's as soon as every part has its weight
// gradient); and a pass packs the direct convolutions' weights ahead on the other
// threads while the layers before them (a data layer, the loss) run on
// the calling goroutine alone (in a solver's iteration, the backward
// pass's weights while the forward pass runs its last, small layers).
// A MemoryData layer whose feeder fills a batch in pieces
// (MemoryData.SetFeederInPieces) and the chained groups that read its
// data run as one run too: each goroutine feeds the images it convolves,
// in order, while the calling one packs the weights.
// An inner product and an in-place ReLU of its top run as one run, each
// part of the product rectifying what it wrote (LeNet's ip1 and relu1),
// and backward an inner product passes its input gradient through the
// gradient of the in-place ReLU of its input (LeNet's ip2 and relu1).
// Net.ForwardLayer and Net.BackwardLayer, and so TimeNet, run the layers
// one by one.
// A ReLU in place on a large blob that no later layer writes (not
// before an in-place Dropout, say) records in Forward which outputs are
// positive, a bit each, and its Backward reads those bits instead of the
// outputs (kernel.ReluSigns, kernel.ReluGradSigns), the same values.
//
// Built with the parstats tag, the passes and the layers' parallel runs
// keep an account of each step's time (serial stretches, each
// goroutine's busy time and waits, per layer); TestParStats prints it
// for LeNet and CIFAR-10 quick on one and two threads, with
// PARSTATS_BEST=0.25 for the quarter of the steps that ran fastest (on
// a loaded machine, those that ran undisturbed):
//
//	go test -tags parstats -run TestParStats -v ./caffe
//
// With PARSTATS_SERIAL=1 the two-thread steps run their parallel runs'
// parts one after the other on one thread and the report plays each run
// out on two goroutines from its parts' CPU times, as the runner deals
// and claims them: the balance of the parts and the serial stretches,
// which a busy machine's load does not distort (the hand-offs' latencies
// and the two cores' shared caches left out).
//
// Net.FLOPs and Net.LayerFLOPs count the floating-point operations of the
// passes as the net runs them: the multiply-adds (two operations each) of
// Convolution, Deconvolution and InnerProduct, forward, weight gradient and
// input gradient where wanted; other layers count none. TimeNet times the
// passes layer by layer on wall-clock and CPU clocks (the thread's CPU
// time on one thread, which other processes on the machine do not
// inflate) and measures the FMA peak of a core with the kernels' probe
// (kernel.MeasurePeak) between the iterations, so that a net's FLOP rate
// is given as a share of the peak measured in the same run; `sparknet time
// --flops` prints it.
//
// # Solvers
//
// A Solver trains a net as Caffe's solvers do — SGD, Nesterov, AdaGrad,
// RMSProp, AdaDelta and Adam, with every lr_policy, L1/L2 weight decay
// with lr_mult and decay_mult, clip_gradients, iter_size, test nets every
// test_interval, and snapshots:
//
//	s, err := caffe.LoadSolverWith("lenet_solver.prototxt", caffe.SolverOptions{DataSource: "mnist:/data/mnist"})
//	s.OnStep(func(e caffe.StepEvent) { ... })   // events, never prints
//	err = s.Step(ctx, 1000)                     // stops between iterations when ctx is cancelled
//	model, state, err := s.Snapshot()           // <prefix>_iter_1000.caffemodel / .solverstate
//	err = s.Restore(state)                      // Caffe's own .solverstate files too
//
// A solver state names its weights file by the path its snapshot prefix
// gave; Restore looks beside the state first (the model of the same stem,
// then the named file's base name, with or without .caffemodel as 2014
// Caffe wrote them), so a copied snapshot folder restores its own weights,
// and RestoredWeights says which file it loaded.
//
// A diverging loss (NaN or Inf) stops training with an error naming the
// iteration and the first layer whose output is not finite.
//
// With iter_size 1, no clip_gradients and a built-in update rule, an
// iteration clears each parameter's gradient just before the first layer
// that adds to it runs its backward, and updates the parameter just after
// the last one has (an inner product writes its weights' gradient
// instead of adding to a cleared one, and updates its weights block by
// block as it computes them, each block's gradient in a buffer that stays
// in the cache and the update written to the diff without reading it;
// one with weights beyond the cache, 2^20 values or more, reads them once
// for the input gradient, the weight gradient and the update,
// kernel.FCBackward), with the same values, bit for bit, as
// clearing, running forward and backward and then updating; after Step
// the diffs hold the last update, as in Caffe. With SGD, that update is
// the new history: the step of an inner product's weights whose gradient
// comes in buffers (all but the small ones that two threads compute
// beside their input gradient) does not write the diff at all (58.6M
// values a step for AlexNet's fc6–fc8, 400K for LeNet's ip1) but leaves
// it deferred to the history (Blob.deferDiff), copied into the
// diff when anything reads it (DiffSlice, Diff, ToProto with diffs) or
// before the history changes (SetHistory, Restore); a blob whose diff
// storage has been handed out, or a solver whose history views have
// (Solver.History), writes the diff at every step. Net.Backward and
// Net.ForwardBackward add to the diffs as before. A layer that fails in
// the middle of a backward pass leaves the parameters of the layers above
// it updated.
//
// The generated protobuf types live in package caffepb.
package caffe
