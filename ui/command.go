package ui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// DefaultHistoryPort is where the history server listens unless told
// otherwise, as Spark's does.
const DefaultHistoryPort = 18080

// HistoryUsage is the command line of HistoryMain, after the command's
// name.
const HistoryUsage = "--events=DIR [--port=18080] [--host=127.0.0.1]"

// HistorySummary describes HistoryMain in a list of commands.
const HistorySummary = "serve the web UI of finished runs from their event logs (the history server)"

// HistoryMain is the command "sparknet ui": it reads the event logs in
// --events (a folder, or one log) and serves their pages and API until
// interrupted. It returns the exit status: 0 after an interrupt, 1 when
// the logs cannot be read or the port cannot be had, 2 for a usage error.
func HistoryMain(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return historyMain(ctx, args, stdout, stderr)
}

func historyMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sparknet ui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	events := fs.String("events", "", "the event logs: a `DIR` that sparknet-shell --event-log wrote, or one log file")
	port := fs.Int("port", DefaultHistoryPort, "the first port tried (the next free one is used; 0: any free port)")
	host := fs.String("host", "127.0.0.1", "the address to listen on (0.0.0.0 for every interface)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: sparknet ui %s\n%s\n", HistoryUsage, HistorySummary)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sparknet ui: unexpected argument %q; flags are written --name=value\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if *events == "" {
		fmt.Fprintln(stderr, "sparknet ui: --events=DIR is required: the folder given to sparknet-shell --event-log")
		fs.Usage()
		return 2
	}
	h, err := NewHistory(*events)
	if err != nil {
		fmt.Fprintf(stderr, "sparknet ui: %s\n", strings.TrimPrefix(err.Error(), "ui: "))
		return 1
	}
	ln, err := listenFrom(*host, *port, DefaultPortRetries)
	if err != nil {
		fmt.Fprintf(stderr, "sparknet ui: %s\n", strings.TrimPrefix(err.Error(), "ui: "))
		return 1
	}
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
	apps := h.Applications()
	fmt.Fprintf(stdout, "sparknet ui: %d application(s) from %s at http://%s/\n", len(apps), *events, ln.Addr())
	for _, a := range apps {
		state := "complete"
		if !a.Completed {
			state = "incomplete"
		}
		fmt.Fprintf(stdout, "  %s  %s on %s, %d jobs, %d trainers (%s)\n", a.ID, a.Name, a.Master, a.NumJobs, a.NumTrainers, state)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "sparknet ui: %s\n", strings.TrimPrefix(err.Error(), "ui: "))
		return 1
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return 0
	}
}
