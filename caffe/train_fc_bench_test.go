package caffe

import "testing"

// BenchmarkTrainAlexNetFC trains AlexNet's fully connected layers alone
// (testdata/bench/alexnet_fc_train.prototxt: fc6, fc7 and fc8 on
// pool5-shaped inputs, batch 32), forward, backward and the SGD update of
// their 58.6M weights: the memory-bound part of AlexNet's iteration, timed
// apart from the convolutions.
//
//	go test -run '^$' -bench 'TrainAlexNetFC/threads=1' -benchtime 20x ./caffe
func BenchmarkTrainAlexNetFC(b *testing.B) {
	benchTrain(b, "testdata/bench/alexnet_fc_train.prototxt", 256, 6, 6)
}
