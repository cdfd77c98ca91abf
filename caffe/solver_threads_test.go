package caffe

import (
	"math"
	"testing"
)

// TestSGDUpdateThreads checks that the SGD step shared out among threads
// gives the single-threaded step's results to the bit.
func TestSGDUpdateThreads(t *testing.T) {
	var states [][][]float32
	for _, threads := range []int{1, 2} {
		s := benchSolver(t, "mnist/lenet_train_test.prototxt", 1, 28, 28, threads)
		rng := uint32(3)
		for k, b := range s.net.learnable {
			for i := range b.DiffSlice() {
				rng = rng*1664525 + 1013904223
				b.DiffSlice()[i] = float32(int32(rng)) / (1 << 31)
				s.histSlices[k][0][i] = float32(int32(rng>>3)) / (1 << 31)
			}
		}
		s.applyUpdate()
		s.applyUpdate()
		var st [][]float32
		for k, b := range s.net.learnable {
			st = append(st, b.DataSlice(), b.DiffSlice(), s.histSlices[k][0])
		}
		states = append(states, st)
	}
	for i := range states[0] {
		for j := range states[0][i] {
			if math.Float32bits(states[0][i][j]) != math.Float32bits(states[1][i][j]) {
				t.Fatalf("array %d, value %d: %v on one thread, %v on two", i, j, states[0][i][j], states[1][i][j])
			}
		}
	}
}

// TestClearParamDiffsThreads checks that clearing the gradients shared out
// among threads clears every value of every learnable parameter, before and
// after the parts of the SGD step are set up, and nothing else.
func TestClearParamDiffsThreads(t *testing.T) {
	s := benchSolver(t, "mnist/lenet_train_test.prototxt", 1, 28, 28, 2)
	for round := range 2 {
		var data [][]float32
		for _, b := range s.net.learnable {
			for i := range b.DiffSlice() {
				b.DiffSlice()[i] = float32(i%7) - 3.5
			}
			data = append(data, append([]float32(nil), b.DataSlice()...))
		}
		s.clearParamDiffs()
		for k, b := range s.net.learnable {
			for i, v := range b.DiffSlice() {
				if math.Float32bits(v) != 0 {
					t.Fatalf("round %d, parameter %d, value %d: the gradient is %v after clearing", round, k, i, v)
				}
			}
			for i, v := range b.DataSlice() {
				if math.Float32bits(v) != math.Float32bits(data[k][i]) {
					t.Fatalf("round %d, parameter %d, value %d: clearing changed the weight", round, k, i)
				}
			}
		}
		s.applyUpdate()
	}
}
