// Package caffe is sparknet's Caffe-compatible engine. This part of it
// reads and writes Caffe's files and turns net definitions into the layers
// a net will build, without computing anything.
//
// # Net and solver definitions
//
// LoadNetParameter reads a .prototxt net in protobuf's text format, with
// everything Caffe's parser accepts, and upgrades legacy definitions (V0
// and V1 layers, data-layer transform fields, net-level inputs, BatchNorm
// params) exactly as Caffe does:
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
// parses any message type.
//
// # Binary files
//
// ReadCaffemodel and WriteCaffemodel read and write .caffemodel weights
// (upgraded like text on reading), ReadSolverState and WriteSolverState
// .solverstate files, ReadBlobProto and WriteBlobProto .binaryproto blobs
// such as mean images. Declared sizes are checked against the bytes
// present before anything is allocated, so damaged files give errors that
// name the offset and field. Writes go through a temporary file renamed
// into place. A current-format file read and written back is identical
// byte for byte.
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
// sparknet does not run.
//
// # Weights
//
// CopyWeights copies a .caffemodel's blobs into a net's parameter arrays
// by layer name with Caffe's shape rules, so legacy 4-D blobs load into
// today's shapes; NewParamArrays allocates those arrays for a processed
// net, and NetDef.Proto writes them back as Caffe's snapshots do.
//
// The generated protobuf types live in package caffepb.
package caffe
