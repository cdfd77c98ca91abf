package caffe

import (
	"slices"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// convRows switches the row convolution (kernel.RowConv) on for the
// convolutions it takes; a variable so that tests and benchmarks can
// compare it with the column products.
var convRows = true

// convRowsGrad switches the row convolution's weight gradient on (for
// layers on the row convolution whose input wants no gradient).
var convRowsGrad = true

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
// start into the top (where chunkOut says), one at a time. In a fused
// pass with a ReLU of the output, the row convolution rectifies it as it
// writes it (kernel.RowConv.ForwardReLU), and convFusion.forwardBlock
// leaves it.
func (l *Convolution) forwardRows(s *convScratch, start, nb int) {
	var bias []float32
	if l.bias {
		bias = l.blobs[1].DataSlice()
	}
	y := l.chunkOut(s, start, nb)
	f := l.fused
	for j := range nb {
		x, yj := l.x[(start+j)*l.imgSize:(start+j+1)*l.imgSize], y[j*l.outSize:(j+1)*l.outSize]
		if f != nil && f.relu != nil {
			l.rows.ForwardReLU(s.pad, x, yj, bias, f.relu.slope)
		} else {
			l.rows.Forward(s.pad, x, yj, bias)
		}
	}
}

// backwardRows computes the weight and bias gradients on the row
// convolution, when the layer has one whose weight gradient suits its
// geometry (kernel.RowConv.GradFits: CIFAR-10 quick's first layer, and
// AlexNet's on flat rows) and no bottom wants its gradient (a net's first
// layer), and reports whether it did. The chunks of
// images are cut into parts as on the column path; each part sums its
// images' weight gradient in the lanes of its worker's buffer
// (kernel.RowConv.GradAdd), with the bias gradient beside it where the
// kernels leave a place (kernel.RowConv.GradBias; else summed plane by
// plane as on the column path), into its own buffer (the first into the
// weights' gradient), and the parts are added in order.
func (l *Convolution) backwardRows(top []*Blob, propagateDown []bool, bottom []*Blob) bool {
	if !l.rowsGradApplies(propagateDown[:min(len(top), len(propagateDown))]) {
		return false
	}
	l.wantW = l.paramGrad(0)
	l.wantB = l.bias && l.paramGrad(1)
	l.wantDown = false
	if !l.wantW && !l.wantB {
		return true
	}
	for i := len(top) - 1; i >= 0; i-- {
		l.dy, l.x = top[i].DiffSlice(), bottom[i].DataSlice()
		l.runner.run(l.workers, l.bwdParts, l.rBwdFn)
		l.zeroDW = false
		l.addPartGrads(l.bwdParts)
	}
	l.x, l.dy = nil, nil
	l.colFor = -1
	return true
}

// rowsGradApplies reports whether Backward computes the weight and bias
// gradients on the row convolution (backwardRows) when the bottoms want
// their gradients as propagateDown says.
func (l *Convolution) rowsGradApplies(propagateDown []bool) bool {
	return l.rows != nil && convRowsGrad && l.rows.GradFits() && !slices.Contains(propagateDown, true)
}

// rowsBackwardWorker handles the chunks of part p as goroutine w.
func (l *Convolution) rowsBackwardWorker(w, p int) {
	s, g := l.scratch[w], l.grads[p]
	clear(g.db)
	g.wroteDW, g.merged = false, false
	dw := g.dw
	if p == 0 {
		dw = l.partZeroDW()
	} else if l.wantW {
		clear(dw)
	}
	if l.wantW {
		l.rows.GradBegin(s.pad)
	}
	// The bias gradient in the weight gradient's lanes where the kernels
	// have a place for it, else summed plane by plane.
	inLanes := l.wantW && l.wantB && l.rows.GradBias()
	lo, hi := span(p, l.bwdParts, l.chunks)
	for c := lo; c < hi; c++ {
		start := c * l.chunk
		nb := min(l.chunk, l.num-start)
		dyc := l.chunkGrad(s, start, nb)
		if f := l.fused; f != nil {
			f.backwardBlock(w, start, nb, false, dyc)
		}
		if l.wantB && !inLanes {
			l.addBiasGrad(g.db, dyc, nb)
		}
		if l.wantW {
			l.rows.GradAdd(s.pad, l.x[start*l.imgSize:(start+nb)*l.imgSize], dyc, nb)
		}
	}
	if l.wantW && hi > lo {
		var db []float32
		if inLanes {
			db = g.db
		}
		l.rows.GradEnd(s.pad, dw, db)
		g.wroteDW = true
	}
}
