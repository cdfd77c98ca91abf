package sparknet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/rdd"
)

// TestResult is the outcome of a test over a whole RDD of samples.
type TestResult struct {
	// Loss is the loss-weighted sum of the test net's loss outputs, as a
	// mean over the samples.
	Loss float64
	// Accuracy is the output named "accuracy" (else the first output of an
	// Accuracy layer), as a mean over the samples; 0 if there is none.
	Accuracy float64
	// N is the number of samples tested.
	N int
	// Outputs holds every scalar output of the test net (such as
	// "accuracy" and "loss"), each a mean over the samples.
	Outputs map[string]float64
}

func (r TestResult) String() string {
	names := make([]string, 0, len(r.Outputs))
	for k := range r.Outputs {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s = %.4f", k, r.Outputs[k])
	}
	return fmt.Sprintf("%d samples: %s", r.N, strings.Join(parts, ", "))
}

// testSums is one partition's contribution to a test.
type testSums struct {
	N           int
	Names       []string
	Sums        []float64 // Σ output × batch size
	LossWeights []float32
	Accuracy    int // index in Names of the accuracy output, or -1
}

// tester is a test net over one test partition.
type tester struct {
	net        *caffe.Net
	inputs     []*caffe.MemoryData
	sizes      []int
	transforms []data.Transform
}

// Test runs the global weights' test net over every sample of a test RDD
// and returns the means of its outputs. The test net is the solver's
// first test net (else its train net in the TEST phase), its Data layers
// fed from the RDD's partitions.
func (t *Trainer) Test(ctx context.Context, test *rdd.RDD) (TestResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.test(ctx, test)
}

func (t *Trainer) test(ctx context.Context, test *rdd.RDD) (TestResult, error) {
	if t.closed {
		return TestResult{}, errors.New("sparknet: trainer is closed")
	}
	if test == nil || !test.IsSamples() {
		return TestResult{}, errors.New("sparknet: Test needs an RDD of samples")
	}
	if err := t.publish(t.message(0)); err != nil {
		return TestResult{}, err
	}
	res, err := test.RunPartitions(ctx, func(tc *rdd.TaskContext) (any, error) {
		return t.testTask(tc, test.ID())
	})
	if err != nil {
		return TestResult{}, fmt.Errorf("sparknet: test: %w", err)
	}
	out := TestResult{Outputs: map[string]float64{}}
	var total *testSums
	for _, r := range res {
		s := r.(*testSums)
		if s.N == 0 {
			continue
		}
		if total == nil {
			c := *s
			c.Sums = append([]float64(nil), s.Sums...)
			total = &c
			continue
		}
		total.N += s.N
		for i := range total.Sums {
			total.Sums[i] += s.Sums[i]
		}
	}
	if total == nil {
		return out, errors.New("sparknet: test: the test RDD holds no samples")
	}
	out.N = total.N
	for i, name := range total.Names {
		mean := total.Sums[i] / float64(total.N)
		out.Outputs[name] = mean
		out.Loss += float64(total.LossWeights[i]) * mean
		if i == total.Accuracy {
			out.Accuracy = mean
		}
	}
	return out, nil
}

func (t *Trainer) testTask(tc *rdd.TaskContext, rddID int) (any, error) {
	p := tc.Partition()
	s := tc.Samples()
	if s == nil || s.N == 0 {
		return &testSums{}, nil
	}
	key := fmt.Sprintf("%s/test/%d/%d", t.key, rddID, p)
	v, err := tc.Store().GetOrCreate(key, func() (any, error) { return t.newTester(p) })
	if err != nil {
		return nil, err
	}
	ts := v.(*tester)
	msg := t.current()
	if err := ts.net.SetWeights(msg.Weights); err != nil {
		return nil, err
	}
	// Feed each input from a fresh sequential pass over the samples, with
	// the batcher that feeds training and Caffe's Data layers; the last
	// batch may be short.
	batch := ts.sizes[0]
	for i, md := range ts.inputs {
		b, err := data.NewBatcher(s, data.BatchOptions{Size: batch, Order: data.Sequential, Transform: ts.transforms[i]})
		if err != nil {
			return nil, err
		}
		md.SetFeeder(func(d, l []float32) error {
			if len(l) == 0 {
				l = nil
			}
			return b.Next(d, l)
		})
	}
	sums := &testSums{Accuracy: -1}
	for done := 0; done < s.N; {
		n := min(batch, s.N-done)
		if n != batch || done == 0 {
			for _, md := range ts.inputs {
				if err := md.SetBatchSize(n); err != nil {
					return nil, err
				}
			}
		}
		r, err := caffe.EvaluateNet(tc.Context(), ts.net, 1)
		if err != nil {
			return nil, err
		}
		if sums.Names == nil {
			for _, o := range r.Outputs {
				if o.Index != 0 || ts.net.Blob(o.Blob).Count() != 1 {
					continue
				}
				if o.Blob == "accuracy" || sums.Accuracy < 0 && ts.isAccuracy(o.Blob) {
					sums.Accuracy = len(sums.Names)
				}
				sums.Names = append(sums.Names, o.Blob)
				sums.LossWeights = append(sums.LossWeights, o.LossWeight)
				sums.Sums = append(sums.Sums, 0)
			}
		}
		for _, o := range r.Outputs {
			for i, name := range sums.Names {
				if o.Blob == name && o.Index == 0 {
					sums.Sums[i] += o.Value * float64(n)
				}
			}
		}
		done += n
	}
	sums.N = s.N
	return sums, nil
}

func (t *Trainer) newTester(p int) (*tester, error) {
	np := format.CloneNet(t.testNP)
	net, err := caffe.NewNet(np, caffe.NetOptions{Threads: t.opts.Threads, Seed: ReplicaSeed(t.opts.Seed, p), Dir: t.dir})
	if err != nil {
		return nil, fmt.Errorf("building the test net: %w", err)
	}
	ts := &tester{net: net}
	for _, in := range t.testInputs {
		if !net.Def().State.Includes(&caffepb.LayerParameter{Include: in.Include}) {
			continue // a Data layer of another phase
		}
		md, err := net.MemoryDataLayer(in.Layer)
		if err != nil {
			return nil, err
		}
		tr, err := caffe.DataTransform(in.Transform, t.dir, caffe.Test, 0)
		if err != nil {
			return nil, fmt.Errorf("layer %q: %w", in.Layer, err)
		}
		ts.inputs = append(ts.inputs, md)
		ts.sizes = append(ts.sizes, in.BatchSize)
		ts.transforms = append(ts.transforms, tr)
	}
	if len(ts.inputs) == 0 {
		return nil, errors.New("the test net has no Data layer to feed")
	}
	return ts, nil
}

func (ts *tester) isAccuracy(blob string) bool {
	for i := 0; i < ts.net.NumLayers(); i++ {
		l := ts.net.LayerAt(i)
		if l.Type() == "Accuracy" {
			for _, top := range ts.net.Def().Layers[i].Tops {
				if top == blob {
					return true
				}
			}
		}
	}
	return false
}
