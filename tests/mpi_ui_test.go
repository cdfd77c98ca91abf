//go:build mpi

package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Under mpirun, rank 0 serves the web UI and writes the event log, and
// shows every rank: each rank's tasks and what its worker holds.
func TestMPIWebUI(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "count.go")
	src := `r := sc.Range(0, 4000, 1, 4).SetName("numbers").Cache()
n, err := r.Count()
if err != nil {
	panic(err)
}
fmt.Println("counted", n)
for {
	if _, err := os.Stat(os.Args[1]); err == nil {
		break
	}
	time.Sleep(20 * time.Millisecond)
}
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	stop, logs := filepath.Join(dir, "stop"), filepath.Join(dir, "events")
	j := startMPI(t, dir, 2, nil, "--ui-port", "0", "--event-log", logs, script, stop)
	j.waitFor(t, "counted 4000", time.Minute)
	m := regexp.MustCompile(`sparknet-shell: web UI at (http://127\.0\.0\.1:\d+/)\n`).FindAllStringSubmatch(j.out.String(), -1)
	if len(m) != 1 {
		t.Fatalf("%d ranks announced a web UI, want rank 0 alone:\n%s", len(m), j.out.String())
	}
	url := m[0][1]

	var apps []struct {
		Workers, Ranks int
	}
	if err := json.Unmarshal([]byte(fetch(t, url+"api/v1/applications")), &apps); err != nil || len(apps) != 1 || apps[0].Ranks != 2 || apps[0].Workers != 2 {
		t.Errorf("applications %+v, %v", apps, err)
	}
	var workers []struct {
		ID, Rank, CompletedTasks, CachedPartitions int
		CachedBytes                                int64
	}
	if err := json.Unmarshal([]byte(fetch(t, url+"api/v1/workers")), &workers); err != nil {
		t.Fatal(err)
	}
	if len(workers) != 2 {
		t.Fatalf("workers %+v", workers)
	}
	for w, wd := range workers {
		if wd.ID != w || wd.Rank != w || wd.CompletedTasks != 2 || wd.CachedPartitions != 2 || wd.CachedBytes < 1000*8 {
			t.Errorf("worker %d as rank 0 shows it: %+v", w, wd)
		}
	}
	var job struct {
		Stages []struct {
			Tasks []struct {
				Partition int  `json:"index"`
				Worker    int  `json:"workerId"`
				Remote    bool `json:"remote"`
				Status    string
			}
		}
	}
	if err := json.Unmarshal([]byte(fetch(t, url+"api/v1/jobs/1")), &job); err != nil || len(job.Stages) != 1 || len(job.Stages[0].Tasks) != 4 {
		t.Fatalf("job 1: %+v, %v", job, err)
	}
	for _, task := range job.Stages[0].Tasks {
		if task.Worker != task.Partition%2 || task.Remote != (task.Worker == 1) || task.Status != "SUCCESS" {
			t.Errorf("task %+v", task)
		}
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := j.wait(t, time.Minute); r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.out)
	}
	found, _ := filepath.Glob(filepath.Join(logs, "*.jsonl"))
	if len(found) != 1 {
		t.Errorf("event logs %v: rank 0 writes one", found)
	}
}
