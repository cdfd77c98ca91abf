package kernel

import "fmt"

// The direct convolution of a small last block.
//
// A batch that is not a multiple of the lanes leaves a last block of a
// few images; in a DirectConv's blocks it would cost as much as a full
// one. A DirectTail fills the lanes with the strips of a few images
// instead: with slots image slots (a divisor of the lanes, at least the
// images) and q = lanes/slots strips, lane j·slots + i of a vector holds
// image i's strip j, the columns [j·G, (j+1)·G) of the output (and of the
// input gradient), G = ⌈max(output width, input width)/q⌉. Each strip's
// rows carry the columns its windows read beyond it (kw−1, zero outside
// the image), so the kernels of the blocks (the tile and the weight
// gradient's) run on them unchanged, through offset tables of the
// strips' layouts:
//
//	input    [C][H+2·padH][G+kw−1][L]      (channel-major, the border zero)
//	gradient [OH+2·(kh−1−padH)][G+kw−1][M][L]
//	output   [OH][G][M][L] (input gradient [H][G][C][L])
//
// The forward pass and the input gradient multiply, for the pixels at
// the image's left and right edges, the zeros their windows read (a few
// percent more multiply-adds than the blocks, which skip them); the
// weight gradient sums each lane over its strip's pixels and then the
// lanes, strip by strip. The layouts are written and read by plain loops:
// the tail's images are few.

// DirectTail is the plan of a DirectConv for a last block of at most a
// given number of images (see above), with its buffers. It uses the
// weights its DirectConv packed (PackForward, PackBackward). A
// DirectTail is used by one goroutine at a time.
type DirectTail struct {
	d                *DirectConv
	slots, q, g      int // image slots, strips, columns of a strip
	xw               int // vectors of a row of the strips' input and gradient: g+kw−1
	ph, dh           int // rows of the padded input and gradient
	offF, offB, offG []int32
	x                []float32 // the input, channel-major
	dy               []float32 // the padded output gradient, pixel-major
	y                []float32 // an output or input-gradient block
	acc              []float32 // the weight gradient's sums of a chunk
	n                int       // images whose gradient dy holds (LoadGrad), or 0
	xn, dyn          int       // images loaded last into x and dy
}

// NewTail returns the plan of d for blocks of 1 to images images, or nil
// if images is below 1 or above half the lanes (where a block of lanes
// wastes less).
func (d *DirectConv) NewTail(images int) *DirectTail {
	L := d.lanes
	if images < 1 || 2*images > L {
		return nil
	}
	slots := images
	for L%slots != 0 {
		slots++
	}
	t := &DirectTail{d: d, slots: slots, q: L / slots}
	t.g = (max(d.ow, d.w) + t.q - 1) / t.q
	t.xw = t.g + d.kw - 1
	t.ph, t.dh = d.ph, d.dh
	const f = 4
	// Forward: weight (ki, kj, c) of a window whose origin is at a
	// pixel reads the input kj vectors on and ki rows down, in channel c.
	t.offF = make([]int32, 0, d.kk)
	for ki := range d.kh {
		for kj := range d.kw {
			for c := range d.c {
				t.offF = append(t.offF, int32(((c*t.ph+ki)*t.xw+kj)*L*f))
			}
		}
	}
	// Input gradient: flipped weight (ki, kj, m) reads the padded
	// gradient.
	t.offB = make([]int32, 0, d.m*d.kh*d.kw)
	for ki := range d.kh {
		for kj := range d.kw {
			for m := range d.m {
				t.offB = append(t.offB, int32(((ki*t.xw+kj)*d.ms+m)*L*f))
			}
		}
	}
	// Weight gradient: Caffe's order (c, ki, kj), padded to whole tiles
	// as the blocks' table is.
	t.offG = make([]int32, 0, d.kp)
	for c := range d.c {
		for ki := range d.kh {
			for kj := range d.kw {
				t.offG = append(t.offG, int32(((c*t.ph+ki)*t.xw+kj)*L*f))
			}
		}
	}
	for len(t.offG) < d.kp {
		t.offG = append(t.offG, t.offG[len(t.offG)-1])
	}
	t.x = make([]float32, d.cAll*t.ph*t.xw*L)
	t.dy = make([]float32, t.dh*t.xw*d.ms*L)
	t.y = make([]float32, max(d.oh*d.ms, d.h*d.cs)*t.g*L)
	t.acc = make([]float32, d.gmr*d.gChunk*L)
	return t
}

// Images returns the most images of a block.
func (t *DirectTail) Images() int { return t.slots }

// Conv returns the DirectConv whose plan t is.
func (t *DirectTail) Conv() *DirectConv { return t.d }

// check panics unless n images fit and the slices hold them.
func (t *DirectTail) check(name string, n int, lens ...int) {
	if n < 1 || n > t.slots {
		panic(fmt.Sprintf("kernel: DirectTail.%s: %d images, want 1 to %d", name, n, t.slots))
	}
	for i := 0; i < len(lens); i += 2 {
		if lens[i] < lens[i+1] {
			panic(fmt.Sprintf("kernel: DirectTail.%s: slice %d holds %d floats, want >= %d", name, i/2, lens[i], lens[i+1]))
		}
	}
}

// loadInput writes the strips of n images x (NCHW) into t.x. The
// columns outside the image stay zero from the start; the lanes of
// images that a larger block loaded before are cleared.
func (t *DirectTail) loadInput(x []float32, n int) {
	d, L := t.d, t.d.lanes
	if n < t.xn {
		t.clearLanes(t.x, n, t.xn)
	}
	t.xn = n
	for c := range d.cAll {
		for y := range d.h {
			row := t.x[((c*t.ph+y+d.padH)*t.xw)*L : ((c*t.ph+y+d.padH+1)*t.xw)*L]
			src := x[(c*d.h+y)*d.w:]
			for j := range t.q {
				// Vector v of strip j holds column x0+v.
				x0 := j*t.g - d.padW
				for v := max(0, -x0); v < min(t.xw, d.w-x0); v++ {
					dst := row[v*L+j*t.slots : v*L+j*t.slots+n]
					for i := range dst {
						dst[i] = src[i*d.imgSize+x0+v]
					}
				}
			}
		}
	}
}

// clearLanes zeroes the lanes of images [n, m) in every vector of buf.
func (t *DirectTail) clearLanes(buf []float32, n, m int) {
	L := t.d.lanes
	for v := 0; v < len(buf); v += L {
		for j := range t.q {
			clear(buf[v+j*t.slots+n : v+j*t.slots+m])
		}
	}
}

// store writes channels×rows pixels of n images, held in t.y as
// [rows][G][stride][L], into dst (NCHW, width columns), adding bias if
// not nil.
func (t *DirectTail) store(dst []float32, n, channels, stride, rows, width int, bias []float32) {
	L := t.d.lanes
	size := channels * rows * width
	step := stride * L
	for c := range channels {
		var b float32
		if bias != nil {
			b = bias[c]
		}
		for y := range rows {
			src := t.y[y*t.g*step+c*L:]
			for i := range n {
				out := dst[i*size+(c*rows+y)*width : i*size+(c*rows+y+1)*width]
				for j := range t.q {
					x0 := j * t.g
					if x0 >= width {
						break
					}
					o, s := out[x0:min(width, x0+t.g)], src[j*t.slots+i:]
					for X := range o {
						o[X] = s[X*step] + b
					}
				}
			}
		}
	}
}

// pass runs the tile kernel over rows output rows of G pixels, whose
// kernel rows [kiLo, kiHi) meet the input (lo and hi give them for a
// row): the tiles ts of a group's packed weights w (kk weights a
// channel), over the input from in (row by row, inRow floats apart,
// pixels pixStep floats apart), through the offsets off, into t.y's
// channels from c0 on, stride vectors a pixel.
func (t *DirectTail) pass(w []float32, kk int, ts []dtile, off []int32, chans int, in []float32, inRow, pixStep, rows, stride, c0 int, rowRange func(int) (int, int)) {
	d, L, f := t.d, t.d.lanes, 4
	for _, tl := range ts {
		a := w[tl.r0*kk:]
		for y := range rows {
			kiLo, kiHi := rowRange(y)
			start, end := kiLo*d.kw*chans, kiHi*d.kw*chans
			out := &t.y[((y*t.g)*stride+c0+tl.r0)*L]
			for k0 := start; k0 < end; k0 += directKC {
				kb := min(directKC, end-k0)
				d.k.tile(tl.h, kb, 1, 0, &a[k0*tl.h], &in[y*inRow], &off[k0], pixStep*L*f, out, stride*L*f, t.g, k0 > start)
			}
		}
	}
}

// Forward convolves n images x (NCHW) into y (n outputs, NCHW), adding
// bias (per output channel) if not nil, with the weights the DirectConv
// packed by PackForward.
func (t *DirectTail) Forward(x []float32, n int, y []float32, bias []float32) {
	d := t.d
	t.check("Forward", n, len(x), n*d.imgSize, len(y), n*d.outSize)
	if bias != nil && len(bias) < d.mAll {
		panic(fmt.Sprintf("kernel: DirectTail.Forward: len(bias) = %d, want >= %d", len(bias), d.mAll))
	}
	t.loadInput(x, n)
	L := d.lanes
	for g := range d.groups {
		// Output row oy's kernel row ki reads padded input row oy+ki.
		t.pass(d.wf[g*d.packedF:], d.kk, d.fTiles, t.offF, d.c, t.x[g*d.c*t.ph*t.xw*L:], t.xw*L, 1,
			d.oh, d.ms, g*d.m, func(oy int) (int, int) { return max(0, d.padH-oy), min(d.kh, d.padH+d.h-oy) })
	}
	t.store(y, n, d.mAll, d.ms, d.oh, d.ow, bias)
}

// LoadGrad writes the output gradient of n images (NCHW) into t, padded
// for the input gradient, for BackwardData and WeightGrad. The columns
// outside the output stay zero from the start; the lanes of images that
// a larger block loaded before are cleared.
func (t *DirectTail) LoadGrad(dy []float32, n int) {
	d := t.d
	t.check("LoadGrad", n, len(dy), n*d.outSize)
	L := d.lanes
	if n < t.dyn {
		t.clearLanes(t.dy, n, t.dyn)
	}
	t.dyn = n
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	step := d.ms * L
	for y := range d.oh {
		row := t.dy[(y+p0)*t.xw*step:]
		for j := range t.q {
			// Vector v of strip j holds column x0+v.
			x0 := j*t.g - p1
			v0, v1 := max(0, -x0), min(t.xw, d.ow-x0)
			if v0 >= v1 {
				continue
			}
			for m := range d.mAll {
				for i := range n {
					src := dy[(i*d.mAll+m)*d.oh*d.ow+y*d.ow+x0+v0 : (i*d.mAll+m)*d.oh*d.ow+y*d.ow+x0+v1]
					dst := row[v0*step+m*L+j*t.slots+i:]
					for k, val := range src {
						dst[k*step] = val
					}
				}
			}
		}
	}
	t.n = n
}

// loaded panics unless t holds the gradient of n images.
func (t *DirectTail) loaded(name string, n int) {
	if t.n != n {
		panic(fmt.Sprintf("kernel: DirectTail.%s: the plan holds the gradient of %d images, not %d (LoadGrad first)", name, t.n, n))
	}
}

// BackwardData computes the input gradient dx (n images, NCHW) from the
// output gradient LoadGrad wrote and the weights the DirectConv packed
// by PackBackward.
func (t *DirectTail) BackwardData(dx []float32, n int) {
	d := t.d
	t.check("BackwardData", n, len(dx), n*d.imgSize)
	t.loaded("BackwardData", n)
	L := d.lanes
	p0 := d.kh - 1 - d.padH
	for g := range d.groups {
		// Input row iy's flipped kernel row ki reads padded gradient
		// row iy+ki, the output rows from p0 on.
		t.pass(d.wb[g*d.packedB:], d.m*d.kh*d.kw, d.bTiles, t.offB, d.m, t.dy[g*d.m*L:], t.xw*d.ms*L, d.ms,
			d.h, d.cs, g*d.c, func(iy int) (int, int) { return max(0, p0-iy), min(d.kh, p0+d.oh-iy) })
	}
	t.store(dx, n, d.cAll, d.cs, d.h, d.w, nil)
}

// WeightGrad adds to dw (Caffe's [outputs][channels/groups][kh][kw]) the
// weight gradient of n images: their input x (NCHW) and the output
// gradient LoadGrad wrote. Each weight's lanes are summed over the
// strips' pixels, row by row, then added in lane order.
func (t *DirectTail) WeightGrad(x []float32, n int, dw []float32) {
	t.check("WeightGrad", n, len(x), n*t.d.imgSize)
	t.loadInput(x, n)
	t.WeightGradLoaded(n, dw)
}

// WeightGradLoaded is WeightGrad for the input of n images that the last
// Forward (or WeightGrad) loaded, which it reads again.
func (t *DirectTail) WeightGradLoaded(n int, dw []float32) {
	d := t.d
	t.check("WeightGrad", n, len(dw), d.mAll*d.kk)
	t.loaded("WeightGrad", n)
	if t.xn != n {
		panic(fmt.Sprintf("kernel: DirectTail.WeightGradLoaded: the plan holds the input of %d images, not %d", t.xn, n))
	}
	L, f := d.lanes, 4
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	chunk := d.gChunk
	for g := range d.groups {
		xg := &t.x[g*d.c*t.ph*t.xw*L]
		for _, tl := range d.gTiles {
			// The output pixels of the tile's channels in the padded
			// gradient.
			dyt := &t.dy[((p0*t.xw+p1)*d.ms+g*d.m+tl.r0)*L]
			for k0 := 0; k0 < d.kp; k0 += chunk {
				k1 := min(d.kp, k0+chunk)
				d.gradCall(tl.h, dyt, d.ms*L*f, (t.xw-t.g)*d.ms*L*f, xg, &t.offG[k0], (t.xw-t.g)*L*f,
					d.oh, t.g, &t.acc[0], chunk*L*f, false, (k1-k0)/d.gnr, 0)
				for i := range tl.h {
					d.k.laneSums(&dw[(g*d.m+tl.r0+i)*d.kk+k0], &t.acc[i*chunk*L], min(k1, d.kk)-k0)
				}
			}
		}
	}
}
