package ui

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"
)

var numType = reflect.TypeOf(Num(0))

// The record kinds: the value of Record.Event. The event log holds one
// record per line; the UI's state is what its records add up to, so a
// log replayed gives the pages and answers the live UI gave.
const (
	EvApplicationStart = "ApplicationStart" // App and Env are set
	EvApplicationEnd   = "ApplicationEnd"
	EvJobStart         = "JobStart"
	EvJobEnd           = "JobEnd"
	EvStageStart       = "StageStart"
	EvStageEnd         = "StageEnd"
	EvTaskStart        = "TaskStart"
	EvTaskEnd          = "TaskEnd"
	EvStorageUpdate    = "StorageUpdate"  // Workers and RDDs are set
	EvTrainerStart     = "TrainerStart"   // Trainer is set
	EvRoundEnd         = "RoundEnd"       // Round is set
	EvStep             = "Step"           // Step is set
	EvShuffleWritten   = "ShuffleWritten" // a shuffle's map stage: Shuffle, StageName, Records, Bytes, Spilled
	EvShuffleFetched   = "ShuffleFetched" // an exchange between ranks: Shuffle, Records, Bytes, Sent
)

// Record is one event, as the event log writes it (one JSON object per
// line) and the state applies it. Fields that do not apply to a kind are
// left out.
type Record struct {
	Event string    `json:"event"`
	Time  time.Time `json:"time"`

	// Job, stage and task events, from package rdd.
	Job       int           `json:"job,omitempty"`
	Action    string        `json:"action,omitempty"`
	Stage     int           `json:"stage,omitempty"`
	StageName string        `json:"stageName,omitempty"`
	NumTasks  int           `json:"numTasks,omitempty"`
	Partition int           `json:"partition,omitempty"`
	Worker    int           `json:"worker,omitempty"`
	Attempt   int           `json:"attempt,omitempty"`
	Duration  time.Duration `json:"duration,omitempty"` // nanoseconds
	Error     string        `json:"error,omitempty"`
	Failed    bool          `json:"failed,omitempty"`
	Remote    bool          `json:"remote,omitempty"` // another rank's task

	// Shuffle events, from package rdd.
	Shuffle int   `json:"shuffle,omitempty"`
	Records int64 `json:"records,omitempty"`
	Bytes   int64 `json:"bytes,omitempty"`
	Spilled int64 `json:"spilled,omitempty"`
	Sent    int64 `json:"sent,omitempty"`

	App     *AppInfo      `json:"app,omitempty"`
	Env     *Environment  `json:"env,omitempty"`
	Workers []WorkerStore `json:"workers,omitempty"`
	RDDs    []RDDStore    `json:"rdds,omitempty"`
	Trainer *TrainerInfo  `json:"trainer,omitempty"`
	Round   *RoundInfo    `json:"round,omitempty"`
	Step    *StepInfo     `json:"step,omitempty"`
}

// AppInfo describes the application: one RDD context.
type AppInfo struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Master  string `json:"master"`
	Workers int    `json:"workers"`
	Ranks   int    `json:"ranks"` // processes: MPI ranks, or 1
}

// Environment is what the Environment page shows: sections of names and
// values, in order.
type Environment struct {
	Sections []EnvSection `json:"sections"`
}

// EnvSection is one table of the Environment page.
type EnvSection struct {
	Name  string      `json:"name"`
	Items [][2]string `json:"items"`
}

// WorkerStore is what a worker holds, as of a StorageUpdate.
type WorkerStore struct {
	Worker           int   `json:"worker"`
	Rank             int   `json:"rank"`
	CachedPartitions int   `json:"cachedPartitions"`
	CachedBytes      int64 `json:"cachedBytes"`
	StoreKeys        int   `json:"storeKeys"`
	StoreBytes       int64 `json:"storeBytes"`
}

// RDDStore is a persisted RDD, as of a StorageUpdate.
type RDDStore struct {
	ID               int         `json:"id"`
	Name             string      `json:"name"`
	Partitions       int         `json:"numPartitions"`
	StorageLevel     string      `json:"storageLevel"`
	CachedPartitions int         `json:"numCachedPartitions"`
	Bytes            int64       `json:"memoryUsed"`
	Blocks           []BlockInfo `json:"partitions,omitempty"`
}

// BlockInfo is one cached partition.
type BlockInfo struct {
	Partition int   `json:"partition"`
	Worker    int   `json:"worker"`
	Elements  int   `json:"elements"`
	Bytes     int64 `json:"memoryUsed"`
}

// TrainerInfo describes a SparkNet trainer when it starts.
type TrainerInfo struct {
	ID           int        `json:"id"`
	Net          string     `json:"net"`
	Replicas     int        `json:"replicas"` // K
	Tau          int        `json:"tau"`
	WarmupRounds int        `json:"warmupRounds,omitempty"`
	Outer        string     `json:"outer"`
	Averaging    string     `json:"averaging"`
	Order        string     `json:"order"`
	Seed         uint64     `json:"seed"`
	TestEvery    int        `json:"testEvery,omitempty"`
	Checkpoint   string     `json:"checkpoint,omitempty"`
	Latency      float64    `json:"latencySeconds,omitempty"`
	Bandwidth    float64    `json:"bandwidth,omitempty"`
	RoundsDone   int        `json:"roundsAtStart,omitempty"` // restored from a checkpoint
	IterAtStart  int        `json:"iterAtStart,omitempty"`
	Solver       SolverInfo `json:"solver"`
	// Schedule samples the learning rate from iteration 0 to the
	// solver's max_iter.
	Schedule []LRPoint `json:"schedule,omitempty"`
}

// SolverInfo is the part of the replicas' solver that shapes training.
type SolverInfo struct {
	Type        string `json:"type"`
	BaseLR      Num    `json:"baseLr"`
	LRPolicy    string `json:"lrPolicy"`
	Gamma       Num    `json:"gamma,omitempty"`
	Power       Num    `json:"power,omitempty"`
	StepSize    int    `json:"stepSize,omitempty"`
	StepValues  []int  `json:"stepValues,omitempty"`
	MaxIter     int    `json:"maxIter,omitempty"`
	Momentum    Num    `json:"momentum,omitempty"`
	WeightDecay Num    `json:"weightDecay,omitempty"`
	Batch       []int  `json:"batchSize,omitempty"` // of the train net's inputs
}

// LRPoint is the learning rate at an iteration.
type LRPoint struct {
	Iter int `json:"iter"`
	LR   Num `json:"lr"`
}

// RoundInfo is one finished round of a trainer.
type RoundInfo struct {
	Trainer        int   `json:"trainer"`
	Round          int   `json:"round"`
	Iter           int   `json:"iter"`
	Tau            int   `json:"tau"`
	Replicas       int   `json:"replicas"`
	TrainLoss      Num   `json:"trainLoss"`
	Tested         bool  `json:"tested,omitempty"`
	TestLoss       Num   `json:"testLoss,omitempty"`
	TestAccuracy   Num   `json:"testAccuracy,omitempty"`
	TestSamples    int   `json:"testSamples,omitempty"`
	ComputeSeconds Num   `json:"computeSeconds"`
	CommSeconds    Num   `json:"commSeconds"`
	BytesMoved     int64 `json:"bytesMoved"`
	LearningRate   Num   `json:"learningRate"` // at the round's first iteration
}

// StepInfo is one local iteration of replica 0.
type StepInfo struct {
	Trainer int `json:"trainer"`
	Round   int `json:"round"`
	Step    int `json:"step"`
	Tau     int `json:"tau"`
	Iter    int `json:"iter"`
	Loss    Num `json:"loss"`
}

// Num is a float64 whose JSON form also carries NaN and the infinities
// (as the strings "NaN", "Infinity" and "-Infinity"), since a diverging
// loss is still worth recording.
type Num float64

// MarshalJSON writes n as a JSON number, or a string for NaN and ±Inf.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Num) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "NaN":
			*n = Num(math.NaN())
		case "Infinity":
			*n = Num(math.Inf(1))
		case "-Infinity":
			*n = Num(math.Inf(-1))
		default:
			return &json.UnmarshalTypeError{Value: "string " + strconv.Quote(s), Type: numType}
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}
