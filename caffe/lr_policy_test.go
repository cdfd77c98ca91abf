package caffe

import (
	"math"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"google.golang.org/protobuf/proto"
)

func TestLRPolicies(t *testing.T) {
	tests := []struct {
		name string
		sp   *caffepb.SolverParameter
		want []float64 // rates at iterations 0, 1, 2
	}{
		{"fixed", &caffepb.SolverParameter{LrPolicy: proto.String("fixed"), BaseLr: proto.Float32(0.01)},
			[]float64{0.01, 0.01, 0.01}},
		{"step", &caffepb.SolverParameter{LrPolicy: proto.String("step"), BaseLr: proto.Float32(0.01),
			Gamma: proto.Float32(0.1), Stepsize: proto.Int32(1)},
			[]float64{0.01, 0.001, 0.0001}},
		{"step size 2", &caffepb.SolverParameter{LrPolicy: proto.String("step"), BaseLr: proto.Float32(0.01),
			Gamma: proto.Float32(0.1), Stepsize: proto.Int32(2)},
			[]float64{0.01, 0.01, 0.001}},
		{"exp", &caffepb.SolverParameter{LrPolicy: proto.String("exp"), BaseLr: proto.Float32(0.01),
			Gamma: proto.Float32(0.9)},
			[]float64{0.01, 0.009, 0.0081}},
		{"inv", &caffepb.SolverParameter{LrPolicy: proto.String("inv"), BaseLr: proto.Float32(0.01),
			Gamma: proto.Float32(1e-4), Power: proto.Float32(0.75)},
			[]float64{0.01, 0.009999250065618985, 0.009998500262451884}},
		{"multistep", &caffepb.SolverParameter{LrPolicy: proto.String("multistep"), BaseLr: proto.Float32(0.01),
			Gamma: proto.Float32(0.5), Stepvalue: []int32{1, 2}},
			[]float64{0.01, 0.005, 0.0025}},
		{"poly", &caffepb.SolverParameter{LrPolicy: proto.String("poly"), BaseLr: proto.Float32(0.01),
			Power: proto.Float32(2), MaxIter: proto.Int32(4)},
			[]float64{0.01, 0.005625, 0.0025}},
		{"sigmoid", &caffepb.SolverParameter{LrPolicy: proto.String("sigmoid"), BaseLr: proto.Float32(0.01),
			Gamma: proto.Float32(0.5), Stepsize: proto.Int32(1)},
			[]float64{0.003775406687981454, 0.005, 0.006224593312018546}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for iter, want := range tc.want {
				got, err := LearningRate(tc.sp, iter)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(float64(got)-want) > 1e-6*want {
					t.Errorf("iteration %d: rate %.9g, want %.9g", iter, got, want)
				}
			}
		})
	}
}

func TestLRPolicyMultistepCounter(t *testing.T) {
	sp := &caffepb.SolverParameter{LrPolicy: proto.String("multistep"), BaseLr: proto.Float32(1),
		Gamma: proto.Float32(0.1), Stepvalue: []int32{5, 7}}
	p, err := lookupLRPolicy(sp)
	if err != nil {
		t.Fatal(err)
	}
	step := 0
	for iter := 0; iter < 10; iter++ {
		p.Rate(sp, iter, &step)
	}
	if step != 2 {
		t.Errorf("current step after 10 iterations = %d, want 2", step)
	}
	// A restored solver continues from its saved step.
	step = 1
	if r := p.Rate(sp, 6, &step); math.Abs(r-0.1) > 1e-7 || step != 1 {
		t.Errorf("rate at 6 from step 1 = %g (step %d), want 0.1 (step 1)", r, step)
	}
}

func TestLRPolicyErrors(t *testing.T) {
	tests := []struct {
		name string
		sp   *caffepb.SolverParameter
		want string
	}{
		{"unset", &caffepb.SolverParameter{}, "no lr_policy"},
		{"unknown", &caffepb.SolverParameter{LrPolicy: proto.String("stepp")}, `did you mean "step"`},
		{"step without stepsize", &caffepb.SolverParameter{LrPolicy: proto.String("step")}, "stepsize must be positive"},
		{"negative gamma", &caffepb.SolverParameter{LrPolicy: proto.String("exp"), Gamma: proto.Float32(-1)}, "gamma must be >= 0"},
		{"poly without max_iter", &caffepb.SolverParameter{LrPolicy: proto.String("poly")}, "max_iter must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LearningRate(tc.sp, 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "caffe: ") {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if err := RegisterLRPolicy("fixed", LRPolicy{Rate: func(*caffepb.SolverParameter, int, *int) float64 { return 0 }}); err == nil {
		t.Error("registering fixed twice succeeded")
	}
	if got := strings.Join(LRPolicies(), ","); got != "exp,fixed,inv,multistep,poly,sigmoid,step" {
		t.Errorf("LRPolicies() = %s", got)
	}
}
