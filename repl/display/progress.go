package display

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// Progress shows training progress. On a terminal it draws a live bar
// (round, step, loss, accuracy, ETA) that it redraws in place, and keeps
// one line per finished round above it; on a pipe or file it writes only
// the line per round. It is an Observer: give it the events of a
// training run.
type Progress struct {
	// Live selects the redrawn bar; NewProgress sets it when the output
	// is a terminal.
	Live bool
	// Width is the width of the bar in characters.
	Width int

	w        io.Writer
	mu       sync.Mutex
	started  bool
	start    time.Duration // the clock's reading at the first event
	lastDraw time.Time
	drawn    bool // a live line is on the screen
	loss     float64
	acc      float64

	byShell   bool          // made by NewProgress: a front end's live display may show it
	liveTried bool          // a live display was asked for
	lv        *liveProgress // the live display, or nil
}

// NewProgress returns a Progress writing to the shell's output (see
// Output).
func NewProgress() *Progress {
	p := NewProgressTo(Output())
	p.byShell = true
	return p
}

// NewProgressTo returns a Progress writing to w, live when w is a
// terminal (see liveOutput).
func NewProgressTo(w io.Writer) *Progress {
	return &Progress{w: w, Live: liveOutput(w), Width: 24, loss: math.NaN(), acc: math.NaN()}
}

// liveOutput reports whether progress written to w should be redrawn in
// place: w is a terminal and the process was not started by an MPI or
// Slurm launcher. Launchers (mpirun, mpiexec, srun) connect the ranks'
// output to a pseudo-terminal even when their own output goes to a file
// or a pipe, where a redrawn bar would fill the log with escape codes;
// under them progress is one line per round. $SPARKNET_PROGRESS set to
// "live" or "lines" decides instead.
func liveOutput(w io.Writer) bool {
	return liveFor(IsTerminal(w), os.Getenv)
}

// launcherVars are set in the processes that MPI and Slurm launchers
// start: Open MPI, MPICH and Intel MPI (PMI), PMIx, Slurm's srun.
var launcherVars = []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "SLURM_STEP_ID"}

func liveFor(terminal bool, getenv func(string) string) bool {
	switch getenv("SPARKNET_PROGRESS") {
	case "live":
		return true
	case "lines":
		return false
	}
	if !terminal {
		return false
	}
	for _, v := range launcherVars {
		if getenv(v) != "" {
			return false
		}
	}
	return true
}

// IsTerminal reports whether w is a terminal, or a writer that writes
// to one and says so with an Unwrap method.
func IsTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Observe draws e.
func (p *Progress) Observe(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !p.started {
		p.started, p.start = true, clockNow()
	}
	if e.Elapsed == 0 {
		e.Elapsed = clockNow() - p.start
	}
	if !math.IsNaN(e.Loss) {
		p.loss = e.Loss
	}
	if !math.IsNaN(e.Accuracy) {
		p.acc = e.Accuracy
	}
	if p.observeLive(e, now) {
		return
	}
	switch e.Kind {
	case StepDone:
		if p.Live && now.Sub(p.lastDraw) >= 100*time.Millisecond {
			p.drawLive(e)
			p.lastDraw = now
		}
	case RoundDone, Evaluated:
		p.clear()
		fmt.Fprintln(p.w, p.roundLine(e))
		if p.Live {
			p.drawLive(e)
			p.lastDraw = now
		}
	}
}

// Finish removes the live bar.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.finishLive()
}

func (p *Progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
		live.remove(p)
	}
}

// live tracks the progress bars drawn on the screen now.
var live = liveSet{m: map[*Progress]bool{}}

type liveSet struct {
	mu sync.Mutex
	m  map[*Progress]bool
}

func (l *liveSet) add(p *Progress) {
	l.mu.Lock()
	l.m[p] = true
	l.mu.Unlock()
}

func (l *liveSet) remove(p *Progress) {
	l.mu.Lock()
	delete(l.m, p)
	l.mu.Unlock()
}

// EndLive clears the live bars on the screen (the lines of the finished
// rounds above them stay), so that what follows starts on a clean line.
// The shell calls it when an input ends (or is interrupted) while a bar
// is drawn.
func EndLive() {
	live.mu.Lock()
	bars := make([]*Progress, 0, len(live.m))
	for p := range live.m {
		bars = append(bars, p)
	}
	clear(live.m)
	live.mu.Unlock()
	for _, p := range bars {
		p.mu.Lock()
		p.flushLive()
		if p.drawn {
			fmt.Fprint(p.w, "\r\x1b[K")
			p.drawn = false
		}
		p.mu.Unlock()
	}
}

func (p *Progress) drawLive(e Event) {
	var b strings.Builder
	b.WriteString("\r\x1b[K")
	frac := e.fraction()
	if frac >= 0 {
		n := int(math.Round(frac * float64(p.Width)))
		b.WriteString("[" + strings.Repeat("█", n) + strings.Repeat("·", p.Width-n) + "] ")
	}
	b.WriteString(p.status(e))
	if frac > 0 && frac < 1 {
		eta := time.Duration(float64(e.Elapsed) * (1 - frac) / frac)
		b.WriteString("  ETA " + FormatDuration(eta))
	}
	fmt.Fprint(p.w, b.String())
	p.drawn = true
	live.add(p)
}

// status is the round, step, loss and accuracy part of a line.
func (p *Progress) status(e Event) string {
	var parts []string
	switch {
	case e.Rounds > 0:
		parts = append(parts, fmt.Sprintf("round %d/%d", e.Round, e.Rounds))
	case e.Round > 0:
		parts = append(parts, fmt.Sprintf("round %d", e.Round))
	}
	if e.Kind == StepDone || e.Steps > 0 {
		if e.Steps > 0 {
			parts = append(parts, fmt.Sprintf("step %d/%d", e.Step, e.Steps))
		} else {
			parts = append(parts, fmt.Sprintf("step %d", e.Step))
		}
	}
	loss, acc := p.loss, p.acc
	if e.Kind == Evaluated {
		parts = append(parts, "test")
		loss, acc = e.Loss, e.Accuracy
	}
	if !math.IsNaN(loss) {
		parts = append(parts, fmt.Sprintf("loss %.4f", loss))
	}
	if !math.IsNaN(acc) {
		parts = append(parts, fmt.Sprintf("accuracy %.2f%%", 100*acc))
	}
	return strings.Join(parts, "  ")
}

func (p *Progress) roundLine(e Event) string {
	return p.status(e) + "  " + FormatDuration(e.Elapsed)
}

// FormatDuration writes d rounded for people: 950ms, 12.3s, 4m05s, 1h02m.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
