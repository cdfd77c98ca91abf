package caffe

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// UpdateRule is a solver type (a SolverParameter's type: "SGD", "Adam",
// ...): how a parameter's gradient becomes the step subtracted from it.
type UpdateRule struct {
	// History is the number of state arrays kept per parameter, each of the
	// parameter's shape and zero at the start: 1 for SGD-like rules, 2 for
	// AdaDelta and Adam. Snapshots save all of them, first every
	// parameter's array 0, then every parameter's array 1.
	History int
	// Check reports solver settings the rule cannot work with; nil accepts
	// anything.
	Check func(sp *caffepb.SolverParameter) error
	// Apply overwrites diff, the gradient after normalisation and weight
	// decay, with the step to subtract from the parameter, updating the
	// parameter's history arrays. rate is the parameter's learning rate
	// (the policy's rate times its lr_mult) and iter the iteration being
	// completed, counted from 0.
	Apply func(sp *caffepb.SolverParameter, iter int, rate float32, diff []float32, history [][]float32)
}

var updateRules = struct {
	sync.RWMutex
	m map[string]UpdateRule
}{m: map[string]UpdateRule{}}

// RegisterSolverType makes an update rule available to solvers under name
// (the value of SolverParameter.type). Registering a name twice is an
// error.
func RegisterSolverType(name string, r UpdateRule) error {
	if r.Apply == nil || r.History < 0 {
		return fmt.Errorf("caffe: solver type %q needs an Apply function and History >= 0", name)
	}
	updateRules.Lock()
	defer updateRules.Unlock()
	if _, dup := updateRules.m[name]; dup {
		return fmt.Errorf("caffe: solver type %q registered twice", name)
	}
	updateRules.m[name] = r
	return nil
}

// SolverTypes returns the sorted names of the registered solver types.
func SolverTypes() []string {
	updateRules.RLock()
	defer updateRules.RUnlock()
	names := make([]string, 0, len(updateRules.m))
	for k := range updateRules.m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// lookupUpdateRule finds and checks the rule a solver parameter names.
func lookupUpdateRule(sp *caffepb.SolverParameter) (UpdateRule, string, error) {
	name := format.SolverTypeName(sp)
	updateRules.RLock()
	r, ok := updateRules.m[name]
	updateRules.RUnlock()
	if !ok {
		return UpdateRule{}, name, fmt.Errorf("caffe: unknown solver type %q%s; known types: %s",
			name, format.DidYouMean(name, SolverTypes()), format.SortedList(SolverTypes()))
	}
	if r.Check != nil {
		if err := r.Check(sp); err != nil {
			return UpdateRule{}, name, fmt.Errorf("caffe: %s solver: %w", name, err)
		}
	}
	return r, name, nil
}

func noMomentum(sp *caffepb.SolverParameter) error {
	if sp.GetMomentum() != 0 {
		return fmt.Errorf("momentum must be 0 for this solver type, got %g (remove the momentum line)", sp.GetMomentum())
	}
	return nil
}

// sgdApply: h = momentum*h + rate*g; step = h (Caffe's axpby and copy).
func sgdApply(sp *caffepb.SolverParameter, _ int, rate float32, g []float32, hist [][]float32) {
	h := hist[0][:len(g)]
	kernel.Axpby(rate, g, sp.GetMomentum(), h)
	copy(g, h)
}

// nesterovApply: h' = momentum*h + rate*g; step = (1+momentum)*h' - momentum*h.
// In one pass (kernel.NesterovStep, each operation rounded on its own,
// in this order).
func nesterovApply(sp *caffepb.SolverParameter, _ int, rate float32, g []float32, hist [][]float32) {
	kernel.NesterovStep(g, hist[0][:len(g)], sp.GetMomentum(), rate)
}

// adaGradApply: h += g²; step = rate * g / (sqrt(h) + delta).
// In one pass (kernel.AdaGradStep, each operation rounded on its own, in
// this order).
func adaGradApply(sp *caffepb.SolverParameter, _ int, rate float32, g []float32, hist [][]float32) {
	kernel.AdaGradStep(g, hist[0][:len(g)], sp.GetDelta(), rate)
}

// rmsPropApply: h = decay*h + (1-decay)*g²; step = rate * g / (sqrt(h) + delta).
// In one pass (kernel.RMSPropStep, each operation rounded on its own, in
// this order).
func rmsPropApply(sp *caffepb.SolverParameter, _ int, rate float32, g []float32, hist [][]float32) {
	kernel.RMSPropStep(g, hist[0][:len(g)], sp.GetRmsDecay(), sp.GetDelta(), rate)
}

// adaDeltaApply: h = ρh + (1-ρ)g²; u = g·sqrt((h2+δ)/(h+δ)); h2 = ρh2 + (1-ρ)u²;
// step = rate*u, with ρ = momentum.
// In one pass (kernel.AdaDeltaStep, each operation rounded on its own, in
// this order).
func adaDeltaApply(sp *caffepb.SolverParameter, _ int, rate float32, g []float32, hist [][]float32) {
	kernel.AdaDeltaStep(g, hist[0][:len(g)], hist[1][:len(g)], sp.GetMomentum(), sp.GetDelta(), rate)
}

// adamApply: m = β1·m + (1-β1)g; v = β2·v + (1-β2)g²;
// step = rate·sqrt(1-β2^t)/(1-β1^t) · m/(sqrt(v)+δ), t = iter+1.
func adamApply(sp *caffepb.SolverParameter, iter int, rate float32, g []float32, hist [][]float32) {
	b1, b2, eps := sp.GetMomentum(), sp.GetMomentum2(), sp.GetDelta()
	t := float64(iter + 1)
	corr := float32(math.Sqrt(1-math.Pow(float64(b2), t)) / (1 - math.Pow(float64(b1), t)))
	// One pass over g, m and v (kernel.AdamStep: each operation rounded
	// on its own, in this order, on every implementation):
	//	m = b1·m + (1−b1)·g; v = b2·v + (1−b2)·(g·g); g = r·(m / (√v + δ))
	kernel.AdamStep(g, hist[0][:len(g)], hist[1][:len(g)], b1, b2, eps, rate*corr)
}

func init() {
	rules := map[string]UpdateRule{
		"SGD":      {History: 1, Apply: sgdApply},
		"Nesterov": {History: 1, Apply: nesterovApply},
		"AdaGrad":  {History: 1, Check: noMomentum, Apply: adaGradApply},
		"RMSProp": {History: 1, Apply: rmsPropApply, Check: func(sp *caffepb.SolverParameter) error {
			if err := noMomentum(sp); err != nil {
				return err
			}
			if d := sp.GetRmsDecay(); d < 0 || d >= 1 {
				return fmt.Errorf("rms_decay must be in [0, 1), got %g", d)
			}
			return nil
		}},
		"AdaDelta": {History: 2, Apply: adaDeltaApply},
		"Adam":     {History: 2, Apply: adamApply},
	}
	for name, r := range rules {
		if err := RegisterSolverType(name, r); err != nil {
			panic(err)
		}
	}
}
