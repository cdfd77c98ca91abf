package ui

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

//go:embed templates
var templateFiles embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"when":     when,
	"dur":      dur,
	"secs":     func(n Num) string { return fmt.Sprintf("%.2f s", float64(n)) },
	"bytes":    func(n int64) string { return byteSize(float64(n)) },
	"bytes64":  byteSize,
	"num":      func(n Num) string { return fmtStat(float64(n)) },
	"nump":     func(n *Num) string { return numOrBlank(n) },
	"progress": progress,
	"lower":    strings.ToLower,
}).ParseFS(templateFiles, "templates/*.html"))

// navItem is a tab of the page header.
type navItem struct {
	Name, Path string
	Active     bool
}

var tabs = []navItem{
	{Name: "Jobs", Path: "/jobs/"},
	{Name: "Workers", Path: "/workers/"},
	{Name: "Storage", Path: "/storage/"},
	{Name: "Training", Path: "/training/"},
	{Name: "Environment", Path: "/environment/"},
}

// layoutData fills the page layout.
type layoutData struct {
	Title, AppName, Master, Status string
	Base, Stream                   string
	Nav                            []navItem
	Content                        template.HTML
}

// page serves the HTML pages of the application.
func (a *app) page(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, a.base)
	switch path {
	case "", "/":
		http.Redirect(w, r, a.base+"/jobs/", http.StatusFound)
		return
	case "/stream":
		a.streamPage(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the UI is read-only", http.StatusMethodNotAllowed)
		return
	}
	if a.sync != nil {
		a.sync()
	}
	title, content, status := a.render(path, r.URL.Query())
	d := layoutData{Title: title, Base: a.base, Content: content, Status: "live"}
	if ad, ok := a.state.Application(); ok {
		d.AppName, d.Master = ad.Name, ad.Master
		if ad.Completed {
			d.Status = "ended"
		}
	}
	if a.stream == nil {
		d.Status = "replay"
	} else if d.Status == "live" {
		d.Stream = a.base + "/stream?page=" + url.QueryEscape(r.URL.RequestURI()[len(a.base):])
	}
	for _, t := range tabs {
		t.Active = strings.HasPrefix(path, t.Path[:len(t.Path)-1]) || t.Path == "/jobs/" && strings.HasPrefix(path, "/stages")
		d.Nav = append(d.Nav, t)
	}
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, "layout", d); err != nil {
		panic(fmt.Sprintf("rendering the layout: %v", err))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// streamPage sends the content of a page as server-sent events named
// "page" whenever it changes, at most every pageInterval; running pages
// are redrawn every tickInterval so that their clocks move. When the
// application ends the stream sends "end" and stops.
func (a *app) streamPage(w http.ResponseWriter, r *http.Request) {
	u, err := pagePath(r.URL.Query().Get("page"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	f, ok := sse(w)
	if !ok {
		return
	}
	if a.sync != nil {
		a.sync() // the first page shows what happened before it was asked for
	}
	ctx := r.Context()
	secs, clocks := pageSections(u.Path)
	last, drawn := "", ^uint64(0)
	for {
		changed := a.state.Changed()
		version, running := a.state.sectionVersions(secs)
		ticking := clocks && running
		if version != drawn || ticking {
			var end func()
			if measureHook != nil {
				end = measureHook(workDraw)
			}
			_, content, _ := a.render(u.Path, u.Query())
			if end != nil {
				end()
			}
			drawn = version
			if s := string(content); s != last {
				if writeEvent(w, "page", []byte(s)) != nil {
					return
				}
				f.Flush()
				last = s
			}
		}
		ad, _ := a.state.Application()
		if ad.Completed {
			writeEvent(w, "end", []byte(ad.EndTime))
			f.Flush()
			return
		}
		var tick <-chan time.Time
		var timer *time.Timer
		if ticking {
			timer = time.NewTimer(tickInterval)
			tick = timer.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-tick:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
		pause := time.NewTimer(pageInterval)
		select {
		case <-ctx.Done():
			pause.Stop()
			return
		case <-pause.C:
		}
	}
}

// pageSections returns the sections of the state a page shows, and
// whether it shows running clocks (durations of running jobs), which a
// live page redraws every tickInterval.
func pageSections(path string) ([]section, bool) {
	switch {
	case strings.HasPrefix(path, "/jobs"), strings.HasPrefix(path, "/stages"):
		return []section{secApp, secJobs}, true
	case strings.HasPrefix(path, "/workers"):
		return []section{secApp, secJobs, secStorage}, false
	case strings.HasPrefix(path, "/storage"):
		return []section{secApp, secStorage}, false
	case strings.HasPrefix(path, "/training"):
		return []section{secApp, secTraining}, false
	}
	return []section{secApp}, false
}

// render draws the content of the page at path (without the base).
func (a *app) render(path string, q url.Values) (title string, content template.HTML, status int) {
	path = strings.TrimSuffix(path, "/")
	id := func() (int, bool) {
		n, err := strconv.Atoi(q.Get("id"))
		return n, err == nil
	}
	var name string
	var data any
	switch path {
	case "/jobs":
		title, name, data = "Jobs", "jobs", a.jobsPage()
	case "/jobs/job":
		n, ok := id()
		if !ok {
			return a.message(http.StatusBadRequest, "Bad job ID", fmt.Sprintf("the job ID %q is not an integer", q.Get("id")))
		}
		j, err := a.state.Job(n)
		if err != nil {
			return a.message(http.StatusNotFound, "Unknown job", err.Error())
		}
		title, name, data = fmt.Sprintf("Job %d", n), "job", a.jobPage(j)
	case "/stages/stage":
		n, ok := id()
		if !ok {
			return a.message(http.StatusBadRequest, "Bad stage ID", fmt.Sprintf("the stage ID %q is not an integer", q.Get("id")))
		}
		st, err := a.state.Stage(n)
		if err != nil {
			return a.message(http.StatusNotFound, "Unknown stage", err.Error())
		}
		title, name, data = fmt.Sprintf("Stage %d", n), "stage", a.stagePage(st)
	case "/workers":
		title, name, data = "Workers", "workers", a.workersPage()
	case "/storage":
		title, name, data = "Storage", "storage", struct {
			Base string
			RDDs []RDDStore
		}{a.base, a.state.Storage()}
	case "/storage/rdd":
		n, ok := id()
		if !ok {
			return a.message(http.StatusBadRequest, "Bad RDD ID", fmt.Sprintf("the RDD ID %q is not an integer", q.Get("id")))
		}
		rd, err := a.state.RDD(n)
		if err != nil {
			return a.message(http.StatusNotFound, "Unknown RDD", err.Error())
		}
		title, name, data = "RDD "+rd.Name, "rdd", struct {
			Base string
			RDD  RDDStore
		}{a.base, rd}
	case "/training":
		var ts []trainerView
		for _, t := range a.state.Trainers() {
			ts = append(ts, a.trainerView(t, false))
		}
		title, name, data = "Training", "training", struct {
			Base     string
			Trainers []trainerView
		}{a.base, ts}
	case "/training/trainer":
		n, ok := id()
		if !ok {
			return a.message(http.StatusBadRequest, "Bad trainer ID", fmt.Sprintf("the trainer ID %q is not an integer", q.Get("id")))
		}
		t, err := a.state.Trainer(n)
		if err != nil {
			return a.message(http.StatusNotFound, "Unknown trainer", err.Error())
		}
		title, name, data = fmt.Sprintf("Trainer %d", n), "trainer", a.trainerView(t, true)
	case "/environment":
		title, name, data = "Environment", "environment", a.state.Environment()
	default:
		return a.message(http.StatusNotFound, "Not found", fmt.Sprintf("there is no page %s; the pages are Jobs, Workers, Storage, Training and Environment", path))
	}
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("rendering the %s page: %v", name, err))
	}
	return title, template.HTML(b.String()), http.StatusOK
}

func (a *app) message(status int, title, msg string) (string, template.HTML, int) {
	var b bytes.Buffer
	templates.ExecuteTemplate(&b, "message", struct{ Title, Message string }{title, msg})
	return title, template.HTML(b.String()), status
}

// errorPage is a whole page for an error outside the layout.
func errorPage(title, msg string) string {
	return fmt.Sprintf(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title><link rel="stylesheet" href="/static/style.css"></head><body><main><h1>%s</h1><p class="error">%s</p></main></body></html>`,
		esc(title), esc(title), esc(msg))
}

// maxRows bounds the rows of a job table on a page.
const maxRows = 50

// jobTable is the data of the "jobtable" template.
type jobTable struct {
	Base string
	Jobs []JobData
}

func (a *app) jobsPage() any {
	jobs := a.state.Jobs("")
	ad, _ := a.state.Application()
	var running, failed, succeeded []JobData
	for _, j := range jobs {
		switch j.Status {
		case "RUNNING":
			running = append(running, j)
		case "FAILED":
			failed = append(failed, j)
		default:
			succeeded = append(succeeded, j)
		}
	}
	numSucceeded := len(succeeded)
	if len(succeeded) > maxRows {
		succeeded = succeeded[:maxRows]
	}
	if len(failed) > maxRows {
		failed = failed[:maxRows]
	}
	return struct {
		Base                       string
		App                        ApplicationData
		Uptime                     string
		Timeline                   template.HTML
		Running, Failed, Succeeded []JobData
		RunningView, FailedView    jobTable
		SucceededView              jobTable
		NumSucceeded               int
	}{
		Base: a.base, App: ad, Uptime: a.uptime(ad), Timeline: a.jobTimeline(jobs),
		Running: running, Failed: failed, Succeeded: succeeded, NumSucceeded: numSucceeded,
		RunningView: jobTable{a.base, running}, FailedView: jobTable{a.base, failed}, SucceededView: jobTable{a.base, succeeded},
	}
}

func (a *app) uptime(ad ApplicationData) string {
	start, err := time.Parse(time.RFC3339Nano, ad.StartTime)
	if err != nil {
		return ""
	}
	a.state.mu.RLock()
	now := a.state.now()
	a.state.mu.RUnlock()
	return "up " + now.Sub(start).Round(time.Second).String()
}

// timelineJobs is how many of the latest jobs the timeline shows.
const timelineJobs = 40

// jobTimeline draws the latest jobs, with their stages inside.
func (a *app) jobTimeline(jobs []JobData) template.HTML {
	if len(jobs) > timelineJobs {
		jobs = jobs[:timelineJobs]
	}
	a.state.mu.RLock()
	now := a.state.now()
	a.state.mu.RUnlock()
	t := timeline{title: fmt.Sprintf("Timeline of the latest %d jobs", len(jobs))}
	for i := len(jobs) - 1; i >= 0; i-- {
		j := jobs[i]
		lane := len(t.lanes)
		t.lanes = append(t.lanes, fmt.Sprintf("job %d %s", j.JobID, j.Name))
		if len(t.lanes[lane]) > 18 {
			t.lanes[lane] = t.lanes[lane][:17] + "…"
		}
		from, to := parseStamp(j.SubmissionTime), parseStamp(j.CompletionTime)
		if to.IsZero() {
			to = now
		}
		color := colorOK
		switch j.Status {
		case "RUNNING":
			color = colorRunning
		case "FAILED":
			color = colorFailed
		}
		t.spans = append(t.spans, span{lane: lane, from: from, to: to, color: color, href: fmt.Sprintf("%s/jobs/job?id=%d", a.base, j.JobID),
			label: fmt.Sprintf("job %d (%s on %s): %s, %s", j.JobID, j.Name, j.Description, strings.ToLower(j.Status), dur(j.DurationMillis))})
		if t.from.IsZero() || from.Before(t.from) {
			t.from = from
		}
		if to.After(t.to) {
			t.to = to
		}
		for _, st := range a.state.stageSpans(j.StageIDs) {
			to := st.completed
			if to.IsZero() {
				to = now
			}
			t.spans = append(t.spans, span{lane: lane, from: st.submitted, to: to, color: "#174ea6", thin: true,
				label: fmt.Sprintf("stage %d %s: %s", st.id, st.name, dur(millis(st.duration)))})
		}
	}
	return t.svg()
}

// taskTimeline draws the task attempts of stages in one lane per worker.
func (a *app) taskTimeline(title string, stages []StageData) template.HTML {
	a.state.mu.RLock()
	now := a.state.now()
	a.state.mu.RUnlock()
	t := timeline{title: title}
	lanes := map[int]int{}
	maxW := -1
	for _, st := range stages {
		for _, tk := range st.Tasks {
			maxW = max(maxW, tk.Worker)
		}
	}
	for w := 0; w <= maxW; w++ {
		lanes[w] = w
		t.lanes = append(t.lanes, fmt.Sprintf("worker %d", w))
	}
	for _, st := range stages {
		for _, tk := range st.Tasks {
			from := parseStamp(tk.LaunchTime)
			to := now
			if tk.DurationMillis != nil {
				to = from.Add(time.Duration(float64(*tk.DurationMillis) * 1e6))
			}
			color := colorOK
			switch tk.Status {
			case "RUNNING":
				color = colorRunning
			case "FAILED":
				color = colorFailed
			}
			label := fmt.Sprintf("stage %d partition %d attempt %d on worker %d: %s %s", st.StageID, tk.Partition, tk.Attempt, tk.Worker, strings.ToLower(tk.Status), dur(tk.DurationMillis))
			if tk.ErrorMessage != "" {
				label += ": " + tk.ErrorMessage
			}
			t.spans = append(t.spans, span{lane: lanes[tk.Worker], from: from, to: to, color: color, label: label})
			if t.from.IsZero() || from.Before(t.from) {
				t.from = from
			}
			if to.After(t.to) {
				t.to = to
			}
		}
	}
	return t.svg()
}

func (a *app) jobPage(j JobData) any {
	return struct {
		Base     string
		Job      JobData
		Timeline template.HTML
	}{a.base, j, a.taskTimeline("Tasks by worker", j.Stages)}
}

func (a *app) stagePage(st StageData) any {
	return struct {
		Base     string
		Stage    StageData
		Timeline template.HTML
	}{a.base, st, a.taskTimeline("Tasks by worker", []StageData{st})}
}

func (a *app) workersPage() any {
	ws := a.state.Workers()
	ad, _ := a.state.Application()
	var total WorkerData
	for _, w := range ws {
		total.ActiveTasks += w.ActiveTasks
		total.CompletedTasks += w.CompletedTasks
		total.FailedTasks += w.FailedTasks
		total.TotalTasks += w.TotalTasks
		total.TotalDurationMillis += w.TotalDurationMillis
		total.CachedPartitions += w.CachedPartitions
		total.CachedBytes += w.CachedBytes
		total.StoreKeys += w.StoreKeys
		total.StoreBytes += w.StoreBytes
	}
	return struct {
		Base    string
		App     ApplicationData
		Workers []WorkerData
		Total   WorkerData
	}{a.base, ad, ws, total}
}

// trainerView is the data of a trainer's block.
type trainerView struct {
	Base                  string
	T                     TrainerData
	Loss, Accuracy, Times template.HTML
	LR                    template.HTML
	Rounds                []RoundInfo
	All                   bool
}

// recentRounds is how many rounds the Training page lists per trainer.
const recentRounds = 10

func (a *app) trainerView(t TrainerData, all bool) trainerView {
	rounds, _ := a.state.Rounds(t.ID)
	sched, _ := a.state.Schedule(t.ID)
	v := trainerView{Base: a.base, T: t, All: all}

	var rx, train, tx, tloss, tacc, cx []float64
	var stacks [][]float64
	for _, r := range rounds {
		rx = append(rx, float64(r.Iter))
		train = append(train, float64(r.TrainLoss))
		if r.Tested {
			tx = append(tx, float64(r.Iter))
			tloss = append(tloss, float64(r.TestLoss))
			tacc = append(tacc, float64(r.TestAccuracy))
		}
		cx = append(cx, float64(r.Round))
		stacks = append(stacks, []float64{float64(r.ComputeSeconds), float64(r.CommSeconds)})
	}
	sx, sy := a.state.stepCurve(t.ID, maxCurvePoints)
	v.Loss = lineChart{
		title: "Loss", xLabel: "iteration", yLabel: "loss", yFrom0: true, xFrom: 0, xTo: float64(t.Iter),
		series: []series{
			{name: "replica 0 step", xs: sx, ys: sy, color: "#9aa0a6", faint: true, width: 1},
			{name: "train (round mean)", xs: rx, ys: train, color: palette[0]},
			{name: "test", xs: tx, ys: tloss, color: palette[1], dots: true},
		},
		marker: math.NaN(),
	}.svg()
	v.Accuracy = lineChart{
		title: "Test accuracy", xLabel: "iteration", yLabel: "accuracy", yMax: 1, xFrom: 0, xTo: float64(t.Iter),
		series: []series{{name: "test accuracy", xs: tx, ys: tacc, color: palette[2], dots: true}},
		marker: math.NaN(),
	}.svg()
	v.Times = barChart{
		title: "Time per round", xLabel: "round", yLabel: "seconds", xs: cx, stacks: stacks,
		segments: []barSegment{{"compute", palette[0]}, {"communication", palette[1]}},
	}.svg()
	var lx, ly []float64
	for _, p := range sched {
		lx = append(lx, float64(p.Iter))
		ly = append(ly, float64(p.LR))
	}
	v.LR = lineChart{
		title: "Learning rate (" + t.Solver.LRPolicy + ")", xLabel: "iteration", yLabel: "learning rate", yFrom0: true, xFrom: math.NaN(), xTo: math.NaN(),
		series: []series{{name: "", xs: lx, ys: ly, color: palette[3], step: true}},
		marker: float64(t.Iter),
	}.svg()
	if all {
		v.Rounds = rounds
	} else if n := len(rounds); n > recentRounds {
		v.Rounds = rounds[n-recentRounds:]
	} else {
		v.Rounds = rounds
	}
	return v
}

// maxCurvePoints bounds the points of the step-loss curve: a chart is
// a few hundred pixels wide.
const maxCurvePoints = 600

// downsample returns the steps' iterations and losses, averaged over
// buckets of consecutive steps when there are more than n.
func downsample(steps []StepInfo, n int) (xs, ys []float64) {
	per := (len(steps) + n - 1) / max(n, 1)
	if per <= 1 {
		for _, s := range steps {
			xs = append(xs, float64(s.Iter))
			ys = append(ys, float64(s.Loss))
		}
		return xs, ys
	}
	for i := 0; i < len(steps); i += per {
		j := min(i+per, len(steps))
		var sum float64
		for _, s := range steps[i:j] {
			sum += float64(s.Loss)
		}
		xs = append(xs, float64(steps[j-1].Iter))
		ys = append(ys, sum/float64(j-i))
	}
	return xs, ys
}

// parseStamp reads a time written by stamp.
func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// when prints an API time for a page, in the server's zone.
func when(s string) string {
	t := parseStamp(s)
	if t.IsZero() {
		return ""
	}
	t = t.Local()
	if y, m, d := t.Date(); y != time.Now().Year() || m != time.Now().Month() || d != time.Now().Day() {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}

// dur prints a duration in milliseconds (a Num or *Num) for a page.
func dur(v any) string {
	var ms float64
	switch x := v.(type) {
	case *Num:
		if x == nil {
			return ""
		}
		ms = float64(*x)
	case Num:
		ms = float64(x)
	default:
		return ""
	}
	switch {
	case ms < 1:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0f ms", ms)
	case ms < 60000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms < 3600000:
		return fmt.Sprintf("%.1f min", ms/60000)
	}
	return fmt.Sprintf("%.1f h", ms/3600000)
}

// byteSize prints a number of bytes in binary units.
func byteSize(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// fmtStat prints a loss, an accuracy or a rate.
func fmtStat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 0):
		return fmt.Sprint(f)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

func numOrBlank(n *Num) string {
	if n == nil {
		return "–"
	}
	return fmtStat(float64(*n))
}

// progress draws a bar of done (green), failed (red) and running (blue)
// parts out of total, with the counts.
func progress(done, failed, active, total int) template.HTML {
	all := max(total, done+failed+active, 1)
	pct := func(n int) float64 { return 100 * float64(n) / float64(all) }
	label := fmt.Sprintf("%d/%d", done, total)
	if failed > 0 {
		label += fmt.Sprintf(" (%d failed)", failed)
	}
	if active > 0 {
		label += fmt.Sprintf(" (%d running)", active)
	}
	return template.HTML(fmt.Sprintf(`<div class="progress" title="%s"><span class="done" style="width:%.1f%%"></span><span class="failed" style="width:%.1f%%"></span><span class="running" style="width:%.1f%%"></span><em>%s</em></div>`,
		esc(label), pct(done), pct(failed), pct(active), esc(label)))
}
