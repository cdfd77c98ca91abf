package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// uiScript trains LeNet on MNIST round by round until the file named by
// its first argument exists, then prints "done" and waits for the file
// named by its second, so that a test can look at the live UI in between.
const uiScript = `
import "path/filepath"

solver, err := caffe.LoadSolverParameter(filepath.Join(%q, "lenet_solver.prototxt"))
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
train, err := sc.MNIST("", true, sc.Workers())
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
test, err := sc.MNIST("", false, sc.Workers())
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
trainer, err := sparknet.Parallelize(sc, solver, train.SetName("train").Cache(), sparknet.Options{
	Tau: 5, Seed: 1, Test: test.Sample(false, 0.05, 1).SetName("test").Cache(), TestEvery: 2,
})
if err != nil {
	fmt.Println(err)
	os.Exit(1)
}
fmt.Println("training")
for r := 0; r < 2000; r++ {
	if _, err := os.Stat(os.Args[1]); err == nil {
		break
	}
	if _, err := trainer.Round(ctx); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}
fmt.Println("done", trainer.RoundsDone())
for {
	if _, err := os.Stat(os.Args[2]); err == nil {
		break
	}
	time.Sleep(50 * time.Millisecond)
}
`

// lines collects a process's output lines and finds patterns in them.
type lines struct {
	mu   sync.Mutex
	all  []string
	more chan struct{}
}

func newLines(r io.Reader) *lines {
	l := &lines{more: make(chan struct{})}
	go func() {
		s := bufio.NewScanner(r)
		for s.Scan() {
			l.mu.Lock()
			l.all = append(l.all, s.Text())
			close(l.more)
			l.more = make(chan struct{})
			l.mu.Unlock()
		}
	}()
	return l
}

// wait returns the first submatch of re in a line, waiting for it.
func (l *lines) wait(t *testing.T, re *regexp.Regexp, timeout time.Duration) []string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		for _, s := range l.all {
			if m := re.FindStringSubmatch(s); m != nil {
				l.mu.Unlock()
				return m
			}
		}
		more := l.more
		l.mu.Unlock()
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("no line matching %s in %v; the output was:\n%s", re, timeout, l.String())
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// fetch GETs url and returns the body, failing the test on any status
// but 200.
func fetch(t *testing.T, url string) string {
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
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// apiAnswers fetches every /api/v1/ answer of an application: the lists,
// and every job, stage, persisted RDD and trainer they name.
func apiAnswers(t *testing.T, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	get := func(p string) string {
		b := fetch(t, base+"api/v1/"+p)
		out[p] = b
		return b
	}
	for _, p := range []string{"workers", "environment", "stages", "jobs?status=failed"} {
		get(p)
	}
	var jobs []struct {
		JobID    int   `json:"jobId"`
		StageIDs []int `json:"stageIds"`
	}
	if err := json.Unmarshal([]byte(get("jobs")), &jobs); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		get(fmt.Sprintf("jobs/%d", j.JobID))
		for _, s := range j.StageIDs {
			get(fmt.Sprintf("stages/%d", s))
		}
	}
	var ids []struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal([]byte(get("storage")), &ids); err != nil {
		t.Fatal(err)
	}
	for _, r := range ids {
		get(fmt.Sprintf("storage/%d", r.ID))
	}
	if err := json.Unmarshal([]byte(get("trainers")), &ids); err != nil {
		t.Fatal(err)
	}
	for _, tr := range ids {
		for _, sub := range []string{"", "/rounds", "/steps", "/schedule"} {
			get(fmt.Sprintf("trainers/%d%s", tr.ID, sub))
		}
	}
	return out
}

// TestWebUI trains LeNet in sparknet-shell with its web UI on a free port
// and an event log: headless Chromium opens the Training and Jobs pages,
// sees them update live and draw their charts; then the history server
// (sparknet ui --events) must give every /api/v1/ answer the live UI gave.
func TestWebUI(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet while a browser watches")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "lenet_ui.go")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(uiScript, filepath.Join(repoRoot, "scripts"))), 0o644); err != nil {
		t.Fatal(err)
	}
	sparknetBin := filepath.Join(dir, "sparknet")
	build := exec.Command("go", "build", "-o", sparknetBin, "./cmd/sparknet")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building sparknet: %v\n%s", err, out)
	}
	logs, stop, exit := filepath.Join(dir, "events"), filepath.Join(dir, "stop"), filepath.Join(dir, "exit")

	shell := exec.Command(shellBin, "--ui-port", "0", "--event-log", logs, script, stop, exit)
	shell.Dir = dir
	stdout, _ := shell.StdoutPipe()
	stderr, _ := shell.StderrPipe()
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	defer func() {
		select {
		case <-exited:
		default:
			shell.Process.Kill()
			<-exited
		}
	}()
	out, errs := newLines(stdout), newLines(stderr)
	go func() { waitErr = shell.Wait(); close(exited) }()
	url := errs.wait(t, regexp.MustCompile(`^sparknet-shell: web UI at (http://127\.0\.0\.1:\d+/)$`), time.Minute)[1]
	out.wait(t, regexp.MustCompile(`^training$`), 2*time.Minute)

	t.Run("browser", func(t *testing.T) {
		bin := findChromium()
		if bin == "" {
			t.Skip("no chromium (apt-get install chromium; .ci/run installs it)")
		}
		b := startBrowser(t, bin, 1280, 1400)

		// The Training page: it shows the trainer and moves on its own.
		if err := b.navigate(url + "training/"); err != nil {
			t.Fatal(err)
		}
		round := `Number((document.querySelector('#trainer-1 .round') || {}).textContent || -1)`
		b.waitFor(t, "a finished round", round+` >= 1`, time.Minute)
		var r0, u0 int
		b.eval(round, &r0)
		b.eval(`Number(document.body.dataset.updates)`, &u0)
		b.waitFor(t, "a live update with a new round", fmt.Sprintf(`Number(document.body.dataset.updates) > %d && %s > %d`, u0, round, r0), time.Minute)
		b.waitFor(t, "a test result", `document.querySelectorAll('#trainer-1 circle').length >= 2`, time.Minute)
		var text string
		if err := b.eval(`document.body.innerText`, &text); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Trainer 1", "LeNet on 2 replicas", "train loss", "test accuracy", "outer optimizer", "average",
			"Loss", "Test accuracy", "Time per round", "Learning rate (inv)", "bytes moved", "live"} {
			if !strings.Contains(text, want) {
				t.Errorf("the Training page lacks %q:\n%s", want, text)
			}
		}
		var segments int
		b.eval(`document.querySelector('path[data-series="train (round mean)"]').getAttribute('d').split('L').length`, &segments)
		if segments < 2 {
			t.Errorf("the train loss curve has %d points", segments)
		}
		box, err := b.box("#trainer-1 svg.chart")
		if err != nil {
			t.Fatal(err)
		}
		img, err := b.screenshot(box)
		if err != nil {
			t.Fatal(err)
		}
		blue, ink := countColor(img, "#1f6fd1", 40)
		if blue < 40 || ink < 1000 {
			t.Errorf("the loss chart (%vx%v) shows %d pixels of the train curve's blue and %d not white", box.Width, box.Height, blue, ink)
		}

		// The Jobs page: it lists the rounds' jobs and grows on its own.
		if err := b.navigate(url + "jobs/"); err != nil {
			t.Fatal(err)
		}
		b.waitFor(t, "the jobs", `document.body.innerText.includes('Succeeded jobs')`, time.Minute)
		// The succeeded jobs' count in their heading: the table shows only
		// the latest (maxRows), which a fast run fills before the page
		// loads.
		jobs := `Number((document.body.innerText.match(/Succeeded jobs \((\d+)\)/) || [0, -1])[1])`
		var j0 int
		b.eval(jobs, &j0)
		if j0 < 0 {
			t.Fatalf("the Jobs page has no succeeded jobs' heading")
		}
		b.eval(`Number(document.body.dataset.updates)`, &u0)
		b.waitFor(t, "a live update with more jobs", fmt.Sprintf(`Number(document.body.dataset.updates) > %d && %s > %d`, u0, jobs, j0), time.Minute)
		if err := b.eval(`document.body.innerText`, &text); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Timeline of the latest", "RunPartitions", "train (MNIST)", "Succeeded jobs", "Tasks (done/all)"} {
			if !strings.Contains(text, want) {
				t.Errorf("the Jobs page lacks %q:\n%s", want, text)
			}
		}
		if box, err = b.box("svg.timeline"); err != nil {
			t.Fatal(err)
		}
		if img, err = b.screenshot(box); err != nil {
			t.Fatal(err)
		}
		if green, _ := countColor(img, "#34a853", 30); green < 40 {
			t.Errorf("the job timeline shows %d pixels of finished jobs' green", green)
		}
	})

	// Stop training, and keep the live UI's answers.
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out.wait(t, regexp.MustCompile(`^done \d+$`), 2*time.Minute)
	live := apiAnswers(t, url)
	if err := os.WriteFile(exit, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("sparknet-shell: %v\n%s\n%s", waitErr, out, errs)
		}
	case <-time.After(time.Minute):
		t.Fatal("sparknet-shell did not exit")
	}

	// The history server answers from the log as the live UI did.
	hist := exec.Command(sparknetBin, "ui", "--events", logs, "--port", "0")
	hout, _ := hist.StdoutPipe()
	var herr strings.Builder
	hist.Stderr = &herr
	if err := hist.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		hist.Process.Signal(os.Interrupt)
		hist.Wait()
	}()
	hl := newLines(hout)
	m := hl.wait(t, regexp.MustCompile(`^sparknet ui: 1 application\(s\) from .* at (http://127\.0\.0\.1:\d+/)$`), time.Minute)
	replayed := apiAnswers(t, m[1])
	if len(replayed) != len(live) {
		t.Errorf("the log answers %d endpoints, the live UI %d", len(replayed), len(live))
	}
	for p, body := range live {
		if replayed[p] != body {
			t.Errorf("/api/v1/%s: the log answers\n%s\nthe live UI answered\n%s", p, replayed[p], body)
		}
	}
	if !strings.Contains(live["trainers/1/rounds"], `"testAccuracy"`) || !strings.Contains(live["workers"], `"cachedBytes"`) {
		t.Errorf("the answers lack training or worker data:\n%s\n%s", live["trainers/1/rounds"], live["workers"])
	}
}
