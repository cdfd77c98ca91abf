package kernel

import "math"

// The plane kernels of cross-channel local response normalisation (the
// LRN layer's ACROSS_CHANNELS mode). Each fuses passes that the layer
// would otherwise make with Mul, Axpy, Sqrt, Div and Add over a channel
// plane, and computes every value with the same operations, rounded the
// same way, in the same order, so that the results equal those of the
// separate primitives of the same implementation to the bit.

// lrnKernels is one implementation of the LRN plane kernels.
type lrnKernels struct {
	scale     func(sc, xin, xout []float32, a, na float32)
	forward75 func(y, sc, x, xin, xout []float32, a, na float32)
	ratio     func(r, sc, xin, xout, dy, y []float32, a, na float32)
	ratio75   func(r, pow, sc, xin, xout, dy, y []float32, a, na float32)
	backward  func(dx, acc, rin, rout, x, dy, pow []float32, nratio float32)
	backRelu  func(dx, acc, rin, rout, x, dy, pow []float32, nratio, slope float32)
	step75    func(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio float32)
	step75r   func(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio, slope float32)
	step75x   func(sc, xin, xout, dyr, xr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio float32)
	step75xr  func(sc, xin, xout, dyr, xr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio, slope float32)
}

var goLRN = &lrnKernels{
	scale: lrnScaleGo, forward75: lrnForward75Go, ratio: lrnRatioGo, ratio75: lrnRatio75Go,
	backward: lrnBackwardGo, backRelu: lrnBackwardReLUGo, step75: lrnStep75Go, step75r: lrnStep75ReLUGo,
	step75x: lrnStep75XGo, step75xr: lrnStep75XReLUGo,
}

// LRNScale moves the window of a running cross-channel scale one channel
// on: with the squares rounded as Mul rounds them,
//
//	sc[i] += a·xin[i]²   (as Axpy)
//	sc[i] += −a·xout[i]² (as Axpy)
//
// over len(sc) elements, where xin is the plane entering the window and
// xout the one leaving it (zeros past the channels' ends).
func LRNScale(sc, xin, xout []float32, a float32) {
	n := len(sc)
	checkLen("LRNScale", "xin", len(xin), n)
	checkLen("LRNScale", "xout", len(xout), n)
	lrnFor(active.vec).scale(sc, xin, xout, a, -a)
}

// LRNForward75 is LRNScale followed by the output of an LRN with β = ¾:
// y[i] = x[i]·sc[i]^−¾, with sc[i]^−¾ computed as 1/(√sc[i]·√√sc[i]) (as
// Sqrt, Sqrt, Mul and Div), over len(sc) elements.
func LRNForward75(y, sc, x, xin, xout []float32, a float32) {
	n := len(sc)
	checkLen("LRNForward75", "xin", len(xin), n)
	checkLen("LRNForward75", "xout", len(xout), n)
	checkLen("LRNForward75", "x", len(x), n)
	checkLen("LRNForward75", "y", len(y), n)
	lrnFor(active.vec).forward75(y, sc, x, xin, xout, a, -a)
}

// LRNRatio is LRNScale followed by r[i] = (dy[i]·y[i]) / sc[i] (as Mul
// and Div), over len(sc) elements.
func LRNRatio(r, sc, xin, xout, dy, y []float32, a float32) {
	n := len(sc)
	checkLen("LRNRatio", "xin", len(xin), n)
	checkLen("LRNRatio", "xout", len(xout), n)
	checkLen("LRNRatio", "dy", len(dy), n)
	checkLen("LRNRatio", "y", len(y), n)
	checkLen("LRNRatio", "r", len(r), n)
	lrnFor(active.vec).ratio(r, sc, xin, xout, dy, y, a, -a)
}

// LRNRatio75 is LRNRatio that also sets pow[i] = sc[i]^−¾ as LRNForward75
// computes it.
func LRNRatio75(r, pow, sc, xin, xout, dy, y []float32, a float32) {
	n := len(sc)
	checkLen("LRNRatio75", "xin", len(xin), n)
	checkLen("LRNRatio75", "xout", len(xout), n)
	checkLen("LRNRatio75", "dy", len(dy), n)
	checkLen("LRNRatio75", "y", len(y), n)
	checkLen("LRNRatio75", "r", len(r), n)
	checkLen("LRNRatio75", "pow", len(pow), n)
	lrnFor(active.vec).ratio75(r, pow, sc, xin, xout, dy, y, a, -a)
}

// LRNBackward is one channel's step of the LRN gradient with the running
// window sum acc of the ratios, over len(acc) elements:
//
//	acc[i] += rin[i]                           (as Add)
//	dx[i] = dy[i]·pow[i] − ratio·(x[i]·acc[i]) (as Mul, Mul and Axpy)
//	acc[i] −= rout[i]                          (as Axpy with −1)
func LRNBackward(dx, acc, rin, rout, x, dy, pow []float32, ratio float32) {
	n := len(acc)
	for _, s := range []struct {
		name string
		n    int
	}{{"dx", len(dx)}, {"rin", len(rin)}, {"rout", len(rout)}, {"x", len(x)}, {"dy", len(dy)}, {"pow", len(pow)}} {
		checkLen("LRNBackward", s.name, s.n, n)
	}
	lrnFor(active.vec).backward(dx, acc, rin, rout, x, dy, pow, -ratio)
}

// LRNBackwardReLU is LRNBackward followed by the gradient of the in-place
// ReLU (with negative slope slope) whose output x is: dx[i] stays where
// x[i] > 0, else becomes slope·dx[i] (as ReluGrad), so that the ReLU's
// own gradient pass, which would compute the same values again, can be
// left out.
func LRNBackwardReLU(dx, acc, rin, rout, x, dy, pow []float32, ratio, slope float32) {
	n := len(acc)
	for _, s := range []struct {
		name string
		n    int
	}{{"dx", len(dx)}, {"rin", len(rin)}, {"rout", len(rout)}, {"x", len(x)}, {"dy", len(dy)}, {"pow", len(pow)}} {
		checkLen("LRNBackwardReLU", s.name, s.n, n)
	}
	lrnFor(active.vec).backRelu(dx, acc, rin, rout, x, dy, pow, -ratio, slope)
}

// LRNStep75 is one channel's step of the backward pass of an LRN with β =
// ¾ in one pass over the positions: LRNRatio75(r, pow, sc, xin, xout,
// dyr, yr, a) of the channel entering the window, then LRNBackward(dx,
// acc, r, rout, x, dy, powc, ratio) of the current channel (with relu,
// LRNBackwardReLU with slope), the same values bit for bit. r and pow
// must not be rout or powc.
func LRNStep75(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx []float32, a, ratio float32, relu bool, slope float32) {
	n := len(sc)
	for _, s := range []struct {
		name string
		n    int
	}{
		{"xin", len(xin)}, {"xout", len(xout)}, {"dyr", len(dyr)}, {"yr", len(yr)}, {"r", len(r)}, {"pow", len(pow)},
		{"acc", len(acc)}, {"rout", len(rout)}, {"x", len(x)}, {"dy", len(dy)}, {"powc", len(powc)}, {"dx", len(dx)},
	} {
		checkLen("LRNStep75", s.name, s.n, n)
	}
	k := lrnFor(active.vec)
	if relu {
		k.step75r(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx, a, -a, -ratio, slope)
		return
	}
	k.step75(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx, a, -a, -ratio)
}

// LRNStep75X is LRNStep75 given the input xr of the channel entering the
// window instead of its output: the output is recomputed as xr·pow, the
// operation of LRNForward75, so that where xr and the scale are those of
// the forward pass the values are LRNStep75's to the bit, without
// reading the output.
func LRNStep75X(sc, xin, xout, dyr, xr, r, pow, acc, rout, x, dy, powc, dx []float32, a, ratio float32, relu bool, slope float32) {
	n := len(sc)
	for _, s := range []struct {
		name string
		n    int
	}{
		{"xin", len(xin)}, {"xout", len(xout)}, {"dyr", len(dyr)}, {"xr", len(xr)}, {"r", len(r)}, {"pow", len(pow)},
		{"acc", len(acc)}, {"rout", len(rout)}, {"x", len(x)}, {"dy", len(dy)}, {"powc", len(powc)}, {"dx", len(dx)},
	} {
		checkLen("LRNStep75X", s.name, s.n, n)
	}
	k := lrnFor(active.vec)
	if relu {
		k.step75xr(sc, xin, xout, dyr, xr, r, pow, acc, rout, x, dy, powc, dx, a, -a, -ratio, slope)
		return
	}
	k.step75x(sc, xin, xout, dyr, xr, r, pow, acc, rout, x, dy, powc, dx, a, -a, -ratio)
}

// The portable kernels write the operations as the portable primitives
// do, converting where those store a rounded value, so that a compiler
// that fuses multiply-adds fuses the same ones.

func lrnScaleGo(sc, xin, xout []float32, a, na float32) {
	xin, xout = xin[:len(sc)], xout[:len(sc)]
	for i, s := range sc {
		sq := float32(xin[i] * xin[i])
		s += a * sq
		s = float32(s)
		sq = float32(xout[i] * xout[i])
		s += na * sq
		sc[i] = s
	}
}

// pow75 returns s^−¾ as 1/(√s·√√s), each operation rounded.
func pow75(s float32) float32 {
	r := float32(math.Sqrt(float64(s)))
	q := float32(math.Sqrt(float64(r)))
	m := float32(r * q)
	return float32(1 / m)
}

func lrnForward75Go(y, sc, x, xin, xout []float32, a, na float32) {
	lrnScaleGo(sc, xin, xout, a, na)
	n := len(sc)
	y, x = y[:n], x[:n]
	for i, s := range sc {
		y[i] = x[i] * pow75(s)
	}
}

func lrnRatioGo(r, sc, xin, xout, dy, y []float32, a, na float32) {
	lrnScaleGo(sc, xin, xout, a, na)
	n := len(sc)
	r, dy, y = r[:n], dy[:n], y[:n]
	for i, s := range sc {
		t := float32(dy[i] * y[i])
		r[i] = t / s
	}
}

func lrnRatio75Go(r, pow, sc, xin, xout, dy, y []float32, a, na float32) {
	lrnRatioGo(r, sc, xin, xout, dy, y, a, na)
	pow = pow[:len(sc)]
	for i, s := range sc {
		pow[i] = pow75(s)
	}
}

func lrnBackwardGo(dx, acc, rin, rout, x, dy, pow []float32, nratio float32) {
	n := len(acc)
	dx, rin, rout, x, dy, pow = dx[:n], rin[:n], rout[:n], x[:n], dy[:n], pow[:n]
	for i, s := range acc {
		s = float32(s + rin[i])
		d := float32(dy[i] * pow[i])
		t := float32(x[i] * s)
		d += nratio * t
		dx[i] = d
		s += -1 * rout[i]
		acc[i] = s
	}
}

func lrnBackwardReLUGo(dx, acc, rin, rout, x, dy, pow []float32, nratio, slope float32) {
	lrnBackwardGo(dx, acc, rin, rout, x, dy, pow, nratio)
	dx, x = dx[:len(acc)], x[:len(acc)]
	for i, v := range x {
		if !(v > 0) {
			dx[i] *= slope
		}
	}
}

func lrnStep75Go(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio float32) {
	lrnRatio75Go(r, pow, sc, xin, xout, dyr, yr, a, na)
	lrnBackwardGo(dx, acc, r, rout, x, dy, powc, nratio)
}

func lrnStep75ReLUGo(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio, slope float32) {
	lrnRatio75Go(r, pow, sc, xin, xout, dyr, yr, a, na)
	lrnBackwardReLUGo(dx, acc, r, rout, x, dy, powc, nratio, slope)
}

// lrnRecomputeGo is LRNStep75X's first part: the scale moved on, pow =
// s^−¾, the output y = xr·pow (as lrnForward75Go), then the ratio
// (dyr·y)/s (as lrnRatioGo) into r.
func lrnRecomputeGo(r, pow, sc, xin, xout, dyr, xr []float32, a, na float32) {
	lrnForward75Go(r, sc, xr, xin, xout, a, na)
	n := len(sc)
	pow, dyr, r = pow[:n], dyr[:n], r[:n]
	for i, s := range sc {
		pow[i] = pow75(s)
		t := float32(dyr[i] * r[i])
		r[i] = t / s
	}
}

func lrnStep75XGo(sc, xin, xout, dyr, xr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio float32) {
	lrnRecomputeGo(r, pow, sc, xin, xout, dyr, xr, a, na)
	lrnBackwardGo(dx, acc, r, rout, x, dy, powc, nratio)
}

func lrnStep75XReLUGo(sc, xin, xout, dyr, xr, r, pow, acc, rout, x, dy, powc, dx []float32, a, na, nratio, slope float32) {
	lrnRecomputeGo(r, pow, sc, xin, xout, dyr, xr, a, na)
	lrnBackwardReLUGo(dx, acc, r, rout, x, dy, powc, nratio, slope)
}
