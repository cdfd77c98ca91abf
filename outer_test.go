package sparknet

import (
	"testing"

	"github.com/sparknet-go/sparknet/ndarray"
)

func wc(vals ...float32) *ndarray.WeightCollection {
	w := ndarray.NewWeightCollection()
	w.Set("l", ndarray.FromValues(vals...))
	return w
}

func values(w *ndarray.WeightCollection) []float32 { return w.Get("l")[0].Data() }

func near(a, b []float32) bool {
	for i := range a {
		d := a[i] - b[i]
		if d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return len(a) == len(b)
}

// Two replicas end a round at x1 = (2, 4) and x2 = (4, 0), from the global
// weights w = (1, 1): their sum is (6, 4).
func TestOuterSteps(t *testing.T) {
	sum := wc(6, 4)
	cases := []struct {
		name  string
		outer Outer
		steps int
		want  []float32
	}{
		// average: (3, 2)
		{"average", PlainAverage(), 1, []float32{3, 2}},
		// elastic, alpha 0.25: c += 0.25 (sum - 2c) = (1,1) + 0.25 (4, 2) = (2, 1.5)
		{"elastic", ElasticAveraging(0.25), 1, []float32{2, 1.5}},
		// nesterov lr 0.5, mu 0.5: g = w - avg = (-2, -1); m = g;
		// w -= 0.5 (g + 0.5 m) = (1,1) + 0.5·1.5·(2, 1) = (2.5, 1.75)
		{"nesterov", OuterNesterov(0.5, 0.5), 1, []float32{2.5, 1.75}},
		// second step with the same sum: g = (2.5,1.75) - (3,2) = (-0.5, -0.25);
		// m = 0.5 (-2,-1) + g = (-1.5, -0.75); w -= 0.5 (g + 0.5 m)
		//   = (2.5,1.75) - 0.5 (-1.25, -0.625) = (3.125, 2.0625)
		{"nesterov twice", OuterNesterov(0.5, 0.5), 2, []float32{3.125, 2.0625}},
		// lr 1 and momentum 0 is the plain average
		{"nesterov as average", OuterNesterov(1, 0), 1, []float32{3, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := wc(1, 1)
			var state OuterState
			for i := 0; i < c.steps; i++ {
				if err := c.outer.Step(w, sum, 2, &state); err != nil {
					t.Fatal(err)
				}
			}
			if got := values(w); !near(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestElasticPull(t *testing.T) {
	x := wc(2, 4)
	ElasticAveraging(0.25).(OuterPuller).Pull(x, wc(1, 1)) // x -= 0.25 (x - c) = (1.75, 3.25)
	if got := values(x); !near(got, []float32{1.75, 3.25}) {
		t.Errorf("pull gave %v", got)
	}
}

func TestWarmupTau(t *testing.T) {
	o := (&Options{Tau: 20, WarmupRounds: 2}).withDefaults()
	got := []int{o.tauFor(0), o.tauFor(1), o.tauFor(2), o.tauFor(7)}
	if got[0] != 1 || got[1] != 1 || got[2] != 20 || got[3] != 20 {
		t.Errorf("post-local SGD taus %v, want [1 1 20 20]", got)
	}
	if d := (&Options{}).withDefaults(); d.Tau != 10 || d.Threads != 1 {
		t.Errorf("defaults %+v", d)
	}
}

// Outer Nesterov keeps its momentum in the state it is given, so one
// value serves several trainers, and a restored state takes the same next
// step.
func TestOuterNesterovState(t *testing.T) {
	o := OuterNesterov(0.5, 0.5)
	var a, b OuterState
	w := wc(1, 1)
	if err := o.Step(w, wc(6, 4), 2, &a); err != nil {
		t.Fatal(err)
	}
	if got := a.Names(); len(got) != 1 || got[0] != "momentum" {
		t.Fatalf("state %v", got)
	}
	enc, err := a.Get("momentum").MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	m, err := ndarray.DecodeWeightCollection(enc)
	if err != nil {
		t.Fatal(err)
	}
	b.Set("momentum", m)
	w2 := w.Clone()
	if err := o.Step(w, wc(6, 4), 2, &a); err != nil {
		t.Fatal(err)
	}
	if err := o.Step(w2, wc(6, 4), 2, &b); err != nil {
		t.Fatal(err)
	}
	if got, want := values(w2), values(w); got[0] != want[0] || got[1] != want[1] {
		t.Errorf("restored step %v, original %v", got, want)
	}
	if err := o.Step(wc(1, 2, 3), wc(1, 2, 3), 2, &b); err == nil {
		t.Error("a momentum of another layout was accepted")
	}
}

// A user's outer optimizer plugs in through the interface.
type halfway struct{ steps int }

func (h *halfway) Step(w, sum *ndarray.WeightCollection, k int, _ *OuterState) error {
	h.steps++
	avg := sum.Scale(1 / float32(k))
	w.ScaleInPlace(0.5).Axpy(0.5, avg)
	return nil
}

func (h *halfway) String() string { return "halfway" }

func TestOuterChecks(t *testing.T) {
	for _, c := range []struct {
		outer Outer
		k     int
		ok    bool
	}{
		{ElasticAveraging(0.25), 4, true},
		{ElasticAveraging(0.5), 4, false},
		{ElasticAveraging(0), 1, false},
		{OuterNesterov(0.7, 0.9), 4, true},
		{OuterNesterov(0, 0.9), 4, false},
		{OuterNesterov(0.7, 1), 4, false},
	} {
		err := c.outer.(interface{ Check(int) error }).Check(c.k)
		if (err == nil) != c.ok {
			t.Errorf("%s with K=%d: %v", c.outer, c.k, err)
		}
	}
	if o := (&Options{}).withDefaults().Outer; o == nil || o.String() != "average" {
		t.Errorf("the default outer optimizer is %v", o)
	}
}
