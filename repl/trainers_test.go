package repl

import (
	"bytes"
	"strings"
	"testing"
)

// A trainer that an input replaces gives its replicas back: after three
// trainers made under one name, only the last one's replicas are in the
// worker stores.
func TestReplacedTrainersReleaseReplicas(t *testing.T) {
	in := "sp, err := caffe.ParseSolverParameter(\"tiny\", []byte(`base_lr: 0.1 lr_policy: \"fixed\" net_param { name: \"tiny\"\n" +
		"layer { name: \"data\" type: \"Data\" top: \"data\" top: \"label\" data_param { source: \"x\" batch_size: 8 } }\n" +
		"layer { name: \"ip\" type: \"InnerProduct\" bottom: \"data\" top: \"ip\" inner_product_param { num_output: 10 } }\n" +
		"layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\" top: \"loss\" } }`))\n" +
		"s := &data.Samples{N: 64, C: 1, H: 8, W: 8, Pixels: make([]uint8, 64*64), Labels: make([]float32, 64)}\n" +
		"train := sc.ParallelizeSamples(s, 2).Cache()\n" +
		"tr, err := sparknet.Parallelize(sc, sp, train, sparknet.Options{Tau: 1})\n" +
		"_, err = tr.Round(ctx)\n" +
		"tr, err = sparknet.Parallelize(sc, sp, train, sparknet.Options{Tau: 1})\n" +
		"_, err = tr.Round(ctx)\n" +
		"tr, err = sparknet.Parallelize(sc, sp, train, sparknet.Options{Tau: 1})\n" +
		"_, err = tr.Round(ctx)\n" +
		"replicas := func() int { n := 0; res, _ := sc.RunWorkers(ctx, func(tc *rdd.TaskContext) (any, error) { return len(tc.Store().Keys()), nil }); for _, r := range res { n += r.(int) }; return n }\n" +
		"for i := 0; i < 500 && replicas() > 2; i++ { time.Sleep(10 * time.Millisecond) }\n" +
		"fmt.Println(\"replicas:\", replicas())\n"
	var out, errb bytes.Buffer
	code := Main([]string{"--master", "local[2]", "--no-ui"}, strings.NewReader(in), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "replicas: 2\n") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}
