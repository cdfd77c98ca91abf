package ui

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/rdd"
)

// mnistLike makes n random 1×28×28 byte images with labels 0 to 9: a
// LeNet round costs the same on them as on MNIST.
func mnistLike(n int, seed uint64) *data.Samples {
	r := rand.New(rand.NewPCG(seed, 3))
	s := &data.Samples{N: n, C: 1, H: 28, W: 28, Pixels: make([]uint8, n*784), Labels: make([]float32, n)}
	for i := range s.Pixels {
		s.Pixels[i] = uint8(r.IntN(256))
	}
	for i := range s.Labels {
		s.Labels[i] = float32(r.IntN(10))
	}
	return s
}

// lenetTrainer makes a LeNet trainer with τ = 50 on local[2], one
// replica per worker, as the README's main job runs.
func lenetTrainer(b *testing.B) (*rdd.Context, *sparknet.Trainer) {
	b.Helper()
	sc, err := rdd.NewContext("local[2]")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sc.Close() })
	sp, err := caffe.LoadSolverParameter("../scripts/lenet_solver.prototxt")
	if err != nil {
		b.Fatal(err)
	}
	train := sc.ParallelizeSamples(mnistLike(6400, 1), 2).Cache()
	t, err := sparknet.Parallelize(sc, sp, train, sparknet.Options{Tau: 50, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { t.Close() })
	return sc, t
}

// watch keeps a server-sent event stream open and read, as a browser
// on a page does.
func watch(b *testing.B, ctx context.Context, url string) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
	}()
}
