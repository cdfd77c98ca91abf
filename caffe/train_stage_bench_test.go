package caffe

import (
	"context"
	"testing"
)

// BenchmarkTrainAlexNetStage1 trains AlexNet's first stage (conv1 on the
// row convolution, relu1, norm1, pool1) under a 10-way classifier, batch
// 32, one thread, so that the stage's share of the FMA peak and its
// images per CPU second show without the rest of the net:
//
//	go test -run '^$' -bench TrainAlexNetStage1 -benchtime 5x ./caffe
func BenchmarkTrainAlexNetStage1(b *testing.B) {
	s := benchSolver(b, "testdata/bench/alexnet_stage1_train.prototxt", 3, 227, 227, 1)
	feedSynthetic(s, 7, 0, 10)
	s.Net().SetKeepTops(false)
	ctx := context.Background()
	if err := s.Step(ctx, 1); err != nil {
		b.Fatal(err)
	}
	fwd, bwd := s.Net().FLOPs()
	runBench(b, s.Net().Blob("data").Dim(0), 1, fwd+bwd, func() {
		if err := s.Step(ctx, 1); err != nil {
			b.Fatal(err)
		}
	})
}
