package rdd

import (
	"fmt"
	"sort"
	"sync"
	"testing"
)

// recorder collects events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) record(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) kinds(k EventKind) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func TestEvents(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	var rec recorder
	stop := sc.Subscribe(rec.record)
	if _, err := sc.Range(0, 40, 1, 4).Count(); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	events := append([]Event(nil), rec.events...)
	rec.mu.Unlock()
	if len(events) != 2+2+8 {
		t.Fatalf("%d events: %v", len(events), events)
	}
	first, last := events[0], events[len(events)-1]
	if first.Kind != JobStart || first.Action != "Count" || first.NumTasks != 4 || last.Kind != JobEnd || last.Job != first.Job || last.Err != nil {
		t.Errorf("first %v, last %v", first, last)
	}
	if events[1].Kind != StageStart || events[len(events)-2].Kind != StageEnd {
		t.Errorf("stage events out of place: %v", events)
	}
	var parts []int
	for _, e := range rec.kinds(TaskEnd) {
		if e.Worker != e.Partition%2 || e.Attempt != 1 || e.Duration < 0 || e.Err != nil {
			t.Errorf("task end %v", e)
		}
		parts = append(parts, e.Partition)
	}
	sort.Ints(parts)
	if fmt.Sprint(parts) != "[0 1 2 3]" {
		t.Errorf("task ends for partitions %v", parts)
	}
	// Each task's start comes before its end.
	started := map[int]bool{}
	for _, e := range events {
		switch e.Kind {
		case TaskStart:
			started[e.Partition] = true
		case TaskEnd:
			if !started[e.Partition] {
				t.Errorf("end before start: %v", e)
			}
		}
	}
	if last.Duration <= 0 || last.Time.Before(first.Time) {
		t.Errorf("job took %v, from %v to %v", last.Duration, first.Time, last.Time)
	}

	// A shuffle adds a stage; a failing task shows in the events.
	rec.events = nil
	sc.Range(0, 10, 1, 2).Repartition(3).Count()
	if n := len(rec.kinds(StageEnd)); n != 2 {
		t.Errorf("%d stages for a shuffle, want 2", n)
	}
	stop()
	rec.events = nil
	sc.Range(0, 10, 1, 2).Count()
	if len(rec.events) != 0 {
		t.Errorf("%d events after unsubscribing", len(rec.events))
	}
}

func TestEventsOfFailures(t *testing.T) {
	sc := newTestContextWith(t, Options{Master: "local[2]", MaxAttempts: 2})
	var rec recorder
	sc.Subscribe(rec.record)
	sc.Subscribe(func(Event) { panic("a broken display") })
	_, err := sc.Range(0, 10, 1, 2).Map(func(x any) any {
		if x.(int) == 8 {
			panic("bad")
		}
		return x
	}).Count()
	if err == nil {
		t.Fatal("no error")
	}
	var failedAttempts []int
	for _, e := range rec.kinds(TaskEnd) {
		if e.Err != nil {
			if e.Partition != 1 {
				t.Errorf("failure in partition %d", e.Partition)
			}
			failedAttempts = append(failedAttempts, e.Attempt)
		}
	}
	if fmt.Sprint(failedAttempts) != "[1 2]" {
		t.Errorf("failed attempts %v, want [1 2]", failedAttempts)
	}
	ends := rec.kinds(JobEnd)
	if len(ends) != 1 || ends[0].Err == nil || ends[0].Err.Error() != err.Error() {
		t.Errorf("job end %v, want the action's error", ends)
	}
	if s := ends[0].String(); s == "" {
		t.Error("empty event string")
	}
}
