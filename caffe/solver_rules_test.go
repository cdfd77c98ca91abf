package caffe

import (
	"math"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"google.golang.org/protobuf/proto"
)

// TestUpdateRules feeds each rule three gradients at rate 0.1 and compares
// the steps with values worked out by hand from the update formulas.
func TestUpdateRules(t *testing.T) {
	grads := [][]float32{{0.5, -1, 2}, {0.25, 0.5, -1.5}, {-0.75, 1, 0.1}}
	tests := []struct {
		name string
		sp   *caffepb.SolverParameter
		want [][]float64
	}{
		{"SGD", &caffepb.SolverParameter{Momentum: proto.Float32(0.9)},
			[][]float64{{0.05, -0.1, 0.2}, {0.07, -0.04, 0.03}, {-0.012, 0.064, 0.037}}},
		{"Nesterov", &caffepb.SolverParameter{Momentum: proto.Float32(0.9)},
			[][]float64{{0.095, -0.19, 0.38}, {0.088, 0.014, -0.123}, {-0.0858, 0.1576, 0.0433}}},
		{"AdaGrad", &caffepb.SolverParameter{},
			[][]float64{{0.099999998, -0.099999999, 0.0999999995}, {0.0447213587, 0.0447213591, -0.0599999998},
				{-0.0801783717, 0.0666666662, 0.00399680382}}},
		{"RMSProp", &caffepb.SolverParameter{RmsDecay: proto.Float32(0.98)},
			[][]float64{{0.707106681, -0.707106731, 0.707106756}, {0.318788316, 0.318788336, -0.427005695},
				{-0.57059382, 0.476147268, 0.02873231}}},
		{"AdaDelta", &caffepb.SolverParameter{Momentum: proto.Float32(0.95), Delta: proto.Float32(1e-6)},
			[][]float64{{0.000447195708, -0.000447209123, 0.000447212477}, {0.00028865974, 0.000288671286, -0.000385693488},
				{-0.000560478271, 0.000470296629, 3.05899908e-05}}},
		{"Adam", &caffepb.SolverParameter{Momentum: proto.Float32(0.9)},
			[][]float64{{0.0999999368, -0.0999999684, 0.0999999842}, {0.0932179111, -0.0266336964, 0.00893249961},
				{-0.00819767701, 0.0272696733, 0.00945462614}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.sp.Type = proto.String(tc.name)
			r, _, err := lookupUpdateRule(tc.sp)
			if err != nil {
				t.Fatal(err)
			}
			hist := make([][]float32, r.History)
			for i := range hist {
				hist[i] = make([]float32, 3)
			}
			for iter, g := range grads {
				diff := append([]float32(nil), g...)
				r.Apply(tc.sp, iter, 0.1, diff, hist)
				for i, want := range tc.want[iter] {
					if d := math.Abs(float64(diff[i]) - want); d > 2e-6*math.Abs(want)+1e-9 {
						t.Errorf("step %d value %d: got %.9g, want %.9g", iter+1, i, diff[i], want)
					}
				}
			}
		})
	}
}

func TestUpdateRuleErrors(t *testing.T) {
	tests := []struct {
		name string
		sp   *caffepb.SolverParameter
		want string
	}{
		{"unknown", &caffepb.SolverParameter{Type: proto.String("Adamm")}, `did you mean "Adam"`},
		{"AdaGrad momentum", &caffepb.SolverParameter{Type: proto.String("AdaGrad"), Momentum: proto.Float32(0.9)}, "momentum must be 0"},
		{"RMSProp decay", &caffepb.SolverParameter{Type: proto.String("RMSProp"), RmsDecay: proto.Float32(1)}, "rms_decay must be in [0, 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := lookupUpdateRule(tc.sp)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	legacy := &caffepb.SolverParameter{SolverType: caffepb.SolverParameter_NESTEROV.Enum()}
	if _, name, err := lookupUpdateRule(legacy); err != nil || name != "Nesterov" {
		t.Errorf("legacy solver_type NESTEROV gave %q, %v", name, err)
	}
	if got := strings.Join(SolverTypes(), ","); got != "AdaDelta,AdaGrad,Adam,Nesterov,RMSProp,SGD" {
		t.Errorf("SolverTypes() = %s", got)
	}
}
