package ui

import (
	"io"
	"testing"
	"time"
)

// BenchmarkRecord measures applying one event: to the state, the event
// log and the event stream (the UI's goroutine does this), and queueing
// one (the job's goroutine does this).
func BenchmarkRecord(b *testing.B) {
	sc := newContext(b, "local[1]")
	u, err := Start(sc, Options{NoServer: true, EventLog: b.TempDir(), Errors: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	defer u.Close()
	u.apply(Record{Event: EvTrainerStart, Time: time.Now(), Trainer: &TrainerInfo{ID: 1}})
	b.Run("queue", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			u.record(Record{Event: EvStep, Time: time.Now(), Step: &StepInfo{Trainer: 1, Round: i/50 + 1, Step: i%50 + 1, Tau: 50, Iter: i, Loss: 0.1}})
		}
		u.sync()
	})
	b.Run("step", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			u.apply(Record{Event: EvStep, Time: time.Now(), Step: &StepInfo{Trainer: 1, Round: i/50 + 1, Step: i%50 + 1, Tau: 50, Iter: i, Loss: 0.1}})
		}
	})
	b.Run("storage", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			u.lis.storage()
		}
	})
	b.Run("task", func(b *testing.B) {
		u.apply(Record{Event: EvJobStart, Time: time.Now(), Job: 1})
		u.apply(Record{Event: EvStageStart, Time: time.Now(), Job: 1, Stage: 1})
		for i := 0; i < b.N; i++ {
			u.apply(Record{Event: EvTaskStart, Time: time.Now(), Job: 1, Stage: 1, Partition: i, Attempt: 1})
			u.apply(Record{Event: EvTaskEnd, Time: time.Now(), Job: 1, Stage: 1, Partition: i, Attempt: 1, Duration: time.Millisecond})
		}
	})
}

// BenchmarkRender measures drawing the content of the Training and Jobs
// pages of a run of 100 rounds of τ = 50 on 2 workers.
func BenchmarkRender(b *testing.B) {
	st := NewState(true)
	now := time.Now()
	st.Apply(Record{Event: EvApplicationStart, Time: now, App: &AppInfo{ID: "app", Name: "bench", Master: "local[2]", Workers: 2, Ranks: 1}, Env: &Environment{}})
	info := TrainerInfo{ID: 1, Net: "LeNet", Replicas: 2, Tau: 50, Solver: SolverInfo{LRPolicy: "inv"}}
	for i := 0; i <= 400; i++ {
		info.Schedule = append(info.Schedule, LRPoint{Iter: i * 25, LR: Num(0.01 / float64(1+i))})
	}
	st.Apply(Record{Event: EvTrainerStart, Time: now, Trainer: &info})
	job, stage := 0, 0
	for r := 1; r <= 100; r++ {
		job++
		stage++
		t := now.Add(time.Duration(r) * time.Second)
		st.Apply(Record{Event: EvJobStart, Time: t, Job: job, Action: "RunPartitions", NumTasks: 2})
		st.Apply(Record{Event: EvStageStart, Time: t, Job: job, Stage: stage, StageName: "train (MNIST)[1]", NumTasks: 2})
		for p := 0; p < 2; p++ {
			st.Apply(Record{Event: EvTaskStart, Time: t, Job: job, Stage: stage, Partition: p, Worker: p, Attempt: 1})
		}
		for s := 1; s <= 50; s++ {
			st.Apply(Record{Event: EvStep, Time: t, Step: &StepInfo{Trainer: 1, Round: r, Step: s, Tau: 50, Iter: (r-1)*50 + s, Loss: Num(2 / float64(r+s))}})
		}
		for p := 0; p < 2; p++ {
			st.Apply(Record{Event: EvTaskEnd, Time: t.Add(900 * time.Millisecond), Job: job, Stage: stage, Partition: p, Worker: p, Attempt: 1, Duration: 900 * time.Millisecond})
		}
		st.Apply(Record{Event: EvStageEnd, Time: t.Add(900 * time.Millisecond), Job: job, Stage: stage, Duration: 900 * time.Millisecond})
		st.Apply(Record{Event: EvJobEnd, Time: t.Add(900 * time.Millisecond), Job: job, Duration: 900 * time.Millisecond})
		st.Apply(Record{Event: EvRoundEnd, Time: t.Add(time.Second), Round: &RoundInfo{Trainer: 1, Round: r, Iter: r * 50, Tau: 50, Replicas: 2, TrainLoss: Num(1 / float64(r)), Tested: r%10 == 0, TestAccuracy: 0.9, TestLoss: 0.1, ComputeSeconds: 0.9, CommSeconds: 0.01, BytesMoved: 7 << 20}})
	}
	a := &app{state: st}
	for _, page := range []string{"/training/", "/jobs/"} {
		b.Run(page, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				a.render(page, nil)
			}
		})
	}
}
