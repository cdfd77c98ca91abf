// Package format reads and writes Caffe's files: net and solver
// definitions in protobuf's text format (.prototxt), and the binary
// .caffemodel, .solverstate and .binaryproto files, and upgrades legacy
// definitions (V0 and V1 layers, data-layer transform fields, net-level
// inputs, BatchNorm params, solver_type) exactly as Caffe does. It needs
// only the schema (package caffepb); the engine that builds and runs nets
// (package caffe) sits above it, and re-exports the functions scripts use
// most (caffe.LoadNetParameter, caffe.ReadCaffemodel, ...).
//
// # Text
//
// LoadNetParameter reads a .prototxt net, with everything Caffe's parser
// accepts (comments, both list syntaxes, <...> blocks, C escapes, float
// suffixes), and upgrades it:
//
//	np, err := format.LoadNetParameter("lenet_train_test.prototxt")
//	if err != nil {
//		return err // caffe: lenet_train_test.prototxt:12:5: unknown field "kernal_size" in caffe.ConvolutionParameter (did you mean "kernel_size"?); valid fields: ...
//	}
//
// Errors name file:line:col, suggest the closest field, enum value or
// name, and say which block a missing "}" left open. Where each layer of a
// parsed file was defined is remembered (LayerPos), so that errors the
// engine finds later about a layer name the file and line too.
// ParseSolverParameter reads a solver; ParseText parses any message type,
// and FormatText writes any message back in Caffe's text style.
//
// # What is valid
//
// ParseText accepts exactly what C++ protobuf's text parser accepts, which
// is what Caffe reads files with: numbers such as 10.5, 250. and 35.0, 1e3
// and 2.5f; a non-repeated field given twice is an error, as is a UTF-8
// byte order mark. google.golang.org/protobuf/encoding/prototext is the
// reference for the rest: a differential test and a fuzz target parse
// every .prototxt in the repository and every fuzzed input with both and
// require the same verdict and the same message, except where the C++
// parser, and so Caffe, differs from the Go one:
//
//   - an enum field given a number that names no value is an error (proto2
//     enums are closed); prototext keeps the number;
//   - an integer written in octal (010) or hex (0x10) for a float field is
//     an error ("expected a decimal number"); prototext reads it;
//   - bytes in a string literal that are not UTF-8 are kept; prototext
//     refuses them;
//   - an octal escape past \377 keeps its low eight bits, an unpaired
//     surrogate escape (\ud800) is encoded as it is, and a \U escape past
//     U+10FFFF stays as its text; prototext refuses all three;
//   - -nan, and a minus sign parted from inf or nan by space or a comment,
//     are read; prototext refuses them;
//   - vertical tab and form feed are white space; prototext refuses them.
//
// # Binary files
//
// ReadCaffemodel and WriteCaffemodel read and write .caffemodel weights
// (upgraded like text on reading), ReadSolverState and WriteSolverState
// .solverstate files, ReadBlobProto and WriteBlobProto .binaryproto blobs
// such as mean images. Declared sizes are checked against the bytes present
// before anything is allocated, so a damaged file gives a DecodeError that
// names the offset and the field. Writes go through a temporary file renamed
// into place, so a crash never leaves a torn file. A current-format file
// read and written back is identical byte for byte.
//
// BlobShape, BlobData, ShapeEquals and CopyBlobData read a stored blob by
// Caffe's rules (legacy num/channels/height/width included).
//
// # Upgrades
//
// NetNeedsUpgrade reports whether a definition is in a legacy format, and
// UpgradeNetParameter rewrites it in place into the current one, keeping
// the positions of its layers; UpgradeSolverParameter turns the deprecated
// solver_type enum into the type string.
package format
