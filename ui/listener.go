package ui

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/rdd"
)

// scheduleSamples is how many points sample a learning-rate schedule.
const scheduleSamples = 400

// listener turns a context's events and those of its trainers into
// records. It only subscribes: rdd and the trainer know nothing of it.
type listener struct {
	sc   *rdd.Context
	emit func(Record)

	mu        sync.Mutex
	trainers  int // IDs given so far
	stops     []func()
	lastStore []WorkerStore
	lastRDDs  []RDDStore
}

// listen subscribes to sc and to every trainer made on it from now on.
func listen(sc *rdd.Context, emit func(Record)) *listener {
	l := &listener{sc: sc, emit: emit}
	l.stops = append(l.stops, sc.Subscribe(l.onEvent))
	l.stops = append(l.stops, sparknet.OnParallelize(func(t *sparknet.Trainer) {
		if t.Context() == sc {
			l.watch(t)
		}
	}))
	return l
}

// stop unsubscribes from everything.
func (l *listener) stop() {
	l.mu.Lock()
	stops := l.stops
	l.stops = nil
	l.mu.Unlock()
	for _, f := range stops {
		f()
	}
}

var eventNames = map[rdd.EventKind]string{
	rdd.JobStart: EvJobStart, rdd.JobEnd: EvJobEnd,
	rdd.StageStart: EvStageStart, rdd.StageEnd: EvStageEnd,
	rdd.TaskStart: EvTaskStart, rdd.TaskEnd: EvTaskEnd,
	rdd.ShuffleWritten: EvShuffleWritten, rdd.ShuffleFetched: EvShuffleFetched,
}

// onEvent records an rdd event.
func (l *listener) onEvent(e rdd.Event) {
	name, ok := eventNames[e.Kind]
	if !ok {
		name = e.Kind.String()
	}
	r := Record{
		Event: name, Time: e.Time, Job: e.Job, Action: e.Action, Stage: e.Stage, StageName: e.StageName,
		NumTasks: e.NumTasks, Partition: e.Partition, Worker: e.Worker, Attempt: e.Attempt,
		Duration: e.Duration, Remote: e.Remote,
		Shuffle: e.Shuffle, Records: e.Records, Bytes: e.Bytes, Spilled: e.Spilled, Sent: e.Sent,
	}
	if e.Err != nil {
		r.Error, r.Failed = e.Err.Error(), true
	}
	l.emit(r)
}

// storage returns a record of what the workers hold, and whether it
// changed since the last one.
func (l *listener) storage() (Record, bool) {
	ws := l.sc.WorkerStatus()
	workers := make([]WorkerStore, len(ws))
	for i, w := range ws {
		workers[i] = WorkerStore{Worker: w.Worker, Rank: w.Rank, CachedPartitions: w.CachedPartitions, CachedBytes: w.CachedBytes, StoreKeys: w.StoreKeys, StoreBytes: w.StoreBytes}
	}
	var rdds []RDDStore
	for _, r := range l.sc.StorageStatus() {
		s := RDDStore{ID: r.ID, Name: r.Name, Partitions: r.Partitions, StorageLevel: r.Level.String(), CachedPartitions: r.CachedPartitions, Bytes: r.Bytes}
		for _, b := range r.Blocks {
			s.Blocks = append(s.Blocks, BlockInfo{Partition: b.Partition, Worker: b.Worker, Elements: b.Elements, Bytes: b.Bytes})
		}
		rdds = append(rdds, s)
	}
	l.mu.Lock()
	same := reflect.DeepEqual(workers, l.lastStore) && reflect.DeepEqual(rdds, l.lastRDDs)
	l.lastStore, l.lastRDDs = workers, rdds
	l.mu.Unlock()
	return Record{Event: EvStorageUpdate, Time: time.Now(), Workers: workers, RDDs: rdds}, !same
}

// watch records a trainer's start, rounds and steps.
func (l *listener) watch(t *sparknet.Trainer) {
	l.mu.Lock()
	l.trainers++
	id := l.trainers
	l.mu.Unlock()
	sp := t.SolverParameter()
	info := trainerInfo(id, t, sp)
	l.emit(Record{Event: EvTrainerStart, Time: time.Now(), Trainer: &info})
	stopRounds := t.Subscribe(func(e sparknet.RoundEvent) {
		r := RoundInfo{
			Trainer: id, Round: e.Round, Iter: e.Iter, Tau: e.Tau, Replicas: e.Replicas, TrainLoss: Num(e.TrainLoss),
			ComputeSeconds: Num(e.ComputeSeconds), CommSeconds: Num(e.CommSeconds), BytesMoved: e.BytesMoved,
		}
		if lr, err := caffe.LearningRate(sp, e.Iter-e.Tau); err == nil {
			r.LearningRate = num32(lr)
		}
		if e.Test != nil {
			r.Tested, r.TestLoss, r.TestAccuracy, r.TestSamples = true, Num(e.Test.Loss), Num(e.Test.Accuracy), e.Test.N
		}
		l.emit(Record{Event: EvRoundEnd, Time: time.Now(), Round: &r})
	})
	stopSteps := t.SubscribeSteps(func(e sparknet.StepEvent) {
		l.emit(Record{Event: EvStep, Time: time.Now(), Step: &StepInfo{Trainer: id, Round: e.Round, Step: e.Step, Tau: e.Tau, Iter: e.Iter, Loss: Num(e.Loss)}})
	})
	l.mu.Lock()
	l.stops = append(l.stops, stopRounds, stopSteps)
	l.mu.Unlock()
}

// trainerInfo describes a trainer and its solver.
func trainerInfo(id int, t *sparknet.Trainer, sp *caffepb.SolverParameter) TrainerInfo {
	o := t.Options()
	info := TrainerInfo{
		ID: id, Net: t.Net().Name(), Replicas: t.K(), Tau: o.Tau, WarmupRounds: o.WarmupRounds,
		Outer: fmt.Sprint(o.Outer), Averaging: fmt.Sprint(o.Average), Order: fmt.Sprint(o.Order),
		Seed: o.Seed, Checkpoint: o.Checkpoint, Latency: o.Latency.Seconds(), Bandwidth: o.Bandwidth,
		RoundsDone: t.RoundsDone(), IterAtStart: t.Iter(),
	}
	if o.Test != nil {
		info.TestEvery = o.TestEvery
	}
	typ := sp.GetType()
	if typ == "" {
		typ = "SGD"
	}
	info.Solver = SolverInfo{
		Type: typ, BaseLR: num32(sp.GetBaseLr()), LRPolicy: sp.GetLrPolicy(), Gamma: num32(sp.GetGamma()), Power: num32(sp.GetPower()),
		StepSize: int(sp.GetStepsize()), MaxIter: int(sp.GetMaxIter()), Momentum: num32(sp.GetMomentum()), WeightDecay: num32(sp.GetWeightDecay()),
	}
	for _, v := range sp.GetStepvalue() {
		info.Solver.StepValues = append(info.Solver.StepValues, int(v))
	}
	if np := sp.GetTrainNetParam(); np != nil {
		for _, layer := range np.GetLayer() {
			if !inTrain(layer) {
				continue
			}
			if bs := layer.GetMemoryDataParam().GetBatchSize(); bs > 0 {
				info.Solver.Batch = append(info.Solver.Batch, int(bs))
			}
		}
	}
	info.Schedule = schedule(sp, max(info.Solver.MaxIter, t.Iter()+o.Tau))
	return info
}

// schedule samples the learning rate over iterations 0 to last.
func schedule(sp *caffepb.SolverParameter, last int) []LRPoint {
	if last <= 0 {
		return nil
	}
	n := min(scheduleSamples, last)
	out := make([]LRPoint, 0, n+1)
	for i := 0; i <= n; i++ {
		it := int(int64(i) * int64(last) / int64(n))
		lr, err := caffe.LearningRate(sp, it)
		if err != nil {
			return nil
		}
		out = append(out, LRPoint{Iter: it, LR: num32(lr)})
	}
	return out
}

// num32 is a float32 setting or result as it prints: 0.05, not the
// float64 nearest to the float32 nearest to 0.05.
func num32(f float32) Num {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return Num(f)
	}
	return Num(v)
}

// inTrain reports whether a layer is part of the TRAIN phase by its
// include and exclude phase rules (stages and levels aside).
func inTrain(l *caffepb.LayerParameter) bool {
	for _, r := range l.GetExclude() {
		if r.Phase != nil && r.GetPhase() == caffepb.Phase_TRAIN {
			return false
		}
	}
	if len(l.GetInclude()) == 0 {
		return true
	}
	for _, r := range l.GetInclude() {
		if r.Phase == nil || r.GetPhase() == caffepb.Phase_TRAIN {
			return true
		}
	}
	return false
}
