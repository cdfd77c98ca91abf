package repl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
	"github.com/sparknet-go/sparknet/repl/jupyter"
	"github.com/sparknet-go/sparknet/ui"
)

// EnvLatency is the default of --latency.
const EnvLatency = "SPARKNET_LATENCY"

// stringsFlag collects the values of a repeated flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, "\n") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

const usage = `usage:
  sparknet-shell [--master URL] [-i]                 interactive shell
  sparknet-shell [--master URL] FILE.go [args...]    run a script
  sparknet-shell [--master URL] -e 'CODE' [-e ...]   evaluate CODE and print its result
  sparknet-shell --notebook FILE.go|FILE.ipynb [--out report.md|out.ipynb]
                                                     run a notebook, write a Markdown report
                                                     or (--out *.ipynb) the executed notebook
  sparknet-shell --to-ipynb FILE.go... [--out F.ipynb]
                                                     convert // %% notebooks to Jupyter's .ipynb
  sparknet-shell --install-kernel [--user | --prefix DIR] [--master URL]
                                                     install the Jupyter kernelspec "SparkNet (Go)"
  sparknet-shell --kernel CONNECTION_FILE            run as a Jupyter kernel (Jupyter starts it)
  mpirun -np N sparknet-shell --master mpi ...       any of these on N MPI ranks (a binary
                                                     built with -tags mpi): rank 0 reads the
                                                     input, every rank runs it, rank 0 prints
Every mode serves a web UI of sc's jobs and training at http://127.0.0.1:4040/
(or the next free port; see --ui-port and --no-ui), and --event-log DIR keeps
its events for "sparknet ui --events DIR".
flags:
`

// Main is sparknet-shell's command line: it parses args (without the
// program name), runs what they ask for and returns the exit status.
//
// Under an SPMD master such as "mpi" every rank runs Main with the same
// arguments: rank 0 reads the script, the -e code, the notebook or the
// lines typed and sends them to the other ranks; every rank runs them;
// only rank 0 prints, and it reports an error of any rank with the rank.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainWith(args, Options{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// mainWith is Main with the session's streams (and, in tests, its
// engine) in opts; the flags fill in the rest.
func mainWith(args []string, opts Options) int {
	stdout, stderr := opts.Stdout, stderrOf(opts)
	fs := flag.NewFlagSet("sparknet-shell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		exprs       stringsFlag
		master      = fs.String("master", "local[*]", "master URL of sc: local, local[N], local[*], or mpi (one worker per MPI rank, under mpirun; needs a binary built with -tags mpi)")
		notebook    = fs.String("notebook", "", "run the notebook `FILE.go` (or FILE.ipynb) and write a report")
		out         = fs.String("out", "", "the notebook's report (default: FILE.md); a name ending in .ipynb writes the executed notebook")
		kernelFile  = fs.String("kernel", "", "run as a Jupyter kernel on the connection file `FILE`")
		install     = fs.Bool("install-kernel", false, "install the Jupyter kernelspec (system-wide, or with --user or --prefix)")
		user        = fs.Bool("user", false, "with --install-kernel: install for this user only")
		prefix      = fs.String("prefix", "", "with --install-kernel: install under `DIR`/share/jupyter/kernels")
		toIPynb     = fs.Bool("to-ipynb", false, "convert the notebook-style Go files named to .ipynb (beside them, or --out for one file)")
		interactive = fs.Bool("i", false, "show the banner and prompts even when the input is not a terminal (as under mpirun)")
		resume      = fs.Bool("resume", false, "trainers with a checkpoint prefix (sparknet.Options.Checkpoint) continue from their latest checkpoint")
		overwrite   = fs.Bool("overwrite", false, "trainers may replace the checkpoints another run left under their prefix (sparknet.Options.Overwrite)")
		allRanks    = fs.Bool("all-ranks-output", false, "under --master mpi, let every rank print (by default only rank 0 does)")
		showVer     = fs.Bool("version", false, "print the version and exit")
		latency     = fs.String("latency", os.Getenv(EnvLatency), "inject `DELAY` (such as 5ms) into every trainer round as a network's latency, for trainers whose options set none (sparknet.Options.Latency); default $"+EnvLatency)
		memory      = fs.String("memory", "", "the memory budget: make refuses, with an error, sizes that do not fit in it (`SIZE` such as 8GiB or 50%; default: 75% of the machine's memory)")
	)
	uiPort, uiOff, uiErr := uiDefaults()
	var (
		port     = fs.Int("ui-port", uiPort, "the first port the web UI tries (the next free one is used; 0: any free port); default from $"+EnvUIPort)
		noUI     = fs.Bool("no-ui", uiOff, "do not serve the web UI ($"+EnvUIPort+"=off)")
		eventLog = fs.String("event-log", os.Getenv(EnvEventLog), "write every event of sc as JSON lines to a file in `DIR`, for the history server (sparknet ui --events DIR); default $"+EnvEventLog)
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
	if uiErr != nil && !flagSet(fs, "ui-port") && !flagSet(fs, "no-ui") {
		fmt.Fprintf(stderr, "sparknet-shell: %v\n", uiErr)
		return 2
	}
	if flagSet(fs, "ui-port") && !flagSet(fs, "no-ui") {
		*noUI = false // a port asked for on the command line wins over the environment
	}
	if !*noUI || *eventLog != "" {
		opts.UI = &ui.Options{
			NoServer:   *noUI,
			Port:       *port,
			EventLog:   *eventLog,
			Name:       appName(fs.Args(), *notebook, len(exprs) > 0),
			Properties: properties(fs, args),
		}
	}
	if *resume {
		defer func(was bool) { sparknet.ResumeFromCheckpoints = was }(sparknet.ResumeFromCheckpoints)
		sparknet.ResumeFromCheckpoints = true
	}
	if *overwrite {
		defer func(was bool) { sparknet.OverwriteCheckpoints = was }(sparknet.OverwriteCheckpoints)
		sparknet.OverwriteCheckpoints = true
	}
	if *latency != "" {
		d, err := time.ParseDuration(strings.TrimSpace(*latency))
		if err != nil || d < 0 {
			fmt.Fprintf(stderr, "sparknet-shell: --latency %q: want a delay such as 100us, 0.1ms or 5ms\n", *latency)
			return 2
		}
		defer func(was time.Duration) { sparknet.InjectedLatency = was }(sparknet.InjectedLatency)
		sparknet.InjectedLatency = d
	}
	if err := kernel.ImplementationError(); err != nil {
		fmt.Fprintf(stderr, "sparknet-shell: %v; running the %s kernels\n", err, kernel.Implementation())
	}
	if *memory != "" {
		budget, err := ParseMemory(*memory)
		if err != nil {
			fmt.Fprintln(stderr, "sparknet-shell: --memory:", err)
			return 2
		}
		opts.MemoryBudget = budget
	}
	opts.Master, opts.AllRanksOutput = *master, *allRanks
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case *install:
		if *kernelFile != "" || *notebook != "" || *toIPynb || len(exprs) > 0 || fs.NArg() > 0 {
			fmt.Fprintln(stderr, "sparknet-shell: --install-kernel takes only --user, --prefix and --master")
			return 2
		}
		if *user && *prefix != "" {
			fmt.Fprintln(stderr, "sparknet-shell: give either --user or --prefix, not both")
			return 2
		}
		var extra []string
		if set["master"] {
			extra = append(extra, "--master", *master)
		}
		return installKernel(stdout, stderr, *user, *prefix, extra)
	case *toIPynb:
		if fs.NArg() == 0 {
			fmt.Fprintln(stderr, "sparknet-shell: --to-ipynb needs the Go files to convert")
			return 2
		}
		if *out != "" && fs.NArg() > 1 {
			fmt.Fprintln(stderr, "sparknet-shell: --out names the notebook of one file; give one file or no --out")
			return 2
		}
		for _, f := range fs.Args() {
			if err := ConvertToIPynb(f, *out); err != nil {
				fmt.Fprintln(stderr, "sparknet-shell:", err)
				return 1
			}
		}
		return 0
	case *kernelFile != "":
		if *notebook != "" || len(exprs) > 0 || fs.NArg() > 0 {
			fmt.Fprintln(stderr, "sparknet-shell: --kernel takes no script, -e or --notebook")
			return 2
		}
		return RunKernel(KernelOptions{Session: opts, ConnectionFile: *kernelFile, Log: stderr})
	case *user || *prefix != "":
		fmt.Fprintln(stderr, "sparknet-shell: --user and --prefix go with --install-kernel")
		return 2
	}
	return run(opts, fs.Args(), exprs, *notebook, *out, *interactive)
}

// flagSet reports whether the command line set the flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// appName names the application in the UI: the script or notebook, or
// the mode.
func appName(rest []string, notebook string, eval bool) string {
	switch {
	case notebook != "":
		return filepath.Base(notebook)
	case eval:
		return "sparknet-shell -e"
	case len(rest) > 0:
		return filepath.Base(rest[0])
	}
	return "sparknet-shell"
}

// properties are what the Environment page shows of the shell.
func properties(fs *flag.FlagSet, args []string) [][2]string {
	p := [][2]string{
		{"sparknet-shell", Version()},
		{"command line", strings.TrimSpace("sparknet-shell " + strings.Join(args, " "))},
	}
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "e" {
			return
		}
		p = append(p, [2]string{"--" + f.Name, f.Value.String()})
	})
	return p
}

// run runs what the command line asks for with the session options.
func run(opts Options, rest, exprs []string, notebook, out string, interactive bool) int {
	stderr := stderrOf(opts)
	switch {
	case notebook != "":
		if len(rest) > 0 || len(exprs) > 0 {
			fmt.Fprintln(stderr, "sparknet-shell: --notebook takes no script or -e")
			return 2
		}
		opts.Args = []string{notebook}
		nopts := NotebookOptions{Session: opts, Out: out, Log: stderr}
		if isIPynb(out) {
			return exitStatus(stderr, runToIPynb(context.Background(), notebook, out, nopts))
		}
		nb, s, err := startNotebook(notebook, nopts)
		if err != nil {
			return exitStatus(stderr, err)
		}
		defer s.Close()
		s.announceUI(stderr)
		ctx, stop := s.interruptible(context.Background())
		defer stop()
		return exitStatus(s.errTo(stderr), nb.run(ctx, s, nopts))
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
		s.announceUI(stderr)
		ctx, stop := s.interruptible(context.Background())
		defer stop()
		if err := s.share(&exprs); err != nil {
			return exitStatus(s.errTo(stderr), err)
		}
		for _, e := range exprs {
			if err := s.settle(s.Eval(ctx, e)); err != nil {
				return exitStatus(s.errTo(stderr), err)
			}
		}
		return 0
	case len(rest) > 0:
		opts.Args = rest
		opts.GoroutinePanicsExit = true // as in a Go program
		s, err := New(opts)
		if err != nil {
			return exitStatus(stderr, err)
		}
		defer s.Close()
		s.announceUI(stderr)
		ctx, stop := s.scriptInterrupts(context.Background())
		defer stop()
		return exitStatus(s.errTo(stderr), s.RunFile(ctx, rest[0]))
	}
	return RunShell(ShellOptions{Session: opts, HistoryFile: historyFile(), Stdin: opts.Stdin, Interactive: interactive})
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
	var re *RankError
	if errors.As(err, &re) {
		return re.Code
	}
	// A panic that nothing recovered, and a deadlock, end a Go program
	// with status 2; the shell's other errors (a compile error) with 1,
	// as go run's.
	var pe *PanicError
	var de *DeadlockError
	if errors.As(err, &pe) || errors.As(err, &de) {
		return 2
	}
	return 1
}

// installKernel writes the kernelspec for this binary.
func installKernel(stdout, stderr io.Writer, user bool, prefix string, extra []string) int {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintln(stderr, "sparknet-shell: cannot find this program's path for the kernelspec:", err)
		return 1
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(stderr, "sparknet-shell: %s is a temporary binary of go run; install the command first (go install ./cmd/sparknet-shell) and run its --install-kernel\n", exe)
		return 1
	}
	dir, err := jupyter.KernelsDir(user, prefix)
	if err != nil {
		fmt.Fprintln(stderr, "sparknet-shell:", err)
		return 1
	}
	spec := jupyter.KernelSpec{
		Argv:          append(append([]string{exe}, extra...), "--kernel", "{connection_file}"),
		DisplayName:   KernelDisplayName,
		Language:      "go",
		InterruptMode: "message",
		Metadata:      map[string]any{"sparknet_version": Version()},
	}
	where, err := jupyter.Install(dir, KernelName, spec)
	if err != nil {
		fmt.Fprintln(stderr, "sparknet-shell:", err)
		if os.IsPermission(errors.Unwrap(err)) && !user && prefix == "" {
			fmt.Fprintln(stderr, "(installing for all users needs write access there; --user installs for you alone)")
		}
		return 1
	}
	fmt.Fprintf(stdout, "installed the kernelspec %s (%s) in %s\n", KernelName, KernelDisplayName, where)
	return 0
}
