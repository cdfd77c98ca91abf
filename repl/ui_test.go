package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/ui"
)

func TestMain(m *testing.M) {
	// No web UI unless a test asks for one, on a free port.
	os.Setenv(EnvUIPort, "off")
	os.Exit(m.Run())
}

// getJSON fetches url and decodes it into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func TestSessionUI(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	s, err := New(Options{Master: "local[2]", Stdout: &out, Stderr: &out, UI: &ui.Options{Port: 0, EventLog: dir, Name: "session"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.UIURL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q", s.UIURL())
	}
	if err := s.Eval(context.Background(), "n, _ := sc.Range(0, 10, 1, 2).Count()\nn"); err != nil {
		t.Fatal(err)
	}
	var jobs []ui.JobData
	getJSON(t, s.UIURL()+"api/v1/jobs", &jobs)
	if len(jobs) != 1 || jobs[0].Name != "Count" || jobs[0].Status != "SUCCEEDED" {
		t.Errorf("jobs %+v", jobs)
	}
	var shOut bytes.Buffer
	sh := &Shell{s: s, out: &shOut, errw: &shOut}
	if b := sh.Banner(); !strings.Contains(b, "Web UI at "+s.UIURL()) {
		t.Errorf("banner:\n%s", b)
	}
	sh.command(":ui")
	if got := shOut.String(); !strings.Contains(got, "web UI at "+s.UIURL()) || !strings.Contains(got, "event log: "+filepath.Join(dir, s.UI().App()+ui.LogExt)) {
		t.Errorf(":ui says\n%s", got)
	}
	// :reset keeps sc and its UI.
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := s.Eval(context.Background(), "sc.Range(0, 4, 1, 2).Count()"); err != nil {
		t.Fatal(err)
	}
	getJSON(t, s.UIURL()+"api/v1/jobs", &jobs)
	if len(jobs) != 2 {
		t.Errorf("%d jobs after :reset", len(jobs))
	}
	app := s.UI().App()
	s.Close()
	recs, err := ui.ReadLog(filepath.Join(dir, app+ui.LogExt))
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Event != ui.EvApplicationStart || recs[len(recs)-1].Event != ui.EvApplicationEnd {
		t.Errorf("log from %s to %s", recs[0].Event, recs[len(recs)-1].Event)
	}
}

func TestMainUIFlags(t *testing.T) {
	dir := t.TempDir()
	url := regexp.MustCompile(`sparknet-shell: web UI at http://127\.0\.0\.1:\d+/\n`)
	for _, tc := range []struct {
		name    string
		env     string
		args    []string
		code    int
		web     bool
		logs    int
		errPart string
	}{
		{"port 0 and a log", "off", []string{"--ui-port", "0", "--event-log", filepath.Join(dir, "a"), "-e", "sc.Range(0, 10, 1, 2).Count()"}, 0, true, 1, ""},
		{"environment's port", "0", []string{"-e", "1"}, 0, true, 0, ""},
		{"no UI, a log", "0", []string{"--no-ui", "--event-log", filepath.Join(dir, "b"), "-e", "1"}, 0, false, 1, ""},
		{"off", "off", []string{"-e", "1"}, 0, false, 0, ""},
		{"bad environment", "forty", []string{"-e", "1"}, 2, false, 0, `SPARKNET_UI_PORT="forty": want a port number`},
		{"bad port", "off", []string{"--ui-port", "99999", "-e", "1"}, 0, false, 0, "no web UI: ui: cannot serve: port 99999 is not a port number"},
		{"log folder is a file", "off", []string{"--no-ui", "--event-log", filepath.Join(dir, "file"), "-e", "1"}, 1, false, 0, "event log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
			t.Setenv(EnvUIPort, tc.env)
			var out, errb bytes.Buffer
			code := Main(tc.args, strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errb.String())
			}
			if got := url.MatchString(errb.String()); got != tc.web {
				t.Errorf("announced a UI: %v; stderr %q", got, errb.String())
			}
			if !strings.Contains(errb.String(), tc.errPart) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.errPart)
			}
			for _, i := range tc.args {
				if i == "--event-log" {
					d := tc.args[1+indexOf(tc.args, i)]
					logs, _ := filepath.Glob(filepath.Join(d, "*"+ui.LogExt))
					if len(logs) != tc.logs {
						t.Errorf("logs %v, want %d", logs, tc.logs)
					}
				}
			}
		})
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestMainUIRanks(t *testing.T) {
	dir := t.TempDir()
	runs := runRanks(t, 2, func(_ int, o Options) int {
		return mainWith([]string{"--ui-port", "0", "--event-log", dir, "-e", "sc.Range(0, 8, 1, 4).Count()"}, o)
	})
	for r, run := range runs {
		if run.code != 0 {
			t.Fatalf("rank %d: exit %d: %s", r, run.code, run.err)
		}
	}
	if !strings.Contains(runs[0].err, "web UI at http://127.0.0.1:") || runs[1].err != "" {
		t.Errorf("rank 0 said %q, rank 1 %q", runs[0].err, runs[1].err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*"+ui.LogExt))
	if len(logs) != 1 {
		t.Fatalf("logs %v: only rank 0 writes one", logs)
	}
	recs, err := ui.ReadLog(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	remote := 0
	for _, r := range recs {
		if r.Event == ui.EvTaskEnd && r.Remote {
			remote++
		}
	}
	if remote != 2 || recs[0].App.Ranks != 2 {
		t.Errorf("%d remote task ends, %d ranks in the log of rank 0", remote, recs[0].App.Ranks)
	}
}

func TestUICommandWithoutUI(t *testing.T) {
	s, err := New(Options{Master: "local[1]", Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	sh := &Shell{s: s, out: &out, errw: &out}
	sh.command(":ui")
	if !strings.Contains(out.String(), "no web UI: start sparknet-shell without --no-ui") {
		t.Errorf(":ui says %q", out.String())
	}
}
