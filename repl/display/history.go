package display

import (
	"math"
	"sync"
)

// History records the loss and accuracy of a training run, one point per
// finished round, for curves and tables. It is an Observer.
type History struct {
	mu sync.Mutex
	// Rounds, Loss and Accuracy have one entry per RoundDone event;
	// TestRounds, TestLoss and TestAccuracy one per Evaluated event. NaN
	// marks a value the event did not carry.
	Rounds       []float64
	Loss         []float64
	Accuracy     []float64
	TestRounds   []float64
	TestLoss     []float64
	TestAccuracy []float64
}

// Observe records e.
func (h *History) Observe(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch e.Kind {
	case RoundDone:
		h.Rounds = append(h.Rounds, float64(e.Round))
		h.Loss = append(h.Loss, e.Loss)
		h.Accuracy = append(h.Accuracy, e.Accuracy)
	case Evaluated:
		h.TestRounds = append(h.TestRounds, float64(e.Round))
		h.TestLoss = append(h.TestLoss, e.Loss)
		h.TestAccuracy = append(h.TestAccuracy, e.Accuracy)
	}
}

// Figure draws the loss and accuracy curves against the round.
func (h *History) Figure() *Figure {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := &Figure{Title: "training", XLabel: "round", YLabel: "loss / accuracy"}
	add := func(name string, x, y []float64) {
		for _, v := range y {
			if !math.IsNaN(v) {
				f.LineXY(name, x, y)
				return
			}
		}
	}
	add("loss", h.Rounds, h.Loss)
	add("accuracy", h.Rounds, h.Accuracy)
	add("test loss", h.TestRounds, h.TestLoss)
	add("test accuracy", h.TestRounds, h.TestAccuracy)
	return f
}

// String draws the curves as sparklines.
func (h *History) String() string { return h.Figure().String() }

// Table lists the recorded rounds.
func (h *History) Table() *Table {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := NewTable("round", "loss", "accuracy")
	for i, r := range h.Rounds {
		t.Add(int(r), blankNaN(h.Loss[i]), blankNaN(h.Accuracy[i]))
	}
	return t
}

func blankNaN(v float64) any {
	if math.IsNaN(v) {
		return ""
	}
	return v
}
