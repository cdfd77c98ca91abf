package repl

import (
	"bufio"
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

	"github.com/chzyer/readline"
	"github.com/mattn/go-isatty"
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
}

// Shell is the interactive loop around a Session: line editing,
// continuation lines, commands and Ctrl-C.
type Shell struct {
	s       *Session
	opts    ShellOptions
	out     io.Writer // normal output (the session's)
	errw    io.Writer // error reports
	rl      *readline.Instance
	lines   *bufio.Reader // input when not a terminal
	sigs    chan os.Signal
	mu      sync.Mutex
	cancel  context.CancelFunc // cancels the running input, or nil
	failed  bool               // an input failed (for the exit status without a terminal)
	quit    bool
	code    int // exit status after :quit or os.Exit
	pasting bool
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
	sopts := opts.Session
	if f, ok := in.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		rl, err := readline.NewEx(&readline.Config{
			Prompt:            Prompt,
			HistoryFile:       opts.HistoryFile,
			HistoryLimit:      5000,
			HistorySearchFold: true,
			InterruptPrompt:   "^C",
			EOFPrompt:         "",
			Stdin:             f,
			AutoComplete:      completer{sh},
		})
		if err != nil {
			return nil, fmt.Errorf("repl: line editor: %w", err)
		}
		sh.rl = rl
		// Messages that arrive while the prompt shows (a panic in a
		// goroutine, say) go through readline, which redraws the prompt.
		if sopts.Stderr == nil || sopts.Stderr == os.Stderr {
			sopts.Stderr = rl.Stderr()
		}
	} else {
		sh.lines = bufio.NewReader(in)
	}
	s, err := New(sopts)
	if err != nil {
		if sh.rl != nil {
			sh.rl.Close()
		}
		return nil, err
	}
	sh.s = s
	sh.out = s.Stdout()
	sh.errw = stderrOf(sopts)
	return sh, nil
}

// Session returns the shell's session.
func (sh *Shell) Session() *Session { return sh.s }

// Close ends the session and the line editor.
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
	return fmt.Sprintf("sparknet-shell %s (%s)\nmaster %s: %d workers, %d cores. sc and ctx are ready.\nimported: %s\nType :help for help, :quit or Ctrl-D to leave.\n",
		Version(), runtime.Version(), sc.Master(), sc.Workers(), runtime.NumCPU(), strings.Join(pkgs, " "))
}

// Run reads and evaluates inputs until :quit or end of input, and
// returns the exit status.
func (sh *Shell) Run() int {
	sh.sigs = make(chan os.Signal, 1)
	signal.Notify(sh.sigs, os.Interrupt)
	defer signal.Stop(sh.sigs)
	go sh.interrupts()

	if sh.rl != nil {
		fmt.Fprint(sh.out, sh.Banner())
	}
	var buf strings.Builder
	for !sh.quit {
		prompt := Prompt
		if buf.Len() > 0 {
			prompt = MorePrompt
		}
		line, err := sh.readLine(prompt)
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset() // Ctrl-C at the prompt drops the line
			continue
		}
		if err != nil { // end of input
			if buf.Len() > 0 {
				sh.eval(buf.String())
			}
			break
		}
		line = StripPrompt(line)
		if buf.Len() == 0 && strings.HasPrefix(strings.TrimSpace(line), ":") {
			sh.command(strings.TrimSpace(line))
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		src := buf.String()
		if needsMore(src) && !(strings.TrimSpace(line) == "" && !splitUnits(src).open) {
			continue
		}
		buf.Reset()
		sh.eval(src)
	}
	if sh.rl == nil && sh.failed && sh.code == 0 {
		return 1
	}
	return sh.code
}

// readLine reads one line with the prompt shown (on a terminal).
func (sh *Shell) readLine(prompt string) (string, error) {
	if sh.rl != nil {
		sh.rl.SetPrompt(prompt)
		return sh.rl.Readline()
	}
	line, err := sh.lines.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
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
// (readline reads Ctrl-C itself at the prompt) a signal is ignored.
func (sh *Shell) interrupts() {
	for range sh.sigs {
		sh.mu.Lock()
		if sh.cancel != nil {
			sh.cancel()
		}
		sh.mu.Unlock()
	}
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

// report prints an input's error and notes failures and exits.
func (sh *Shell) report(err error) {
	if err == nil {
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
