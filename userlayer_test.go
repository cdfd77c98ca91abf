package sparknet

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/rdd"
	"google.golang.org/protobuf/proto"
)

// learnedLeaky is a layer written outside the engine, through caffe's
// exported API only, as a program would write one: a leaky ReLU whose
// negative slope a is learned (y = x for x > 0, a·x otherwise). The slope
// starts at python_param.param_str when given, else at 0.25.
type learnedLeaky struct {
	start float32
	a     *caffe.Blob
}

func newLearnedLeaky(def *caffepb.LayerParameter, _ *caffe.LayerEnv) (caffe.Layer, error) {
	l := &learnedLeaky{start: 0.25}
	if s := def.GetPythonParam().GetParamStr(); s != "" {
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, fmt.Errorf("param_str %q is not a slope: %v", s, err)
		}
		l.start = float32(v)
	}
	return l, nil
}

func (l *learnedLeaky) Type() string { return "LearnedLeaky" }

func (l *learnedLeaky) Setup(bottom, top []*caffe.Blob) error {
	if len(bottom) != 1 || len(top) != 1 || bottom[0] == top[0] {
		return fmt.Errorf("LearnedLeaky takes one bottom and another top")
	}
	l.a = caffe.NewBlob()
	l.a.DataSlice()[0] = l.start
	return l.Reshape(bottom, top)
}

func (l *learnedLeaky) Reshape(bottom, top []*caffe.Blob) error {
	top[0].ReshapeLike(bottom[0])
	return nil
}

func (l *learnedLeaky) Forward(bottom, top []*caffe.Blob) error {
	a, y := l.a.DataSlice()[0], top[0].DataSlice()
	for i, v := range bottom[0].DataSlice() {
		if v > 0 {
			y[i] = v
		} else {
			y[i] = a * v
		}
	}
	return nil
}

func (l *learnedLeaky) Backward(top []*caffe.Blob, propagateDown []bool, bottom []*caffe.Blob) {
	a, x, dy := l.a.DataSlice()[0], bottom[0].DataSlice(), top[0].DiffSlice()
	var da float32
	for i, v := range x {
		if v <= 0 {
			da += dy[i] * v
		}
	}
	l.a.DiffSlice()[0] += da
	if propagateDown[0] {
		dx := bottom[0].DiffSlice()
		for i, v := range x {
			if v > 0 {
				dx[i] = dy[i]
			} else {
				dx[i] = a * dy[i]
			}
		}
	}
}

func (l *learnedLeaky) Params() []*caffe.Blob { return []*caffe.Blob{l.a} }

func init() {
	// Under its own type name, and as the Go implementation of a pycaffe
	// class: Python layers naming module "userlayers", layer
	// "LearnedLeaky" run it.
	for _, name := range []string{"LearnedLeaky", "userlayers.LearnedLeaky"} {
		if err := caffe.RegisterLayer(name, newLearnedLeaky); err != nil {
			panic(err)
		}
	}
}

// userSolverParam is the test solver with its ReLU replaced by a layer
// definition naming a user layer (writing the top "act1").
func userSolverParam(t *testing.T, layer string) *caffepb.SolverParameter {
	t.Helper()
	src := strings.Replace(testSolver, `layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }`, layer, 1)
	src = strings.Replace(src, `bottom: "ip1" top: "ip2"`, `bottom: "act1" top: "ip2"`, 1)
	if !strings.Contains(src, `"act1" top: "ip2"`) || strings.Contains(src, `"ReLU"`) {
		t.Fatal("the test solver changed: the user layer was not put in")
	}
	sp, err := caffe.ParseSolverParameter("user_solver.prototxt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// A layer registered from user code trains in the SparkNet trainer, under
// its own name and as the Go implementation of a Python layer: the slope
// it learns is averaged like any weight, identical under local[2] and an
// SPMD engine, and saved and loaded with the model.
func TestUserLayerTrains(t *testing.T) {
	for _, tc := range []struct {
		name, layer string
		start       float32
	}{
		{"registered", `layer { name: "act" type: "LearnedLeaky" bottom: "ip1" top: "act1" }`, 0.25},
		{"python", `layer { name: "act" type: "Python" bottom: "ip1" top: "act1"
			python_param { module: "userlayers" layer: "LearnedLeaky" param_str: "0.1" } }`, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := userSolverParam(t, tc.layer)
			f := newFixture(t, "local[2]", 2)
			tr := f.trainer(t, sp, Options{Tau: 5, Seed: 1})
			if got := tr.Weights().Get("act"); len(got) != 1 || got[0].Data()[0] != tc.start {
				t.Fatalf("the slope starts as %v, want %g", got, tc.start)
			}
			if err := tr.Rounds(context.Background(), 12); err != nil {
				t.Fatal(err)
			}
			res, err := tr.Test(context.Background(), f.test)
			if err != nil {
				t.Fatal(err)
			}
			if res.Accuracy < 0.9 {
				t.Errorf("accuracy %.3f: the net with a user layer did not learn", res.Accuracy)
			}
			slope := tr.Weights().Get("act")[0].Data()[0]
			// Weight decay alone would move it by about 1%.
			if math.Abs(float64(slope-tc.start)) < 0.1 {
				t.Errorf("the slope moved from %g to %g only: its gradient did not reach the solver", tc.start, slope)
			}

			path := filepath.Join(t.TempDir(), "user.caffemodel")
			if err := tr.Net().SaveWeights(path); err != nil {
				t.Fatal(err)
			}
			np := proto.Clone(sp.GetNetParam()).(*caffepb.NetParameter)
			if _, err := caffe.ReplaceDataLayers(np, 1, 4, 4); err != nil {
				t.Fatal(err)
			}
			net, err := caffe.NewNet(np, caffe.NetOptions{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := net.LoadWeights(path); err != nil {
				t.Fatal(err)
			}
			if d := net.Weights().MaxDiff(tr.Weights()); d != 0 {
				t.Errorf("loaded weights differ from the trainer's by %g", d)
			}
			if got := net.Params("act")[0].DataSlice()[0]; got != slope {
				t.Errorf("loaded slope %g, want %g", got, slope)
			}

			// The same rounds on two SPMD processes reach the same bits.
			comms, err := rdd.NewLocalComms(2)
			if err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, len(comms))
			for _, c := range comms {
				go func() {
					errs <- func() error {
						sc, err := rdd.NewContextWith(rdd.Options{Engine: rdd.NewSPMDEngine(c)})
						if err != nil {
							return err
						}
						defer sc.Close()
						train := sc.ParallelizeSamples(syntheticSamples(480, 1), 2).Cache()
						spmd, err := Parallelize(sc, sp, train, Options{Tau: 5, Seed: 1})
						if err != nil {
							return err
						}
						defer spmd.Close()
						if err := spmd.Rounds(context.Background(), 12); err != nil {
							return err
						}
						if d := spmd.Weights().MaxDiff(tr.Weights()); d != 0 {
							return fmt.Errorf("weights differ from local[2] by %g", d)
						}
						return nil
					}()
				}()
			}
			for range comms {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
		})
	}
}
