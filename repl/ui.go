package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/ui"
)

// The environment variables that give the UI flags their defaults.
const (
	// EnvUIPort is the default of --ui-port: a port number, or "off" for
	// --no-ui.
	EnvUIPort = "SPARKNET_UI_PORT"
	// EnvEventLog is the default of --event-log.
	EnvEventLog = "SPARKNET_EVENT_LOG"
)

// uiDefaults reads the defaults of --ui-port and --no-ui from the
// environment.
func uiDefaults() (port int, off bool, err error) {
	v := strings.TrimSpace(os.Getenv(EnvUIPort))
	switch strings.ToLower(v) {
	case "":
		return ui.DefaultPort, false, nil
	case "off", "none", "no", "false":
		return ui.DefaultPort, true, nil
	}
	port, err = strconv.Atoi(v)
	if err != nil || port < 0 || port > 65535 {
		return ui.DefaultPort, false, fmt.Errorf("%s=%q: want a port number (0 for any free port) or off", EnvUIPort, v)
	}
	return port, false, nil
}

// startUI starts the web UI and event log of the session's context, as
// opts.UI asks. A server that cannot start is reported and left out (the
// session goes on); an event log that cannot be written is an error.
func (s *Session) startUI() error {
	if s.opts.UI == nil {
		return nil
	}
	o := *s.opts.UI
	if o.Errors == nil {
		o.Errors = s.errOut()
	}
	u, err := ui.Start(s.sc, o)
	if errors.Is(err, ui.ErrServe) {
		fmt.Fprintf(s.errOut(), "sparknet-shell: no web UI: %v\n", err)
		o.NoServer = true
		if o.EventLog == "" {
			return nil
		}
		u, err = ui.Start(s.sc, o)
	}
	if err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	s.ui = u
	return nil
}

// UI returns the session's web UI, or nil when it has none.
func (s *Session) UI() *ui.UI { return s.ui }

// UIURL is the address of the session's web UI, or "" when it has none
// (as on ranks other than 0).
func (s *Session) UIURL() string {
	if s.ui == nil {
		return ""
	}
	return s.ui.URL()
}

// announceUI tells the user where the web UI is, for the modes without a
// banner.
func (s *Session) announceUI(w io.Writer) {
	if url := s.UIURL(); url != "" {
		fmt.Fprintf(s.errTo(w), "sparknet-shell: web UI at %s\n", url)
	}
}

// closeUI ends the event log and stops the server, reporting a failure
// of the log.
func (s *Session) closeUI() {
	if s.ui == nil {
		return
	}
	if err := s.ui.Close(); err != nil {
		fmt.Fprintf(s.errOut(), "sparknet-shell: %v\n", err)
	}
}
