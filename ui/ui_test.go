package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/rdd"
)

// A small classifier on synthetic 1×4×4 images of three classes, with
// LeNet's solver settings.
const tinySolver = `
base_lr: 0.05 momentum: 0.9 weight_decay: 0.0005
lr_policy: "step" gamma: 0.5 stepsize: 20
max_iter: 100
net_param {
  name: "tiny"
  layer { name: "data" type: "Data" top: "data" top: "label"
          include { phase: TRAIN }
          transform_param { scale: 0.00390625 }
          data_param { source: "unused" batch_size: 8 } }
  layer { name: "data" type: "Data" top: "data" top: "label"
          include { phase: TEST }
          transform_param { scale: 0.00390625 }
          data_param { source: "unused" batch_size: 5 } }
  layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"
          inner_product_param { num_output: 12
            weight_filler { type: "xavier" } bias_filler { type: "constant" } } }
  layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }
  layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
          inner_product_param { num_output: 3
            weight_filler { type: "xavier" } bias_filler { type: "constant" } } }
  layer { name: "accuracy" type: "Accuracy" bottom: "ip2" bottom: "label" top: "accuracy"
          include { phase: TEST } }
  layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2" bottom: "label" top: "loss" }
}
`

func tinySolverParam(t testing.TB) *caffepb.SolverParameter {
	t.Helper()
	sp, err := caffe.ParseSolverParameter("tiny_solver.prototxt", []byte(tinySolver))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// synthetic makes n samples of three classes: class c lights up a
// quarter of the image, with noise.
func synthetic(n int, seed uint64) *data.Samples {
	r := rand.New(rand.NewPCG(seed, 7))
	s := &data.Samples{N: n, C: 1, H: 4, W: 4, Pixels: make([]uint8, n*16), Labels: make([]float32, n)}
	for i := 0; i < n; i++ {
		c := r.IntN(3)
		s.Labels[i] = float32(c)
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				v := r.IntN(60)
				if (c == 0 && y < 2 && x < 2) || (c == 1 && y >= 2 && x >= 2) || (c == 2 && y < 2 && x >= 2) {
					v += 150
				}
				s.Pixels[i*16+y*4+x] = uint8(v)
			}
		}
	}
	return s
}

// newContext returns a local context closed at the end of the test.
func newContext(t testing.TB, master string) *rdd.Context {
	t.Helper()
	sc, err := rdd.NewContext(master)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	return sc
}

// startUI starts a UI on a free port, closed at the end of the test.
func startUI(t testing.TB, sc *rdd.Context, o Options) *UI {
	t.Helper()
	if o.Errors == nil {
		o.Errors = io.Discard
	}
	u, err := Start(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u
}

// workload runs jobs of every kind: a cached RDD, a job with a retried
// task, a failed job, and a trainer with tests.
func workload(t testing.TB, sc *rdd.Context, rounds int) *sparknet.Trainer {
	t.Helper()
	cached := sc.Range(0, 400, 1, 4).Map(func(x any) any { return float64(x.(int)) }).SetName("numbers").Cache()
	if n, err := cached.Count(); err != nil || n != 400 {
		t.Fatalf("count %d, %v", n, err)
	}
	var once sync.Once
	if _, err := sc.Range(0, 8, 1, 2).Map(func(x any) any {
		if x.(int) == 5 {
			once.Do(func() { panic("a flaky task") })
		}
		return x
	}).Collect(); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Range(0, 4, 1, 2).Map(func(x any) any {
		if x.(int) == 3 {
			panic("a broken task")
		}
		return x
	}).Count(); err == nil {
		t.Fatal("the broken job succeeded")
	}
	train := sc.ParallelizeSamples(synthetic(240, 1), 2).SetName("train").Cache()
	test := sc.ParallelizeSamples(synthetic(60, 2), 2).Cache()
	tr, err := sparknet.Parallelize(sc, tinySolverParam(t), train, sparknet.Options{Tau: 5, Seed: 1, Test: test, TestEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	if err := tr.Rounds(context.Background(), rounds); err != nil {
		t.Fatal(err)
	}
	return tr
}

// get fetches url and returns the status and body.
func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// getJSON fetches url, checks the status and decodes the body into v.
func getJSON(t testing.TB, url string, status int, v any) {
	t.Helper()
	code, body := get(t, url)
	if code != status {
		t.Fatalf("GET %s: status %d, want %d: %s", url, code, status, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
}

func TestAPI(t *testing.T) {
	sc := newContext(t, "local[2]")
	u := startUI(t, sc, Options{Port: 0, Name: "api-test"})
	if !strings.HasPrefix(u.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q", u.URL())
	}
	tr := workload(t, sc, 4)
	api := u.URL() + "api/v1/"

	var apps []ApplicationData
	getJSON(t, api+"applications", 200, &apps)
	if len(apps) != 1 || apps[0].Name != "api-test" || apps[0].Master != "local[2]" || apps[0].Workers != 2 || apps[0].Completed {
		t.Errorf("applications: %+v", apps)
	}

	var jobs []JobData
	getJSON(t, api+"jobs", 200, &jobs)
	// Count, Collect, the failed Count, Parallelize's read, 4 rounds, 2 tests.
	if len(jobs) < 10 {
		t.Fatalf("%d jobs: %+v", len(jobs), jobs)
	}
	if jobs[0].JobID < jobs[len(jobs)-1].JobID {
		t.Error("jobs are not newest first")
	}
	var failed []JobData
	getJSON(t, api+"jobs?status=failed", 200, &failed)
	if len(failed) != 1 || !strings.Contains(failed[0].FailureReason, "a broken task") || failed[0].Status != "FAILED" || failed[0].NumFailedTasks != 4 {
		t.Errorf("failed jobs: %+v", failed)
	}
	// The job with the flaky task: one failed attempt, then success.
	var flaky JobData
	for _, j := range jobs {
		if j.Name == "Collect" {
			getJSON(t, fmt.Sprintf("%sjobs/%d", api, j.JobID), 200, &flaky)
		}
	}
	if flaky.Status != "SUCCEEDED" || flaky.NumFailedTasks != 1 || flaky.NumCompletedTasks != 2 || len(flaky.Stages) != 1 {
		t.Fatalf("the job with a retried task: %+v", flaky)
	}
	var attempts []string
	for _, task := range flaky.Stages[0].Tasks {
		if task.DurationMillis == nil || task.LaunchTime == "" {
			t.Errorf("task without times: %+v", task)
		}
		attempts = append(attempts, fmt.Sprintf("p%d a%d %s", task.Partition, task.Attempt, task.Status))
		if task.Status == "FAILED" && !strings.Contains(task.ErrorMessage, "a flaky task") {
			t.Errorf("failed attempt's error: %q", task.ErrorMessage)
		}
	}
	if got := strings.Join(attempts, ", "); !strings.Contains(got, "p1 a1 FAILED") || !strings.Contains(got, "p1 a2 SUCCESS") || !strings.Contains(got, "p0 a1 SUCCESS") {
		t.Errorf("attempts: %s", got)
	}
	var stage StageData
	getJSON(t, fmt.Sprintf("%sstages/%d", api, flaky.StageIDs[0]), 200, &stage)
	if stage.NumCompleteTasks != 2 || stage.NumFailedTasks != 1 || stage.Status != "COMPLETE" {
		t.Errorf("stage: %+v", stage)
	}

	var workers []WorkerData
	getJSON(t, api+"workers", 200, &workers)
	if len(workers) != 2 {
		t.Fatalf("workers: %+v", workers)
	}
	tasks := 0
	for w, wd := range workers {
		tasks += wd.TotalTasks
		// Each holds 2 numbers partitions, a train and a test partition;
		// its store the replica and the tester.
		if wd.ID != w || wd.CachedPartitions != 4 || wd.CachedBytes <= 0 || wd.StoreKeys != 2 || wd.StoreBytes < 1000 || wd.TotalDurationMillis <= 0 {
			t.Errorf("worker %d: %+v", w, wd)
		}
	}
	if tasks < 2*len(jobs) {
		t.Errorf("%d tasks in all for %d jobs", tasks, len(jobs))
	}

	var storage []RDDStore
	getJSON(t, api+"storage", 200, &storage)
	if len(storage) != 3 || !strings.HasPrefix(storage[0].Name, "numbers") || storage[0].CachedPartitions != 4 || storage[0].Bytes < 400*8 {
		t.Fatalf("storage: %+v", storage)
	}
	var rd RDDStore
	getJSON(t, fmt.Sprintf("%sstorage/%d", api, storage[1].ID), 200, &rd)
	if len(rd.Blocks) != 2 || rd.Blocks[0].Elements != 120 || rd.Blocks[1].Worker != 1 || rd.Blocks[0].Bytes != 120*16+120*4 {
		t.Errorf("train RDD: %+v", rd)
	}

	var trainers []TrainerData
	getJSON(t, api+"trainers", 200, &trainers)
	if len(trainers) != 1 {
		t.Fatalf("trainers: %+v", trainers)
	}
	td := trainers[0]
	if td.ID != 1 || td.Net != "tiny" || td.Replicas != 2 || td.Tau != 5 || td.RoundsDone != 4 || td.Iter != 20 || td.Outer != "average" ||
		td.Solver.LRPolicy != "step" || td.Solver.Type != "SGD" || td.LastTestAccuracy == nil || td.BytesMoved <= 0 || td.ComputeSeconds <= 0 {
		t.Errorf("trainer: %+v", td)
	}
	if fmt.Sprint(td.Solver.Batch) != "[8]" {
		t.Errorf("batch sizes %v", td.Solver.Batch)
	}
	var rounds []RoundInfo
	getJSON(t, api+"trainers/1/rounds", 200, &rounds)
	if len(rounds) != 4 {
		t.Fatalf("rounds: %+v", rounds)
	}
	for i, r := range rounds {
		if r.Round != i+1 || r.Iter != 5*(i+1) || r.Tau != 5 || r.Replicas != 2 || r.Tested != (i%2 == 1) || r.BytesMoved <= 0 {
			t.Errorf("round %d: %+v", i+1, r)
		}
	}
	// lr: step policy, 0.05 halved every 20 iterations; round 4 starts at 15.
	if rounds[3].LearningRate != 0.05 {
		t.Errorf("round 4's learning rate %v", rounds[3].LearningRate)
	}
	var sched []LRPoint
	getJSON(t, api+"trainers/1/schedule", 200, &sched)
	if len(sched) < 50 || sched[0].LR != 0.05 || sched[len(sched)-1].Iter != 100 || float64(sched[len(sched)-1].LR) != 0.05/32 {
		t.Errorf("schedule from %v to %v (%d points)", sched[0], sched[len(sched)-1], len(sched))
	}
	var steps []StepInfo
	getJSON(t, api+"trainers/1/steps", 200, &steps)
	if len(steps) != 20 || steps[19].Iter != 20 || steps[19].Step != 5 {
		t.Errorf("%d steps, last %+v", len(steps), steps[len(steps)-1])
	}
	var env Environment
	getJSON(t, api+"environment", 200, &env)
	if len(env.Sections) < 3 || env.Sections[0].Name != "Application" {
		t.Errorf("environment: %+v", env)
	}
	// The same under the application's own path.
	var again []JobData
	getJSON(t, api+"applications/"+u.App()+"/jobs", 200, &again)
	if len(again) != len(jobs) {
		t.Errorf("%d jobs under the application's path, %d at /api/v1/jobs", len(again), len(jobs))
	}
	_ = tr
}

func TestAPIErrors(t *testing.T) {
	sc := newContext(t, "local[2]")
	u := startUI(t, sc, Options{})
	if _, err := sc.Range(0, 10, 1, 2).Count(); err != nil {
		t.Fatal(err)
	}
	api := u.URL() + "api/v1/"
	for _, tc := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"unknown job", "jobs/999", 404, "no job 999: the only one is 1"},
		{"job id not a number", "jobs/abc", 400, `job ID "abc" is not an integer`},
		{"unknown stage", "stages/77", 404, "no stage 77"},
		{"unknown trainer", "trainers/3", 404, "no trainer 3: there are none yet"},
		{"unknown trainer's rounds", "trainers/3/rounds", 404, "no trainer 3"},
		{"unknown RDD", "storage/5", 404, "no persisted RDD 5"},
		{"unknown endpoint", "executors", 404, "unknown endpoint /api/v1/executors (known: applications, jobs"},
		{"bad status filter", "jobs?status=done", 400, `unknown job status "done"`},
		{"other application", "applications/app-x/jobs", 404, `no application "app-x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e apiError
			getJSON(t, api+tc.path, tc.status, &e)
			if !strings.Contains(e.Error, tc.want) {
				t.Errorf("error %q, want it to contain %q", e.Error, tc.want)
			}
		})
	}
	resp, err := http.Post(api+"jobs", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d", resp.StatusCode)
	}
	// Pages: unknown IDs and pages are 404 pages.
	for _, p := range []string{"jobs/job?id=42", "training/trainer?id=9", "storage/rdd?id=3", "stages/stage?id=8", "nowhere"} {
		code, body := get(t, u.URL()+p)
		if code != 404 || !strings.Contains(body, `class="error"`) {
			t.Errorf("%s: status %d\n%s", p, code, body)
		}
	}
	if code, _ := get(t, u.URL()+"jobs/job?id=x"); code != 400 {
		t.Errorf("a page with a bad ID: status %d", code)
	}
}

func TestPages(t *testing.T) {
	sc := newContext(t, "local[2]")
	u := startUI(t, sc, Options{})
	workload(t, sc, 4)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"", []string{"<h1>Jobs</h1>", "Timeline of the latest", "Failed jobs (1)", "a broken task", "RunPartitions"}},
		{"jobs/job?id=2", []string{"Job 2: Collect", "Tasks by worker", "a flaky task", "FAILED", "SUCCESS"}},
		{"stages/stage?id=2", []string{"Stage 2", "Tasks"}},
		{"workers/", []string{"<h1>Workers</h1>", "Cache memory", "Store memory", "<td>all</td>"}},
		{"storage/", []string{"numbers", "MemoryOnly", "4/4"}},
		{fmt.Sprintf("storage/rdd?id=%d", u.State().Storage()[0].ID), []string{"RDD numbers", "Partition"}},
		{"training/", []string{"Trainer 1", "tiny on 2 replicas", `data-series="train (round mean)"`, "Test accuracy", "Time per round", "Learning rate (step)", "average"}},
		{"training/trainer?id=1", []string{"Solver", "stepsize", "Rounds</h3>", "<td class=\"num\">4</td>"}},
		{"environment/", []string{"Application", "Runtime", "Modules", "kernels"}},
	} {
		code, body := get(t, u.URL()+tc.path)
		if code != 200 {
			t.Errorf("%s: status %d", tc.path, code)
			continue
		}
		if !strings.Contains(body, `data-stream="/stream?page=`) || !strings.Contains(body, "/static/live.js") {
			t.Errorf("%s: the page does not update itself", tc.path)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q in\n%s", tc.path, w, body)
			}
		}
	}
	for _, asset := range []string{"static/style.css", "static/live.js"} {
		if code, body := get(t, u.URL()+asset); code != 200 || len(body) < 200 {
			t.Errorf("%s: %d, %d bytes", asset, code, len(body))
		}
	}
}

// sseReader reads server-sent events.
type sseReader struct {
	r    *bufio.Reader
	body io.Closer
}

func openSSE(t testing.TB, ctx context.Context, url string) *sseReader {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &sseReader{r: bufio.NewReader(resp.Body), body: resp.Body}
}

// next returns the next event's name and data.
func (s *sseReader) next() (string, string, error) {
	var name string
	var data []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return "", "", err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if name != "" || data != nil {
				return name, strings.Join(data, "\n"), nil
			}
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			data = append(data, line[len("data: "):])
		}
	}
}

func TestEventStream(t *testing.T) {
	sc := newContext(t, "local[2]")
	u := startUI(t, sc, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := openSSE(t, ctx, u.URL()+"api/v1/events")
	defer s.body.Close()
	if _, err := sc.Range(0, 10, 1, 3).Count(); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for {
		name, data, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		if name != "record" {
			t.Fatalf("event %q", name)
		}
		var r Record
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, r.Event)
		if r.Event == EvStorageUpdate || r.Event == EvJobEnd && len(kinds) > 8 {
			break
		}
	}
	// Two workers run the three tasks, so a second task may start before
	// the first ends: the order within the stage is not fixed.
	want := "JobStart StageStart TaskStart "
	if got := strings.Join(kinds, " "); !strings.HasPrefix(got, want) || !strings.Contains(got, "StageEnd JobEnd") ||
		strings.Count(got, "TaskStart") != 3 || strings.Count(got, "TaskEnd") != 3 {
		t.Errorf("records %s", got)
	}
	u.Close()
	for {
		name, _, err := s.next()
		if err != nil {
			t.Fatalf("the stream ended without an end event: %v", err)
		}
		if name == "end" {
			break
		}
	}
}

func TestPageStream(t *testing.T) {
	sc := newContext(t, "local[2]")
	u := startUI(t, sc, Options{})
	train := sc.ParallelizeSamples(synthetic(120, 1), 2).Cache()
	tr, err := sparknet.Parallelize(sc, tinySolverParam(t), train, sparknet.Options{Tau: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := openSSE(t, ctx, u.URL()+"stream?page=%2Ftraining%2F")
	defer s.body.Close()
	name, first, err := s.next()
	if err != nil || name != "page" {
		t.Fatalf("first event %q, %v", name, err)
	}
	if !strings.Contains(first, "Trainer 1") || !strings.Contains(first, `<dd class="round">0</dd>`) {
		t.Fatalf("first page:\n%s", first)
	}
	if _, err := tr.Round(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		name, page, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		if name == "page" && strings.Contains(page, `<dd class="round">1</dd>`) {
			if strings.Contains(page, "<html") {
				t.Error("the update is a whole document, not the content")
			}
			break
		}
	}
	// Bad page parameters are refused.
	for _, p := range []string{"http://elsewhere/", "jobs"} {
		var e apiError
		getJSON(t, u.URL()+"stream?page="+p, 400, &e)
	}
}

func TestPanickingHandlerIs500(t *testing.T) {
	sc := newContext(t, "local[2]")
	st := NewState(true)
	var errs strings.Builder
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/boom", func(http.ResponseWriter, *http.Request) { panic("broken handler") })
	mux.HandleFunc("/boom", func(http.ResponseWriter, *http.Request) { panic("broken page") })
	live, _ := newLiveHandler(st, "app-1", newRecordStream())
	mux.Handle("/", live)
	srv := httptest.NewServer(recoverer(mux, writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return errs.Write(b)
	})))
	defer srv.Close()
	l := listen(sc, st.Apply)
	defer l.stop()

	var e apiError
	getJSON(t, srv.URL+"/api/v1/boom", 500, &e)
	if !strings.Contains(e.Error, "broken handler") {
		t.Errorf("error %q", e.Error)
	}
	code, body := get(t, srv.URL+"/boom")
	if code != 500 || !strings.Contains(body, "broken page") || !strings.Contains(body, "<html") {
		t.Errorf("page: %d %s", code, body)
	}
	// The server and the job go on.
	if n, err := sc.Range(0, 10, 1, 2).Count(); err != nil || n != 10 {
		t.Fatalf("count after the panics: %d, %v", n, err)
	}
	var jobs []JobData
	getJSON(t, srv.URL+"/api/v1/jobs", 200, &jobs)
	if len(jobs) != 1 || jobs[0].Status != "SUCCEEDED" {
		t.Errorf("jobs after the panics: %+v", jobs)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(errs.String(), "ui: panic serving GET /api/v1/boom: broken handler") {
		t.Errorf("the panic was not reported:\n%s", errs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// endpoints are the API answers compared between a live UI and its log.
func endpoints(st *State) []string {
	out := []string{"jobs", "jobs?status=failed", "stages", "workers", "storage", "trainers", "environment"}
	for _, j := range st.Jobs("") {
		out = append(out, fmt.Sprintf("jobs/%d", j.JobID))
		for _, s := range j.StageIDs {
			out = append(out, fmt.Sprintf("stages/%d", s))
		}
	}
	for _, r := range st.Storage() {
		out = append(out, fmt.Sprintf("storage/%d", r.ID))
	}
	for _, tr := range st.Trainers() {
		for _, sub := range []string{"", "/rounds", "/steps", "/schedule"} {
			out = append(out, fmt.Sprintf("trainers/%d%s", tr.ID, sub))
		}
	}
	return out
}

func TestEventLogReplay(t *testing.T) {
	dir := t.TempDir()
	sc := newContext(t, "local[2]")
	u := startUI(t, sc, Options{EventLog: dir, Name: "replayed"})
	workload(t, sc, 4)
	paths := endpoints(u.State())
	live := map[string]string{}
	for _, p := range paths {
		code, body := get(t, u.URL()+"api/v1/"+p)
		if code != 200 {
			t.Fatalf("live %s: %d %s", p, code, body)
		}
		live[p] = body
	}
	if _, err := os.Stat(filepath.Join(dir, u.App()+LogExt+InProgressExt)); err != nil {
		t.Errorf("no log in progress: %v", err)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	if u.LogPath() != filepath.Join(dir, u.App()+LogExt) {
		t.Errorf("log path %s", u.LogPath())
	}
	h, err := NewHistory(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	for _, p := range paths {
		code, body := get(t, srv.URL+"/api/v1/"+p)
		if code != 200 || body != live[p] {
			t.Errorf("%s: the log answers (%d)\n%s\nthe live UI answered\n%s", p, code, body, live[p])
		}
		code, body = get(t, srv.URL+"/api/v1/applications/"+u.App()+"/"+p)
		if code != 200 || body != live[p] {
			t.Errorf("applications/%s/%s differs", u.App(), p)
		}
	}
	var apps []ApplicationData
	getJSON(t, srv.URL+"/api/v1/applications", 200, &apps)
	if len(apps) != 1 || !apps[0].Completed || apps[0].Name != "replayed" || apps[0].DurationMillis == nil {
		t.Errorf("applications: %+v", apps)
	}
	// The pages of the replay.
	for _, p := range []string{"jobs/", "training/", "workers/", "storage/", "environment/", "jobs/job?id=1"} {
		code, body := get(t, srv.URL+"/history/"+u.App()+"/"+p)
		if code != 200 || !strings.Contains(body, `data-stream=""`) || !strings.Contains(body, "/history/"+u.App()+"/jobs/") {
			t.Errorf("history page %s: %d\n%s", p, code, body)
		}
	}
	code, _ := get(t, srv.URL+"/")
	if code != 200 {
		t.Errorf("/: %d", code)
	}
	// The replayed records stream as the live ones did.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := openSSE(t, ctx, srv.URL+"/api/v1/events")
	n := 0
	for {
		name, _, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		if name == "end" {
			break
		}
		n++
	}
	s.body.Close()
	if want := len(h.apps[0].replay); n != want {
		t.Errorf("%d records streamed, the log has %d", n, want)
	}
}

func TestReadLogErrors(t *testing.T) {
	dir := t.TempDir()
	start := `{"event":"ApplicationStart","time":"2024-01-02T03:04:05Z","app":{"id":"app-1","name":"x","master":"local[1]","workers":1,"ranks":1}}` + "\n"
	job := `{"event":"JobStart","time":"2024-01-02T03:04:06Z","job":1,"action":"Count","numTasks":1}` + "\n"
	for _, tc := range []struct {
		name, file, content string
		want                string // error, or "" for a log that reads
		records             int
	}{
		{"good", "a.jsonl", start + job, "", 2},
		{"torn last line in progress", "b.jsonl.inprogress", start + job + `{"event":"JobE`, "", 2},
		{"torn last line of a finished log", "c.jsonl", start + job + `{"event":"JobE`, "c.jsonl:3: not an event record", 0},
		{"garbage line", "d.jsonl", start + "hello\n" + job, "d.jsonl:2: not an event record", 0},
		{"no event field", "e.jsonl", start + "{}\n", `e.jsonl:2: not an event record: no "event" field`, 0},
		{"not a log", "f.jsonl", job, `f.jsonl:1: not a sparknet event log: it starts with a "JobStart" record`, 0},
		{"empty", "g.jsonl", "", "g.jsonl: empty event log", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			recs, err := ReadLog(p)
			if tc.want == "" {
				if err != nil || len(recs) != tc.records {
					t.Errorf("%d records, %v", len(recs), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := NewHistory(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing folder: %v", err)
	}
	empty := t.TempDir()
	if _, err := NewHistory(empty); err == nil || !strings.Contains(err.Error(), "no event logs") {
		t.Errorf("an empty folder: %v", err)
	}
}

func TestPortSearch(t *testing.T) {
	taken, err := listenFrom("127.0.0.1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	sc := newContext(t, "local[1]")
	u := startUI(t, sc, Options{Port: port, PortRetries: 5})
	if u.URL() == "" || strings.HasSuffix(u.URL(), fmt.Sprintf(":%d/", port)) {
		t.Errorf("URL %s while port %d is taken", u.URL(), port)
	}
	if _, err := Start(sc, Options{Port: port, PortRetries: 0, Errors: io.Discard, Host: "256.0.0.1"}); err == nil {
		t.Error("listening on a bad host worked")
	}
	if _, err := Start(sc, Options{Port: 70000}); err == nil || !strings.Contains(err.Error(), "not a port number") {
		t.Errorf("port 70000: %v", err)
	}
	// NoServer: no URL, but the state still fills.
	v := startUI(t, sc, Options{NoServer: true})
	sc.Range(0, 3, 1, 1).Count()
	if v.URL() != "" || len(v.State().Jobs("")) != 1 {
		t.Errorf("without a server: URL %q, %d jobs", v.URL(), len(v.State().Jobs("")))
	}
}

func TestSPMDShowsEveryRank(t *testing.T) {
	comms, err := rdd.NewLocalComms(2)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		url     string
		workers []WorkerData
		tasks   []TaskData
		err     error
	}
	res := make([]result, 2)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, err := rdd.NewContextWith(rdd.Options{Engine: rdd.NewSPMDEngine(c)})
			if err != nil {
				res[r].err = err
				return
			}
			defer sc.Close()
			u, err := Start(sc, Options{Errors: io.Discard})
			if err != nil {
				res[r].err = err
				return
			}
			defer u.Close()
			res[r].url = u.URL()
			if _, err := sc.Range(0, 40, 1, 4).Cache().Count(); err != nil {
				res[r].err = err
				return
			}
			if u.State() != nil {
				res[r].workers = u.State().Workers()
				j, err := u.State().Job(1)
				if err != nil {
					res[r].err = err
					return
				}
				res[r].tasks = j.Stages[0].Tasks
			}
		}()
	}
	wg.Wait()
	for r, x := range res {
		if x.err != nil {
			t.Fatalf("rank %d: %v", r, x.err)
		}
	}
	if res[0].url == "" || res[1].url != "" {
		t.Errorf("URLs: rank 0 %q, rank 1 %q", res[0].url, res[1].url)
	}
	if len(res[0].tasks) != 4 {
		t.Fatalf("rank 0 sees tasks %+v", res[0].tasks)
	}
	for _, task := range res[0].tasks {
		if task.Worker != task.Partition%2 || task.Remote != (task.Worker == 1) || task.Status != "SUCCESS" {
			t.Errorf("task %+v", task)
		}
	}
	if len(res[0].workers) != 2 {
		t.Fatalf("workers %+v", res[0].workers)
	}
	for w, wd := range res[0].workers {
		if wd.Rank != w || wd.CompletedTasks != 2 || wd.CachedPartitions != 2 || wd.CachedBytes == 0 {
			t.Errorf("worker %d as rank 0 sees it: %+v", w, wd)
		}
	}
}

func TestNumJSON(t *testing.T) {
	in := RoundInfo{TrainLoss: Num(math.NaN()), TestLoss: Num(math.Inf(1)), TestAccuracy: Num(math.Inf(-1)), LearningRate: 0.01}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"trainLoss":"NaN"`) || !strings.Contains(string(b), `"testLoss":"Infinity"`) {
		t.Errorf("%s", b)
	}
	var out RoundInfo
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(out.TrainLoss)) || float64(out.TestLoss) != math.Inf(1) || float64(out.TestAccuracy) != math.Inf(-1) || out.LearningRate != 0.01 {
		t.Errorf("%+v", out)
	}
	var n Num
	if err := json.Unmarshal([]byte(`"lots"`), &n); err == nil {
		t.Error("a word decoded as a number")
	}
}

func TestShuffleStages(t *testing.T) {
	sc := newContext(t, "local[2]")
	u := startUI(t, sc, Options{})
	words := sc.Parallelize([]any{"a", "b", "a", "c", "b", "a", "d", "a"}, 4)
	counts, err := words.Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).ReduceByKey(func(a, b int) int { return a + b }, 2).Collect()
	if err != nil || len(counts) != 4 {
		t.Fatalf("counts %v, %v", counts, err)
	}
	var job JobData
	getJSON(t, u.URL()+"api/v1/jobs/1", 200, &job)
	if len(job.Stages) != 2 || job.ShuffleWriteBytes <= 0 {
		t.Fatalf("the word count's job: %+v", job)
	}
	m := job.Stages[0]
	if m.ShuffleID == 0 || m.ShuffleWriteRecords != 8 || m.ShuffleWriteBytes <= 0 || m.NumTasks != 4 || !strings.HasPrefix(m.Name, "shuffle") {
		t.Errorf("map stage %+v", m)
	}
	if r := job.Stages[1]; r.ShuffleID != 0 || r.NumTasks != 2 {
		t.Errorf("reduce stage %+v", r)
	}
	code, body := get(t, u.URL()+"jobs/job?id=1")
	if code != 200 || !strings.Contains(body, "Shuffle write") || !strings.Contains(body, "8 records") {
		t.Errorf("job page: %d\n%s", code, body)
	}
}

// A log that cannot be written is reported once; the job goes on and
// Close returns the error.
func TestEventLogFailure(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	sc := newContext(t, "local[1]")
	var errs strings.Builder
	var mu sync.Mutex
	u, err := Start(sc, Options{NoServer: true, EventLog: dir, Errors: writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return errs.Write(b)
	})})
	if err != nil {
		t.Fatal(err)
	}
	// Point the log at a device that is always full.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	u.log.mu.Lock()
	u.log.f.Close()
	u.log.f = full
	u.log.w.Reset(full)
	u.log.mu.Unlock()
	for i := 0; i < 3; i++ {
		if n, err := sc.Range(0, 10, 1, 1).Count(); err != nil || n != 10 {
			t.Fatalf("count %d, %v", n, err)
		}
	}
	if len(u.State().Jobs("")) != 3 {
		t.Error("the UI stopped with its log")
	}
	err = u.Close()
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Close: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Count(errs.String(), "the event log stops here") != 1 {
		t.Errorf("reports:\n%s", errs.String())
	}
}
