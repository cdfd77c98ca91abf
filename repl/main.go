package repl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// stringsFlag collects the values of a repeated flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, "\n") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

const usage = `usage:
  sparknet-shell [--master URL]                      interactive shell
  sparknet-shell [--master URL] FILE.go [args...]    run a script
  sparknet-shell [--master URL] -e 'CODE' [-e ...]   evaluate CODE and print its result
  sparknet-shell --notebook FILE.go [--out report.md]
                                                     run a notebook, write a Markdown report
flags:
`

// Main is sparknet-shell's command line: it parses args (without the
// program name), runs what they ask for and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sparknet-shell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		exprs    stringsFlag
		master   = fs.String("master", "local[*]", "master URL of sc: local, local[N], local[*]")
		notebook = fs.String("notebook", "", "run the notebook `FILE.go` and write a report")
		out      = fs.String("out", "", "the notebook's report (default: FILE.md)")
		showVer  = fs.Bool("version", false, "print the version and exit")
	)
	fs.Var(&exprs, "e", "evaluate `CODE` and print the result of its final expression (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVer {
		fmt.Fprintln(stdout, "sparknet-shell", Version())
		return 0
	}
	rest := fs.Args()
	opts := Options{Stdout: stdout, Stderr: stderr, Stdin: stdin, Master: *master}

	switch {
	case *notebook != "":
		if len(rest) > 0 || len(exprs) > 0 {
			fmt.Fprintln(stderr, "sparknet-shell: --notebook takes no script or -e")
			return 2
		}
		opts.Args = []string{*notebook}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		err := RunNotebook(ctx, *notebook, NotebookOptions{Session: opts, Out: *out, Log: stderr})
		return exitStatus(stderr, err)
	case len(exprs) > 0:
		if len(rest) > 0 {
			fmt.Fprintln(stderr, "sparknet-shell: give either -e or a script, not both")
			return 2
		}
		opts.Args = []string{"sparknet-shell"}
		s, err := New(opts)
		if err != nil {
			return exitStatus(stderr, err)
		}
		defer s.Close()
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		for _, e := range exprs {
			if err := s.Eval(ctx, e); err != nil {
				return exitStatus(stderr, err)
			}
		}
		return 0
	case len(rest) > 0:
		opts.Args = rest
		s, err := New(opts)
		if err != nil {
			return exitStatus(stderr, err)
		}
		defer s.Close()
		src, err := os.ReadFile(rest[0])
		if err != nil {
			return exitStatus(stderr, err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return exitStatus(stderr, s.RunSource(ctx, rest[0], string(src), false))
	}
	return RunShell(ShellOptions{Session: opts, HistoryFile: historyFile(), Stdin: stdin})
}

// exitStatus reports err and returns the exit status for it.
func exitStatus(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ex *ExitError
	if errors.As(err, &ex) {
		return ex.Code
	}
	fmt.Fprintln(stderr, FormatError(err))
	return 1
}
