package caffe

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sparknet-go/sparknet/ndarray"
)

// GradientCheck compares a layer's analytic gradients (its Backward) with
// central differences, as Caffe's GradientChecker does: the loss is
// Σ r·top over every top value with fixed random weights r (so the tops'
// diffs are r), each checked value x is moved to x ± Step, and the
// estimate (L(x+Step) − L(x−Step)) / 2·Step must be within
// Threshold·max(1, |analytic|, |estimate|) of the analytic gradient. The
// zero value checks every bottom and parameter blob with Caffe's usual
// step and threshold:
//
//	l, _ := caffe.NewLayer(def, nil)
//	l.Setup(bottom, top)
//	if err := (caffe.GradientCheck{}).Run(l, bottom, top); err != nil {
//		fmt.Println(err) // bottom 0, value 3: analytic gradient 1.5, numeric 1 ...
//	}
type GradientCheck struct {
	// Step is the change of each checked value; 0 means 1e-2.
	Step float64
	// Threshold is the relative error allowed; 0 means 1e-3.
	Threshold float64
	// Seed seeds the loss weights and the garbage the bottoms' diffs start
	// from (so that a layer that forgets to write them fails).
	Seed uint64
	// Bottoms lists the bottoms to check; nil checks all.
	Bottoms []int
	// Tops lists the tops that make the loss; nil uses all (a loss
	// layer's extra outputs, such as probabilities, have no gradient).
	Tops []int
	// NoParams skips the parameter blobs.
	NoParams bool
	// Before, when set, runs before every Forward (to reset a random
	// stream, say).
	Before func()
}

// GradientError lists the values whose analytic and numeric gradients
// disagree.
type GradientError struct {
	// Mismatches describes the first few, such as "bottom 0, value 3:
	// analytic gradient 1.5, numeric 1".
	Mismatches []string
	// Total is the number of values that disagree.
	Total int
}

func (e *GradientError) Error() string {
	msg := fmt.Sprintf("caffe: gradient check: %d values disagree: %s", e.Total, strings.Join(e.Mismatches, "; "))
	if e.Total > len(e.Mismatches) {
		msg += "; ..."
	}
	return msg
}

// maxMismatches is how many mismatches a GradientError describes.
const maxMismatches = 10

// Run checks a layer that is set up on bottom and top. It changes the
// values of the checked blobs only transiently, but leaves the diffs and
// the tops as the last pass made them. It returns a *GradientError when
// gradients disagree, and the error of a Forward that fails (or panics).
func (c GradientCheck) Run(l Layer, bottom, top []*Blob) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("caffe: gradient check: the layer panicked: %v", r)
		}
	}()
	if c.Step == 0 {
		c.Step = 1e-2
	}
	if c.Threshold == 0 {
		c.Threshold = 1e-3
	}
	forward := func() error {
		if c.Before != nil {
			c.Before()
		}
		if err := l.Forward(bottom, top); err != nil {
			return fmt.Errorf("caffe: gradient check: Forward: %w", err)
		}
		return nil
	}
	if err := forward(); err != nil {
		return err
	}

	// Loss weights: one random number per top value.
	rng := ndarray.NewRNG(c.Seed + 12345)
	weights := make([][]float32, len(top))
	for i, b := range top {
		weights[i] = make([]float32, b.Count())
		if c.Tops != nil && !slices.Contains(c.Tops, i) {
			continue
		}
		for j := range weights[i] {
			weights[i][j] = 2*rng.Float32() - 1
		}
	}
	loss := func() float64 {
		var s float64
		for i, b := range top {
			for j, v := range b.DataSlice() {
				s += float64(weights[i][j]) * float64(v)
			}
		}
		return s
	}

	// Analytic gradients. Bottom diffs start as garbage, so that a layer
	// that forgets to write them fails; parameter diffs start at zero.
	checkBottom := make([]bool, len(bottom))
	for i := range bottom {
		checkBottom[i] = c.Bottoms == nil
	}
	for _, i := range c.Bottoms {
		if i < 0 || i >= len(bottom) {
			return fmt.Errorf("caffe: gradient check: bottom %d does not exist (the layer has %d)", i, len(bottom))
		}
		checkBottom[i] = true
	}
	for _, b := range bottom {
		for j := range b.DiffSlice() {
			b.DiffSlice()[j] = 1e3 * (2*rng.Float32() - 1)
		}
	}
	var params []*Blob
	if !c.NoParams {
		params = l.Params()
	}
	for _, p := range l.Params() {
		p.ZeroDiff()
	}
	for i, b := range top {
		copy(b.DiffSlice(), weights[i])
	}
	l.Backward(top, checkBottom, bottom)

	type target struct {
		name string
		blob *Blob
		grad []float32
	}
	var targets []target
	for i, b := range bottom {
		if checkBottom[i] {
			targets = append(targets, target{fmt.Sprintf("bottom %d", i), b, slices.Clone(b.DiffSlice())})
		}
	}
	for i, p := range params {
		targets = append(targets, target{fmt.Sprintf("param %d", i), p, slices.Clone(p.DiffSlice())})
	}

	gerr := &GradientError{}
	for _, tg := range targets {
		data := tg.blob.DataSlice()
		for k := range data {
			orig := data[k]
			data[k] = orig + float32(c.Step)
			err := forward()
			plus := loss()
			data[k] = orig - float32(c.Step)
			if err == nil {
				err = forward()
			}
			minus := loss()
			data[k] = orig
			if err != nil {
				return err
			}
			est := (plus - minus) / (2 * c.Step)
			got := float64(tg.grad[k])
			scale := math.Max(1, math.Max(math.Abs(got), math.Abs(est)))
			if math.Abs(got-est) > c.Threshold*scale || math.IsNaN(got) {
				gerr.Total++
				if len(gerr.Mismatches) < maxMismatches {
					gerr.Mismatches = append(gerr.Mismatches, fmt.Sprintf("%s, value %d: analytic gradient %.6g, numeric %.6g", tg.name, k, got, est))
				}
			}
		}
	}
	if gerr.Total > 0 {
		return gerr
	}
	return nil
}
