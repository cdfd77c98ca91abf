package ui

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

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

// BenchmarkUIOverhead measures what the UI costs a LeNet training round
// at τ = 50: two identical trainers run their rounds in turn, one on a
// context without a UI and one on a context with a UI that writes an
// event log and serves the Training and Jobs pages and the event stream
// to open clients. It reports both rounds' times, their difference in
// percent, and the UI's own time per round: recording events on the
// job's goroutines and drawing the pages' live updates, in percent of the
// round (the goal: under 1%).
//
//	go test -run='^$' -bench=UIOverhead -benchtime=10x ./ui
func BenchmarkUIOverhead(b *testing.B) {
	_, plain := lenetTrainer(b)
	sc, watched := func() (*rdd.Context, *sparknet.Trainer) {
		sc, err := rdd.NewContext("local[2]")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sc.Close() })
		return sc, nil
	}()
	u, err := Start(sc, Options{Port: 0, EventLog: b.TempDir(), Errors: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { u.Close() })
	sp, err := caffe.LoadSolverParameter("../scripts/lenet_solver.prototxt")
	if err != nil {
		b.Fatal(err)
	}
	train := sc.ParallelizeSamples(mnistLike(6400, 1), 2).Cache()
	if watched, err = sparknet.Parallelize(sc, sp, train, sparknet.Options{Tau: 50, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { watched.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, p := range []string{"stream?page=%2Ftraining%2F", "stream?page=%2Fjobs%2F", "api/v1/events"} {
		watch(b, ctx, u.URL()+p)
	}
	// A round of each to warm up: replicas, caches, the pages.
	for _, t := range []*sparknet.Trainer{plain, watched} {
		if _, err := t.Round(ctx); err != nil {
			b.Fatal(err)
		}
	}
	rec0, draw0 := u.cost()
	var base, withUI time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, t := range []*sparknet.Trainer{plain, watched} {
			if i%2 == 1 {
				t = []*sparknet.Trainer{watched, plain}[k] // alternate who goes first
			}
			start := time.Now()
			if _, err := t.Round(ctx); err != nil {
				b.Fatal(err)
			}
			if t == plain {
				base += time.Since(start)
			} else {
				withUI += time.Since(start)
			}
		}
	}
	b.StopTimer()
	rec, draw := u.cost()
	rec, draw = rec-rec0, draw-draw0
	n := float64(b.N)
	b.ReportMetric(base.Seconds()*1000/n, "ms/round")
	b.ReportMetric(withUI.Seconds()*1000/n, "ms/round-ui")
	b.ReportMetric(100*(withUI.Seconds()-base.Seconds())/base.Seconds(), "%slower")
	b.ReportMetric(100*(rec+draw).Seconds()/withUI.Seconds(), "%ui-time")
	b.ReportMetric(rec.Seconds()*1000/n, "ms-recording/round")
	b.ReportMetric(draw.Seconds()*1000/n, "ms-drawing/round")
}
