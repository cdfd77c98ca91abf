package display

import (
	"fmt"
	"io"
	"os"
	"sync"
)

var (
	hookMu sync.RWMutex
	show   func(v any)
	output io.Writer
)

// Show displays values the way the shell displays results: arrays
// numpy-style, weight collections and nets as tables, figures as
// sparklines in a terminal and as PNG images in a notebook report. Outside
// the shell it prints Text(v) to standard output.
func Show(values ...any) {
	hookMu.RLock()
	f := show
	hookMu.RUnlock()
	for _, v := range values {
		if f != nil {
			f(v)
			continue
		}
		fmt.Fprintln(os.Stdout, Text(v))
	}
}

// SetShow makes f the display behind Show and returns the previous one
// (nil for the default). The shell calls it when a session starts.
func SetShow(f func(v any)) (previous func(v any)) {
	hookMu.Lock()
	defer hookMu.Unlock()
	previous, show = show, f
	return previous
}

// Output is where displays such as Progress write: the shell's output,
// or standard output outside the shell.
func Output() io.Writer {
	hookMu.RLock()
	defer hookMu.RUnlock()
	if output == nil {
		return os.Stdout
	}
	return output
}

// SetOutput makes w the writer that Output returns and returns the
// previous one (nil for the default). The shell calls it when a session
// starts.
func SetOutput(w io.Writer) (previous io.Writer) {
	hookMu.Lock()
	defer hookMu.Unlock()
	previous, output = output, w
	return previous
}
