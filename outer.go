package sparknet

import (
	"fmt"
	"sort"

	"github.com/sparknet-go/sparknet/ndarray"
)

// Outer is an outer optimizer: after every round it turns the replicas'
// weights into the next global weights. PlainAverage (SparkNet),
// ElasticAveraging (EASGD) and OuterNesterov (DiLoCo) are sparknet's, one
// file each; a program supplies its own by implementing the two methods.
//
// An Outer holds settings only; what it learns across rounds (a momentum)
// lives in the OuterState the trainer hands to Step, which the trainer
// keeps, saves in snapshots and restores on Resume. So one Outer value may
// serve several trainers. The trainer calls Step once per round on the
// driver (under an SPMD engine, on every process with the same arguments,
// so every process holds the same state).
//
// An Outer that implements OuterPuller keeps each replica's weights
// across rounds instead of restarting every round from the global
// weights. One that implements interface{ Check(k int) error } has its
// settings checked for K replicas when the trainer is made.
type Outer interface {
	// Step updates the global weights w in place, given sum, the sum of
	// the K replicas' weights after the round (summed in partition order),
	// and the optimizer's state, which it may read and change.
	Step(w, sum *ndarray.WeightCollection, k int, state *OuterState) error
	// String names the optimizer and its settings, such as
	// "nesterov(lr=0.7, momentum=0.9)". Snapshots record it, and Resume
	// refuses a snapshot written with another.
	String() string
}

// OuterPuller is implemented by outer optimizers whose replicas keep
// their own weights between rounds, as EASGD's do. A replica starts from
// the global weights in the first round only; before each later round it
// calls Pull with the center: the global weights as they were before the
// last Step, which the trainer broadcasts. Snapshots then keep every
// replica's weights and the center.
type OuterPuller interface {
	Outer
	// Pull moves a replica's weights x, in place, toward the center c.
	Pull(x, c *ndarray.WeightCollection)
}

// OuterState is an outer optimizer's state: weight collections by name,
// such as OuterNesterov's "momentum". The trainer keeps it across rounds
// and in snapshots (one file per name).
type OuterState struct {
	m map[string]*ndarray.WeightCollection
}

// Get returns the collection called name, or nil.
func (s *OuterState) Get(name string) *ndarray.WeightCollection { return s.m[name] }

// Set stores w under name (nil deletes it). The state keeps w itself.
func (s *OuterState) Set(name string, w *ndarray.WeightCollection) {
	if w == nil {
		delete(s.m, name)
		return
	}
	if s.m == nil {
		s.m = map[string]*ndarray.WeightCollection{}
	}
	s.m[name] = w
}

// Names returns the names held, sorted.
func (s *OuterState) Names() []string {
	names := make([]string, 0, len(s.m))
	for k := range s.m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func (s *OuterState) String() string { return fmt.Sprintf("OuterState%v", s.Names()) }

// guardOuter runs a call into an outer optimizer, which may be user code,
// turning a panic into an error.
func guardOuter(method string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sparknet: the outer optimizer's %s panicked: %v", method, r)
		}
	}()
	return f()
}

// outerOrDefault returns o, or PlainAverage when o is nil.
func outerOrDefault(o Outer) Outer {
	if o == nil {
		return PlainAverage()
	}
	return o
}
