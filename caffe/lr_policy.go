package caffe

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

// LRPolicy is a learning-rate schedule (a SolverParameter's lr_policy).
type LRPolicy struct {
	// Check reports a solver parameter the policy cannot work with (a
	// missing stepsize, a negative gamma); nil accepts anything.
	Check func(sp *caffepb.SolverParameter) error
	// Rate returns the learning rate for iteration iter (counted from 0,
	// before the iteration's update). currentStep is the solver's step
	// counter, which the step and multistep policies advance and
	// snapshots save.
	Rate func(sp *caffepb.SolverParameter, iter int, currentStep *int) float64
}

var lrPolicies = struct {
	sync.RWMutex
	m map[string]LRPolicy
}{m: map[string]LRPolicy{}}

// RegisterLRPolicy makes a learning-rate policy available to solvers under
// name. Registering a name twice is an error.
func RegisterLRPolicy(name string, p LRPolicy) error {
	if p.Rate == nil {
		return fmt.Errorf("caffe: lr policy %q has no Rate function", name)
	}
	lrPolicies.Lock()
	defer lrPolicies.Unlock()
	if _, dup := lrPolicies.m[name]; dup {
		return fmt.Errorf("caffe: lr policy %q registered twice", name)
	}
	lrPolicies.m[name] = p
	return nil
}

// LRPolicies returns the sorted names of the registered learning-rate
// policies.
func LRPolicies() []string {
	lrPolicies.RLock()
	defer lrPolicies.RUnlock()
	names := make([]string, 0, len(lrPolicies.m))
	for k := range lrPolicies.m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// lookupLRPolicy finds the policy a solver parameter names and checks the
// parameter against it.
func lookupLRPolicy(sp *caffepb.SolverParameter) (LRPolicy, error) {
	name := sp.GetLrPolicy()
	lrPolicies.RLock()
	p, ok := lrPolicies.m[name]
	lrPolicies.RUnlock()
	if !ok {
		if name == "" {
			return LRPolicy{}, fmt.Errorf("caffe: solver has no lr_policy; set one of: %s", format.SortedList(LRPolicies()))
		}
		return LRPolicy{}, fmt.Errorf("caffe: unknown learning rate policy %q%s; known policies: %s",
			name, format.DidYouMean(name, LRPolicies()), format.SortedList(LRPolicies()))
	}
	if p.Check != nil {
		if err := p.Check(sp); err != nil {
			return LRPolicy{}, fmt.Errorf("caffe: lr_policy %q: %w", name, err)
		}
	}
	return p, nil
}

// LearningRate returns the learning rate a solver parameter gives at
// iteration iter of a run started from iteration 0, as the solvers compute
// it (in float32). It is exposed for plotting schedules.
func LearningRate(sp *caffepb.SolverParameter, iter int) (float32, error) {
	p, err := lookupLRPolicy(sp)
	if err != nil {
		return 0, err
	}
	// Multistep advances at most one step per call, as Caffe's solver does
	// once per iteration; replay the calls so a jump to iter gives the same
	// step.
	step := 0
	if sp.GetLrPolicy() == "multistep" {
		for i := 0; i < iter; i++ {
			p.Rate(sp, i, &step)
		}
	}
	return float32(p.Rate(sp, iter, &step)), nil
}

func checkGamma(sp *caffepb.SolverParameter) error {
	if sp.GetGamma() < 0 {
		return fmt.Errorf("gamma must be >= 0, got %g", sp.GetGamma())
	}
	return nil
}

func init() {
	base := func(sp *caffepb.SolverParameter) float64 { return float64(sp.GetBaseLr()) }
	gamma := func(sp *caffepb.SolverParameter) float64 { return float64(sp.GetGamma()) }
	power := func(sp *caffepb.SolverParameter) float64 { return float64(sp.GetPower()) }
	policies := map[string]LRPolicy{
		"fixed": {Rate: func(sp *caffepb.SolverParameter, _ int, _ *int) float64 { return base(sp) }},
		"step": {
			Check: func(sp *caffepb.SolverParameter) error {
				if sp.GetStepsize() <= 0 {
					return fmt.Errorf("stepsize must be positive, got %d", sp.GetStepsize())
				}
				return checkGamma(sp)
			},
			Rate: func(sp *caffepb.SolverParameter, iter int, step *int) float64 {
				*step = iter / int(sp.GetStepsize())
				return base(sp) * math.Pow(gamma(sp), float64(*step))
			},
		},
		"exp": {Check: checkGamma, Rate: func(sp *caffepb.SolverParameter, iter int, _ *int) float64 {
			return base(sp) * math.Pow(gamma(sp), float64(iter))
		}},
		"inv": {Check: checkGamma, Rate: func(sp *caffepb.SolverParameter, iter int, _ *int) float64 {
			return base(sp) * math.Pow(1+gamma(sp)*float64(iter), -power(sp))
		}},
		"multistep": {
			Check: checkGamma,
			Rate: func(sp *caffepb.SolverParameter, iter int, step *int) float64 {
				sv := sp.GetStepvalue()
				if *step < len(sv) && iter >= int(sv[*step]) {
					*step++
				}
				return base(sp) * math.Pow(gamma(sp), float64(*step))
			},
		},
		"poly": {
			Check: func(sp *caffepb.SolverParameter) error {
				if sp.GetMaxIter() <= 0 {
					return fmt.Errorf("max_iter must be positive, got %d", sp.GetMaxIter())
				}
				return nil
			},
			Rate: func(sp *caffepb.SolverParameter, iter int, _ *int) float64 {
				return base(sp) * math.Pow(1-float64(iter)/float64(sp.GetMaxIter()), power(sp))
			},
		},
		"sigmoid": {Check: checkGamma, Rate: func(sp *caffepb.SolverParameter, iter int, _ *int) float64 {
			return base(sp) / (1 + math.Exp(-gamma(sp)*float64(iter-int(sp.GetStepsize()))))
		}},
	}
	for name, p := range policies {
		if err := RegisterLRPolicy(name, p); err != nil {
			panic(err)
		}
	}
}
