package repl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"
	"github.com/mattn/go-isatty"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// Prompts of the interactive shell. Lines pasted with these prompts in
// front have them removed.
const (
	Prompt     = ">>> "
	MorePrompt = "... "
)

// ShellOptions configure an interactive shell.
type ShellOptions struct {
	// Session configures the session the shell runs.
	Session Options
	// HistoryFile keeps the lines typed, across runs; "" means none.
	HistoryFile string
	// Stdin is where input lines come from; nil means os.Stdin. When it
	// is a terminal the shell edits lines with readline, completes on Tab
	// and shows prompts; otherwise it reads plain lines quietly.
	Stdin io.Reader
	// Interactive shows the banner and prompts even when Stdin is not a
	// terminal, as for rank 0 under mpirun, whose input is a pipe.
	Interactive bool
}

// Shell is the interactive loop around a Session: line editing,
// continuation lines, commands and Ctrl-C.
//
// Under an SPMD master such as "mpi" every rank runs a Shell. Rank 0
// reads the input (with readline when its input is a terminal); each
// input or command goes to every rank, which runs it; only rank 0
// prints, and it reports an error of any rank with the rank. An input
// that fails on some ranks only ends the job, since the ranks' sessions
// would differ from there on. :quit and the end of rank 0's input end
// every rank's shell; Ctrl-C ends the job.
type Shell struct {
	s      *Session
	opts   ShellOptions
	out    io.Writer // normal output (the session's)
	ends   *lineEnds // out, on a terminal
	errw   io.Writer // error reports
	rl     *readline.Instance
	lines  *bufio.Reader // input when not a terminal
	eof    bool          // the input has ended
	sigs   chan os.Signal
	mu     sync.Mutex
	cancel context.CancelFunc // cancels the running input, or nil
	failed bool               // an input failed (for the exit status without a terminal)
	quit   bool
	code   int // exit status after :quit or os.Exit
	// above: the lines of the input being typed before the current one
	// (read, for completion; guarded by mu).
	above string

	// Under an SPMD master the error of the running input is kept until
	// the ranks have compared theirs.
	deferReports bool
	pending      error
}

// RunShell runs an interactive shell until :quit or end of input and
// returns the exit status.
func RunShell(opts ShellOptions) int {
	sh, err := NewShell(opts)
	if err != nil {
		fmt.Fprintln(stderrOf(opts.Session), "sparknet-shell:", err)
		return 1
	}
	defer sh.Close()
	return sh.Run()
}

func stderrOf(o Options) io.Writer {
	if o.Stderr != nil {
		return o.Stderr
	}
	return os.Stderr
}

// NewShell starts a session for an interactive shell.
func NewShell(opts ShellOptions) (*Shell, error) {
	sh := &Shell{opts: opts}
	in := opts.Stdin
	if in == nil {
		in = os.Stdin
	}
	tty, isFile := in.(*os.File)
	if isFile && isatty.IsTerminal(tty.Fd()) {
		// The line editor redraws the prompt's line: output that does
		// not end its line must be ended, or the prompt hides it.
		out := opts.Session.Stdout
		if out == nil {
			out = os.Stdout
		}
		sh.ends = &lineEnds{w: out}
		opts.Session.Stdout = sh.ends
	}
	s, err := New(opts.Session)
	if err != nil {
		return nil, err
	}
	sh.s = s
	sh.out = s.Stdout()
	sh.errw = s.errOut()
	if s.group != nil && s.group.rank() != 0 {
		return sh, nil // rank 0 reads the input for every rank
	}
	if f := tty; sh.ends != nil {
		rl, err := readline.NewEx(&readline.Config{
			Prompt:            Prompt,
			HistoryFile:       opts.HistoryFile,
			HistoryLimit:      5000,
			HistorySearchFold: true,
			// The shell saves whole inputs, not their lines (see remember).
			DisableAutoSaveHistory: true,
			InterruptPrompt:        "^C",
			EOFPrompt:              "",
			Stdin:                  f,
			AutoComplete:           completer{sh},
		})
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("repl: line editor: %w", err)
		}
		sh.rl = rl
		// Messages that arrive while the prompt shows (a panic in a
		// goroutine, say) go through readline, which redraws the prompt.
		if o := opts.Session.Stderr; o == nil || o == os.Stderr {
			s.setErrOut(rl.Stderr())
			sh.errw = rl.Stderr()
		}
	} else {
		sh.lines = bufio.NewReader(in)
	}
	return sh, nil
}

// Session returns the shell's session.
func (sh *Shell) Session() *Session { return sh.s }

// Close ends the session and the line editor. Under an SPMD master every
// rank must close its shell.
func (sh *Shell) Close() error {
	if sh.rl != nil {
		sh.rl.Close()
	}
	return sh.s.Close()
}

// Banner describes the session: version, master, cores, what is ready.
func (sh *Shell) Banner() string {
	sc := sh.s.SparkContext()
	var pkgs []string
	for name := range AutoImports {
		pkgs = append(pkgs, name)
	}
	sort.Strings(pkgs)
	where := fmt.Sprintf("master %s: %d workers, %d cores, %s kernels.", sc.Master(), sc.Workers(), runtime.NumCPU(), kernel.Implementation())
	if sh.s.group != nil {
		master := sc.Master()
		if o := sh.s.opts; o.Engine == nil && o.Master != "" {
			master = o.Master
		}
		where = fmt.Sprintf("master %s: %d ranks, one worker each (%d cores here). Rank 0 reads the input,\nevery rank runs it, rank 0 prints; Ctrl-C ends the job.",
			master, sc.Workers(), runtime.NumCPU())
	}
	web := ""
	if url := sh.s.UIURL(); url != "" {
		web = "Web UI at " + url + " (jobs, workers, storage, training).\n"
	}
	return fmt.Sprintf("sparknet-shell %s (%s)\n%s sc and ctx are ready.\n%simported: %s\nType :help for help, :quit or Ctrl-D to leave.\n",
		Version(), runtime.Version(), where, web, strings.Join(pkgs, " "))
}

// input is one input of the shell: code, a command line, or the end of
// the input. Under an SPMD master rank 0 sends it to every rank.
type input struct {
	Code    string `json:"code,omitempty"`
	Command string `json:"command,omitempty"` // a line that starts with a colon
	EOF     bool   `json:"eof,omitempty"`
}

// Run reads and evaluates inputs until :quit or end of input, and
// returns the exit status.
func (sh *Shell) Run() int {
	// Training shows its progress at the prompt without being asked.
	defer sparknet.SetWatcher(sparknet.SetWatcher(watchTraining))
	sh.sigs = make(chan os.Signal, 1)
	signal.Notify(sh.sigs, os.Interrupt)
	defer signal.Stop(sh.sigs)
	go sh.interrupts()

	if sh.rl != nil || sh.opts.Interactive {
		fmt.Fprint(sh.out, sh.Banner())
	}
	for !sh.quit {
		in, err := sh.next()
		if err != nil { // the ranks cannot talk any longer: the job is over
			fmt.Fprintln(sh.errw, "sparknet-shell:", err)
			return 1
		}
		if in.EOF {
			break
		}
		sh.runInput(in)
	}
	if sh.rl == nil && sh.failed && sh.code == 0 {
		return 1
	}
	return sh.code
}

// next returns the next input: read here, or under an SPMD master read
// by rank 0 and received from it.
func (sh *Shell) next() (input, error) {
	var in input
	if g := sh.s.group; g == nil || g.rank() == 0 {
		in = sh.read()
	}
	if err := sh.s.share(&in); err != nil {
		return input{}, err
	}
	return in, nil
}

// read reads lines until they make an input: a command, or code that
// needs no more lines.
func (sh *Shell) read() input {
	var buf strings.Builder
	for !sh.eof {
		prompt := Prompt
		if buf.Len() > 0 {
			prompt = MorePrompt
		}
		sh.mu.Lock()
		sh.above = buf.String()
		sh.mu.Unlock()
		line, err := sh.readLine(prompt)
		if errors.Is(err, readline.ErrInterrupt) {
			// Ctrl-C at the prompt drops the line; on an empty prompt it
			// stops the goroutines that earlier inputs left running, as
			// :stop does (on every rank of an SPMD job).
			if buf.Len() == 0 && strings.TrimSpace(line) == "" && sh.s.Goroutines() > 0 {
				return input{Command: ":stop"}
			}
			buf.Reset()
			continue
		}
		if err != nil {
			sh.eof = true
			break
		}
		line = StripPrompt(line)
		if buf.Len() == 0 && strings.HasPrefix(strings.TrimSpace(line), ":") {
			cmd := strings.TrimSpace(line)
			sh.remember(cmd)
			if commandName(cmd) == "paste" {
				if code, ok := sh.readPaste(); ok {
					sh.remember(code)
					return input{Code: code}
				}
				continue
			}
			return input{Command: cmd}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		src := buf.String()
		if needsMore(src) && !(strings.TrimSpace(line) == "" && !splitUnits(src).open) {
			continue
		}
		sh.remember(src)
		return input{Code: src}
	}
	if buf.Len() > 0 {
		sh.remember(buf.String())
		return input{Code: buf.String()}
	}
	return input{EOF: true}
}

// remember puts an input, or a command line, into the line editor's
// history as one entry, however many lines it has (see historyEntry).
func (sh *Shell) remember(src string) {
	if sh.rl == nil || strings.TrimSpace(src) == "" {
		return
	}
	sh.rl.SaveHistory(historyEntry(src))
}

// readLine reads one line with the prompt shown (on a terminal, or with
// ShellOptions.Interactive).
func (sh *Shell) readLine(prompt string) (string, error) {
	if sh.rl != nil {
		sh.rl.SetPrompt(prompt)
		return sh.rl.Readline()
	}
	if sh.opts.Interactive && prompt != "" {
		fmt.Fprint(sh.out, prompt)
	}
	line, err := sh.lines.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// runInput runs an input. Under an SPMD master the ranks then compare
// their outcomes: rank 0 reports the errors of every rank, and an input
// that failed on some ranks only ends the job.
func (sh *Shell) runInput(in input) {
	spmd := sh.s.group != nil
	sh.deferReports, sh.pending = spmd, nil
	if in.Command != "" {
		sh.command(in.Command)
	} else {
		sh.eval(in.Code)
	}
	sh.endLine()
	if !spmd {
		return
	}
	sh.deferReports = false
	err := sh.s.settle(sh.pending)
	sh.pending = nil
	var re *RankError
	if errors.As(err, &re) && re.Partial() {
		msg := "sparknet-shell: the input failed on some ranks only, so the ranks' sessions differ from here on; the job ends.\n" + re.Error()
		if sh.s.group.rank() == 0 {
			sh.s.abort(1, msg) // under MPI this does not return
			fmt.Fprintln(sh.errw, msg)
		}
		sh.quit, sh.code, sh.failed = true, 1, true
		return
	}
	sh.report(err)
}

// StripPrompt removes a shell prompt pasted in front of a line.
func StripPrompt(line string) string {
	for _, p := range []string{Prompt, MorePrompt} {
		if rest, ok := strings.CutPrefix(line, p); ok {
			return rest
		}
		if line == strings.TrimSpace(p) {
			return ""
		}
	}
	return line
}

// interrupts cancels the running input on every SIGINT; between inputs
// (readline reads Ctrl-C itself at the prompt) a signal is ignored. Under
// an SPMD master a SIGINT ends the job instead.
func (sh *Shell) interrupts() {
	for range sh.sigs {
		if sh.s.group != nil {
			sh.s.abort(130, fmt.Sprintf("interrupted (SIGINT) on rank %d", sh.s.group.rank()))
			continue
		}
		sh.mu.Lock()
		cancel := sh.cancel
		sh.mu.Unlock()
		if cancel != nil {
			cancel()
		} else if sh.s.Goroutines() > 0 {
			// Between inputs (on a pipe, where readline does not read
			// the key) SIGINT stops the goroutines left running.
			go sh.stopGoroutines()
		}
	}
}

// stopGoroutines stops the goroutines that earlier inputs left running,
// if any, and says how many it stopped.
func (sh *Shell) stopGoroutines() {
	if sh.s.Goroutines() == 0 {
		return
	}
	ran, left := sh.s.StopGoroutines(2 * time.Second)
	if ran == 0 {
		return
	}
	msg := fmt.Sprintf("stopped %s started by earlier inputs", plural(ran-left, "goroutine"))
	if left > 0 {
		msg += fmt.Sprintf("; %s inside compiled calls stop when those return", plural(left, "goroutine"))
	}
	fmt.Fprintln(sh.errw, msg)
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// eval evaluates one input, cancelable with Ctrl-C, and reports errors.
func (sh *Shell) eval(src string) error {
	ctx, cancel := context.WithCancel(context.Background())
	sh.mu.Lock()
	sh.cancel = cancel
	sh.mu.Unlock()
	err := sh.s.Eval(ctx, src)
	sh.mu.Lock()
	sh.cancel = nil
	sh.mu.Unlock()
	cancel()
	sh.report(err)
	return err
}

// report prints an input's error and notes failures and exits. While
// the ranks of an SPMD master run an input, it keeps the error for them
// to compare.
func (sh *Shell) report(err error) {
	sh.endLine()
	if err == nil {
		return
	}
	if sh.deferReports {
		if sh.pending == nil {
			sh.pending = err
		}
		return
	}
	var ex *ExitError
	if errors.As(err, &ex) {
		sh.quit, sh.code = true, ex.Code
		return
	}
	sh.failed = true
	fmt.Fprintln(sh.errw, FormatError(err))
}

// FormatError returns the report the shell prints for an input's error.
func FormatError(err error) string {
	if errors.Is(err, ErrInterrupted) {
		return "interrupted; the session goes on"
	}
	return err.Error()
}

// historyFile returns the default history file.
func historyFile() string {
	if f, ok := os.LookupEnv("SPARKNET_SHELL_HISTORY"); ok {
		return f
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".sparknet_shell_history")
}

// endLine ends the line that the output left open, if any.
func (sh *Shell) endLine() {
	if sh.ends != nil {
		sh.ends.end()
	}
}

// lineEnds passes output through to w and remembers whether it left a
// line open.
type lineEnds struct {
	mu   sync.Mutex
	w    io.Writer
	open bool
}

func (l *lineEnds) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(p) > 0 {
		// A line cleared for redrawing ("\r\x1b[K", as a progress
		// bar's) is not open.
		l.open = p[len(p)-1] != '\n' && !bytes.HasSuffix(p, []byte("\r\x1b[K"))
	}
	return l.w.Write(p)
}

// Unwrap returns the writer that l writes to (display.IsTerminal looks
// through it).
func (l *lineEnds) Unwrap() io.Writer { return l.w }

// end writes a newline if the output so far does not end with one.
func (l *lineEnds) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open {
		l.w.Write([]byte{'\n'})
		l.open = false
	}
}
