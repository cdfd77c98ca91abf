package display

import (
	"fmt"
	"html"
	"math"
	"strings"
	"sync"
	"time"
)

// Live is a display that changes in place, as a front end with display
// ids (Jupyter's update_display_data) draws it: Update replaces what it
// shows, Close ends it.
type Live interface {
	Update(v any)
	Close()
}

var (
	liveMu    sync.RWMutex
	liveMaker func() Live
)

// SetLive makes f what makes the live displays of progress bars made by
// NewProgress, and returns the previous one (nil for none). A front end
// that can redraw a display in place (the Jupyter kernel) installs one;
// progress bars then show a ProgressView there instead of writing lines.
func SetLive(f func() Live) (previous func() Live) {
	liveMu.Lock()
	defer liveMu.Unlock()
	previous, liveMaker = liveMaker, f
	return previous
}

// LiveAvailable reports whether a front end shows live displays (see
// SetLive): a notebook does, a terminal does not.
func LiveAvailable() bool {
	liveMu.RLock()
	defer liveMu.RUnlock()
	return liveMaker != nil
}

func newLive() Live {
	liveMu.RLock()
	defer liveMu.RUnlock()
	if liveMaker == nil {
		return nil
	}
	return liveMaker()
}

// ProgressView is the state of a training run that a live display
// shows: a bar, the status (round, step, loss, accuracy, ETA) and one
// line per finished round.
type ProgressView struct {
	// Fraction is how much of the run is done, in [0, 1], or -1 when the
	// plan is unknown.
	Fraction float64
	Status   string
	ETA      time.Duration // 0 when unknown or done
	Rounds   []string      // a line per finished round (and test pass), the last ones
	Earlier  int           // lines left out before Rounds
	Done     bool
}

// liveRounds is how many round lines a live display keeps.
const liveRounds = 20

// String draws the view as text: the round lines, then the bar.
func (v *ProgressView) String() string {
	var b strings.Builder
	if v.Earlier > 0 {
		fmt.Fprintf(&b, "(%d earlier lines)\n", v.Earlier)
	}
	for _, l := range v.Rounds {
		b.WriteString(l + "\n")
	}
	if !v.Done || len(v.Rounds) == 0 {
		if v.Fraction >= 0 {
			n := int(math.Round(v.Fraction * 24))
			b.WriteString("[" + strings.Repeat("█", n) + strings.Repeat("·", 24-n) + "] ")
		}
		b.WriteString(v.Status)
		if v.ETA > 0 {
			b.WriteString("  ETA " + FormatDuration(v.ETA))
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// HTML draws the view as HTML: a progress bar with the status, and the
// round lines under it.
func (v *ProgressView) HTML() string {
	var b strings.Builder
	b.WriteString(`<div class="sparknet-progress" style="font-family:monospace">`)
	if v.Fraction >= 0 {
		fmt.Fprintf(&b, `<progress value="%.4f" max="1" style="width:24em;vertical-align:middle"></progress> %.0f%% `, v.Fraction, 100*v.Fraction)
	}
	b.WriteString(html.EscapeString(v.Status))
	if v.ETA > 0 {
		b.WriteString("  ETA " + FormatDuration(v.ETA))
	}
	if len(v.Rounds) > 0 {
		b.WriteString(`<pre style="margin:0.3em 0 0 0">`)
		if v.Earlier > 0 {
			fmt.Fprintf(&b, "(%d earlier lines)\n", v.Earlier)
		}
		for _, l := range v.Rounds {
			b.WriteString(html.EscapeString(l) + "\n")
		}
		b.WriteString("</pre>")
	}
	b.WriteString("</div>")
	return b.String()
}

// liveProgress is the live display of a Progress.
type liveProgress struct {
	live    Live
	view    ProgressView
	pending bool // view changed since the last update
}

// observeLive shows e in the progress's live display when a front end
// offers one (see SetLive), and reports whether it did. The caller holds
// p.mu.
func (p *Progress) observeLive(e Event, now time.Time) bool {
	if !p.liveTried {
		p.liveTried = true
		if p.byShell {
			if l := newLive(); l != nil {
				p.lv = &liveProgress{live: l}
			}
		}
	}
	lv := p.lv
	if lv == nil {
		return false
	}
	frac := e.fraction()
	lv.view.Fraction = frac
	lv.view.Status = p.status(e)
	lv.view.ETA = 0
	if frac > 0 && frac < 1 {
		lv.view.ETA = time.Duration(float64(e.Elapsed) * (1 - frac) / frac)
	}
	lv.pending = true
	lv.view.Done = false
	if e.Kind == RoundDone || e.Kind == Evaluated {
		lv.view.Rounds = append(lv.view.Rounds, p.roundLine(e))
		if n := len(lv.view.Rounds); n > liveRounds {
			lv.view.Earlier += n - liveRounds
			lv.view.Rounds = append(lv.view.Rounds[:0], lv.view.Rounds[n-liveRounds:]...)
		}
		lv.view.Done = e.Kind == RoundDone && e.Rounds > 0 && e.Round >= e.Rounds
	}
	// At most ten updates a second; the last state always shows.
	if !lv.view.Done && now.Sub(p.lastDraw) < 100*time.Millisecond {
		live.add(p) // EndLive shows the latest state
		return true
	}
	p.lastDraw = now
	p.flushLive()
	return true
}

// flushLive sends the live display the latest view. The caller holds p.mu.
func (p *Progress) flushLive() {
	lv := p.lv
	if lv == nil || !lv.pending {
		return
	}
	view := lv.view
	view.Rounds = append([]string(nil), lv.view.Rounds...)
	lv.live.Update(&view)
	lv.pending = false
}

// finishLive shows the final state and ends the live display. The
// caller holds p.mu.
func (p *Progress) finishLive() {
	if p.lv == nil {
		return
	}
	p.lv.view.Done = true
	p.lv.view.ETA = 0
	p.lv.pending = true
	p.flushLive()
	p.lv.live.Close()
	p.lv = nil
}
