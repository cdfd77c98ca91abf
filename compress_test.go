package sparknet

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// The first compressed round by hand: every replica's change from the
// broadcast weights rounded to bfloat16, their sum rounded again, and the
// average of K copies of the start plus that sum.
func TestCompressedRoundByHand(t *testing.T) {
	const k = 3
	sp := testSolverParam(t, "")
	f := newFixture(t, "local[2]", k)
	plain := f.trainer(t, sp, Options{Tau: 2, Seed: 5})
	start := plain.Weights().Clone()
	// Each replica's weights after its first round, uncompressed: the
	// replicas start alike, so they are the same in both trainers.
	if _, err := plain.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := plain.train.RunPartitions(context.Background(), func(tc *rdd.TaskContext) (any, error) {
		v, ok := tc.Store().Lookup(plain.replicaKey(tc.Partition()))
		if !ok {
			t.Errorf("no replica %d", tc.Partition())
			return nil, nil
		}
		return v.(*replica).weights.Clone(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var replicas []*ndarray.WeightCollection
	for _, r := range res {
		replicas = append(replicas, r.(*ndarray.WeightCollection))
	}

	comp := f.trainer(t, sp, Options{Tau: 2, Seed: 5, Compress: CompressBFloat16()})
	ev, err := comp.Round(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := start.NumParams()
	w0 := flatten(nil, start)
	sum := make([]float32, n)
	for _, r := range replicas {
		x := flatten(nil, r)
		for i := range x {
			x[i] -= w0[i]
		}
		ndarray.BFloat16.Round(x)
		for i := range x {
			sum[i] += x[i]
		}
	}
	ndarray.BFloat16.Round(sum)
	want := make([]float32, n)
	for i := range want {
		want[i] = (float32(k*w0[i]) + sum[i]) * (1 / float32(k))
	}
	got := flatten(nil, comp.Weights())
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d weights differ from the hand-computed round", bad, n)
	}
	// Every replica sends 2 bytes a value, and the sum goes back to each.
	if want := int64(2 * k * 2 * n); ev.BytesMoved != want {
		t.Errorf("BytesMoved %d, want %d", ev.BytesMoved, want)
	}
	if d := comp.Weights().MaxDiff(plain.Weights()); d == 0 || d > 1e-2 {
		t.Errorf("bfloat16 weights differ from float32's by %g: want a rounding's worth", d)
	}
}

// Compressed averaging learns, moves the bytes it promises, and keeps
// what it rounds away: with error feedback, the weights stay near those
// of plain averaging.
func TestCompressedAveragingLearns(t *testing.T) {
	sp := testSolverParam(t, "")
	f := newFixture(t, "local[2]", 2)
	run := func(c Compression) (*Trainer, int64) {
		tr := f.trainer(t, sp, Options{Tau: 3, Seed: 2, Compress: c})
		var bytes int64
		for i := 0; i < 12; i++ {
			ev, err := tr.Round(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			bytes = ev.BytesMoved
		}
		return tr, bytes
	}
	plain, plainBytes := run(Compression{})
	ref, err := plain.Test(context.Background(), f.test)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Compression{CompressBFloat16(), CompressFloat16(), CompressTopK(0.1)} {
		tr, bytes := run(c)
		res, err := tr.Test(context.Background(), f.test)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes a round (%.1f× fewer), accuracy %.3f (float32 %.3f), weights within %.3g",
			c, bytes, float64(plainBytes)/float64(bytes), res.Accuracy, ref.Accuracy, tr.Weights().MaxDiff(plain.Weights()))
		if res.Accuracy < ref.Accuracy-0.05 {
			t.Errorf("%s: accuracy %.3f, float32 %.3f", c, res.Accuracy, ref.Accuracy)
		}
		ratio := float64(plainBytes) / float64(bytes)
		switch {
		case c.TopK == 0 && (ratio < 1.9 || ratio > 2.2):
			t.Errorf("%s: %.2f× fewer bytes, want 2", c, ratio)
		case c.TopK != 0 && ratio < 2:
			t.Errorf("%s: only %.2f× fewer bytes", c, ratio)
		}
	}
}

// Every process of an SPMD engine gets the compressed sum of a local
// master bit for bit, on 2 or 3 processes.
func TestCompressedSPMD(t *testing.T) {
	const k = 3
	run := func(sc *rdd.Context, c Compression) (*ndarray.WeightCollection, error) {
		train := sc.ParallelizeSamples(syntheticSamples(480, 1), k).Cache()
		tr, err := Parallelize(sc, testSolverParam(t, ""), train, Options{Tau: 3, Seed: 4, Compress: c})
		if err != nil {
			return nil, err
		}
		defer tr.Close()
		if err := tr.Rounds(context.Background(), 3); err != nil {
			return nil, err
		}
		return tr.Weights().Clone(), nil
	}
	for _, c := range []Compression{CompressBFloat16(), CompressTopK(0.05)} {
		sc, err := rdd.NewContext("local[2]")
		if err != nil {
			t.Fatal(err)
		}
		want, err := run(sc, c)
		sc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{2, 3} {
			for r, w := range spmdRun(t, procs, func(sc *rdd.Context) (*ndarray.WeightCollection, error) { return run(sc, c) }) {
				if d := w.MaxDiff(want); d != 0 {
					t.Errorf("%s on %d processes: rank %d's weights differ from local[2]'s by %g", c, procs, r, d)
				}
			}
		}
	}
}

// spmdRun runs f on procs SPMD ranks (goroutines over an in-process
// communicator) and returns every rank's result.
func spmdRun(t *testing.T, procs int, f func(sc *rdd.Context) (*ndarray.WeightCollection, error)) []*ndarray.WeightCollection {
	t.Helper()
	comms, err := rdd.NewLocalComms(procs)
	if err != nil {
		t.Fatal(err)
	}
	outs := make([]*ndarray.WeightCollection, procs)
	errs := make([]error, procs)
	done := make(chan int)
	for r, c := range comms {
		go func() {
			defer func() { done <- r }()
			sc, err := rdd.NewContextWith(rdd.Options{Engine: rdd.NewSPMDEngine(c)})
			if err != nil {
				errs[r] = err
				return
			}
			defer sc.Close()
			outs[r], errs[r] = f(sc)
		}()
	}
	for range comms {
		<-done
	}
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return outs
}

// A snapshot of a compressed run written by 3 SPMD processes resumes on 2
// (and on a local master) to the weights of an uninterrupted run, bit for
// bit: the error feedback of every replica and of the sum is in it.
func TestCompressedResumeOnOtherProcesses(t *testing.T) {
	for _, c := range []Compression{CompressBFloat16(), CompressTopK(0.05)} {
		t.Run(c.String(), func(t *testing.T) { testCompressedResume(t, c) })
	}
}

func testCompressedResume(t *testing.T, c Compression) {
	const k = 4
	dir := t.TempDir()
	opts := func(resume bool) Options {
		return Options{Tau: 2, Seed: 6, Compress: c, Checkpoint: filepath.Join(dir, "ck", "tiny"), CheckpointEvery: 2, Resume: resume}
	}
	rounds := func(sc *rdd.Context, o Options, n int) (*ndarray.WeightCollection, error) {
		train := sc.ParallelizeSamples(syntheticSamples(480, 1), k).Cache()
		tr, err := Parallelize(sc, testSolverParam(t, ""), train, o)
		if err != nil {
			return nil, err
		}
		defer tr.Close()
		if err := tr.RunTo(context.Background(), n); err != nil {
			return nil, err
		}
		return tr.Weights().Clone(), nil
	}
	sc, err := rdd.NewContext("local[2]")
	if err != nil {
		t.Fatal(err)
	}
	o := opts(false)
	o.Checkpoint = ""
	want, err := rounds(sc, o, 5)
	sc.Close()
	if err != nil {
		t.Fatal(err)
	}
	spmdRun(t, 3, func(sc *rdd.Context) (*ndarray.WeightCollection, error) { return rounds(sc, opts(false), 2) })
	for r, w := range spmdRun(t, 2, func(sc *rdd.Context) (*ndarray.WeightCollection, error) { return rounds(sc, opts(true), 5) }) {
		if d := w.MaxDiff(want); d != 0 {
			t.Errorf("resumed on 2 processes: rank %d's weights differ from the uninterrupted run's by %g", r, d)
		}
	}
	// The 2 processes wrote a checkpoint of round 4; a local master
	// resumes it too.
	sc, err = rdd.NewContext("local[3]")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	w, err := rounds(sc, opts(true), 5)
	if err != nil {
		t.Fatal(err)
	}
	if d := w.MaxDiff(want); d != 0 {
		t.Errorf("resumed on local[3] from round 4: weights differ from the uninterrupted run's by %g", d)
	}
}

func TestCompressionSettings(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"none", "none"}, {"", "none"}, {"bf16", "bfloat16"}, {"bfloat16", "bfloat16"}, {"fp16", "float16"},
		{"top-1%", "top-1%"}, {"topk=0.001", "top-0.1%"}, {"top-25%", "top-25%"},
	} {
		c, err := ParseCompression(tc.in)
		if err != nil || c.String() != tc.want {
			t.Errorf("ParseCompression(%q) = %v, %v; want %s", tc.in, c, err, tc.want)
		}
	}
	for _, bad := range []string{"int8", "top-0%", "top-100%", "topk=2", "top-x%", "topk="} {
		_, err := ParseCompression(bad)
		if err == nil {
			t.Errorf("ParseCompression(%q): no error", bad)
		} else if !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseCompression(%q): the error does not name the input: %v", bad, err)
		}
	}
	f := newFixture(t, "local[2]", 2)
	sp := testSolverParam(t, "")
	for _, o := range []Options{
		{Compress: CompressTopK(1.5)},
		{Compress: Compression{Encoding: ndarray.Sparse}},
		{Compress: Compression{Encoding: ndarray.BFloat16, TopK: 0.1}},
		{Compress: CompressBFloat16(), Average: WeightsAndHistory},
	} {
		if _, err := Parallelize(f.sc, sp, f.train, o); err == nil {
			t.Errorf("%+v: no error", o.Compress)
		}
	}
}
