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
			s := outerState{Outer: c.outer}
			for i := 0; i < c.steps; i++ {
				s.step(w, sum, 2)
			}
			if got := values(w); !near(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestElasticPull(t *testing.T) {
	s := outerState{Outer: ElasticAveraging(0.25)}
	x := wc(2, 4)
	s.pull(x, wc(1, 1)) // x -= 0.25 (x - c) = (1.75, 3.25)
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
