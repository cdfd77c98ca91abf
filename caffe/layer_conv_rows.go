package caffe

import "github.com/sparknet-go/sparknet/ndarray/kernel"

// convRows switches the row convolution (kernel.RowConv) on for the
// convolutions it takes; a variable so that tests and benchmarks can
// compare it with the column products.
var convRows = true

// convRowsMaxChannels is the most input channels of a layer on the row
// convolution: a net's first layer (its image's colours).
const convRowsMaxChannels = 4

// setupRows plans the row convolution of a layer on the column path when
// it applies: few input channels (a net's first layer: CIFAR-10 quick's,
// with many outputs, see setupDirect, and AlexNet's, with stride 4), no
// dilation, one group, a kernel larger than 1×1, and a geometry the
// kernels take. Forward then convolves each image of a chunk in place of
// the chunk's columns and product, with the same values, bit for bit;
// Backward stays as it was.
func (l *Convolution) setupRows() {
	if !convRows || l.channels > convRowsMaxChannels || l.dilH != 1 || l.dilW != 1 || l.group != 1 || l.kh*l.kw == 1 {
		l.rows = nil
		return
	}
	if l.rows == nil || l.rowsGeom != [...]int{l.channels, l.height, l.width} {
		l.rows = kernel.NewRowConv(l.channels, l.height, l.width, l.numOutput, l.kh, l.kw, l.padH, l.padW, l.strideH, l.strideW)
		l.rowsGeom = [...]int{l.channels, l.height, l.width}
	}
	if l.rows == nil {
		return
	}
	for _, s := range l.scratch {
		if s.padFor != l.rows {
			// Made zero: the padding stays so.
			s.pad, s.padFor = make([]float32, l.rows.ScratchSize()), l.rows
		}
	}
}

// forwardRows convolves the nb images of the chunk starting at image
// start into the top, one at a time.
func (l *Convolution) forwardRows(s *convScratch, start, nb int) {
	var bias []float32
	if l.bias {
		bias = l.blobs[1].DataSlice()
	}
	for j := start; j < start+nb; j++ {
		l.rows.Forward(s.pad, l.x[j*l.imgSize:(j+1)*l.imgSize], l.y[j*l.outSize:(j+1)*l.outSize], bias)
	}
}
