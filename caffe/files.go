package caffe

import (
	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

// Caffe's files are read and written by package format, below the engine.
// The functions here are the ones scripts reach for most, kept in package
// caffe so that caffe.LoadNetParameter and friends read as before; each
// calls its namesake in format.

// Position is a place in a text file (see format.Position).
type Position = format.Position

// ParseError is an error in a text file at a position (see
// format.ParseError).
type ParseError = format.ParseError

// LoadNetParameter reads a net definition (.prototxt) and upgrades it to
// the current format; see format.LoadNetParameter.
func LoadNetParameter(path string) (*caffepb.NetParameter, error) {
	return format.LoadNetParameter(path)
}

// ParseNetParameter parses a net definition in text format and upgrades it
// to the current format; see format.ParseNetParameter.
func ParseNetParameter(name string, src []byte) (*caffepb.NetParameter, error) {
	return format.ParseNetParameter(name, src)
}

// ParseSolverParameter parses a solver definition in text format and
// upgrades it; see format.ParseSolverParameter.
func ParseSolverParameter(name string, src []byte) (*caffepb.SolverParameter, error) {
	return format.ParseSolverParameter(name, src)
}

// ParseText parses src, in protobuf's text format as Caffe writes it, into
// m; see format.ParseText.
func ParseText(name string, src []byte, m proto.Message) error { return format.ParseText(name, src, m) }

// FormatText writes m in Caffe's text style; see format.FormatText.
func FormatText(m proto.Message) string { return format.FormatText(m) }

// ReadCaffemodel reads a .caffemodel (any Caffe version) and upgrades it to
// the current format; see format.ReadCaffemodel.
func ReadCaffemodel(path string) (*caffepb.NetParameter, error) { return format.ReadCaffemodel(path) }

// WriteCaffemodel writes a .caffemodel atomically; see
// format.WriteCaffemodel.
func WriteCaffemodel(path string, np *caffepb.NetParameter) error {
	return format.WriteCaffemodel(path, np)
}

// ReadSolverState reads a .solverstate; see format.ReadSolverState.
func ReadSolverState(path string) (*caffepb.SolverState, error) { return format.ReadSolverState(path) }

// WriteSolverState writes a .solverstate atomically; see
// format.WriteSolverState.
func WriteSolverState(path string, st *caffepb.SolverState) error {
	return format.WriteSolverState(path, st)
}

// ReadBlobProto reads a .binaryproto blob such as a mean image; see
// format.ReadBlobProto.
func ReadBlobProto(path string) (*caffepb.BlobProto, error) { return format.ReadBlobProto(path) }

// WriteBlobProto writes a .binaryproto atomically; see
// format.WriteBlobProto.
func WriteBlobProto(path string, b *caffepb.BlobProto) error { return format.WriteBlobProto(path, b) }

// BlobShape returns the shape of a stored blob; see format.BlobShape.
func BlobShape(b *caffepb.BlobProto) []int { return format.BlobShape(b) }

// BlobData returns the values of a stored blob as float32; see
// format.BlobData.
func BlobData(b *caffepb.BlobProto) ([]float32, error) { return format.BlobData(b) }
