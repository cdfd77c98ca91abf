package repl

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/repl/display"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// command is a shell command such as :help.
type command struct {
	args    string // how to call it, for help
	summary string
	run     func(sh *Shell, arg string)
}

// commands maps each command name (without the colon) to its command.
var commands map[string]command

func init() {
	commands = map[string]command{
		"help":    {"[topic]", "show help; topics: " + strings.Join(helpTopics(), ", "), (*Shell).cmdHelp},
		"doc":     {"NAME", "show the signature and documentation of a package, function, type, method or variable", (*Shell).cmdDoc},
		"load":    {"FILE", "run a Go file in this session (its cells one by one, showing their values)", (*Shell).cmdLoad},
		"time":    {"CODE", "run CODE and print how long it took", (*Shell).cmdTime},
		"vars":    {"", "list the variables, functions and types defined so far", (*Shell).cmdVars},
		"reset":   {"", "forget all variables, functions and types (sc stays)", (*Shell).cmdReset},
		"stop":    {"", "stop the goroutines that earlier inputs left running (also Ctrl-C at an empty prompt)", (*Shell).cmdStop},
		"ui":      {"", "show where the web UI of sc's jobs and training is, and its event log", (*Shell).cmdUI},
		"history": {"", "list the inputs accepted so far", (*Shell).cmdHistory},
		"save":    {"FILE", "write the accepted inputs as a script, one cell per input", (*Shell).cmdSave},
		"paste":   {"", "read lines until :end (or Ctrl-D) and run them as one input", nil}, // see Shell.read
		"quit":    {"", "leave the shell (also Ctrl-D)", (*Shell).cmdQuit},
	}
}

// commandNames returns the command names with their colons, sorted.
func commandNames() []string {
	var names []string
	for name := range commands {
		names = append(names, ":"+name)
	}
	sort.Strings(names)
	return names
}

// commandName returns the name of the command on a line that starts
// with a colon, aliases resolved.
func commandName(line string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(line, ":"), " ")
	switch name {
	case "q", "exit":
		return "quit"
	case "h", "?":
		return "help"
	}
	return name
}

// command runs a line that starts with a colon.
func (sh *Shell) command(line string) {
	_, arg, _ := strings.Cut(strings.TrimPrefix(line, ":"), " ")
	arg = strings.TrimSpace(arg)
	name := commandName(line)
	c, ok := commands[name]
	if !ok || c.run == nil {
		sh.failed = true
		fmt.Fprintf(sh.errw, "unknown command :%s; the commands are %s (:help for more)\n", name, strings.Join(commandNames(), " "))
		return
	}
	c.run(sh, arg)
}

func (sh *Shell) cmdQuit(string) { sh.quit = true }

func (sh *Shell) cmdUI(string) {
	u := sh.s.UI()
	switch {
	case u == nil:
		fmt.Fprintln(sh.out, "no web UI: start sparknet-shell without --no-ui (and $SPARKNET_UI_PORT unset), or give sc one with ui.Start(sc, ui.Options{Port: ui.DefaultPort})")
		return
	case u.URL() != "":
		fmt.Fprintf(sh.out, "web UI at %s (jobs, workers, storage, training; JSON under %sapi/v1/)\n", u.URL(), u.URL())
	default:
		fmt.Fprintln(sh.out, "no web server (--no-ui)")
	}
	if dir := u.LogDir(); dir != "" {
		fmt.Fprintf(sh.out, "event log: %s (%s)\n", u.LogPath(), "sparknet ui --events "+dir+" serves it when the run is over")
	}
}

func (sh *Shell) cmdStop(string) {
	if sh.s.Goroutines() == 0 {
		fmt.Fprintln(sh.out, "no goroutines of earlier inputs are running")
		return
	}
	sh.stopGoroutines()
}

func (sh *Shell) cmdReset(string) {
	sh.stopGoroutines()
	if err := sh.s.Reset(); err != nil {
		sh.report(err)
		return
	}
	fmt.Fprintln(sh.out, "session reset: variables, functions and types forgotten; sc and ctx are ready")
}

func (sh *Shell) cmdLoad(arg string) {
	if arg == "" {
		fmt.Fprintln(sh.errw, "usage: :load FILE")
		return
	}
	ctx, done := sh.cancelable()
	defer done()
	sh.report(sh.s.Load(ctx, arg))
}

// cancelable returns a context that Ctrl-C cancels while it runs.
func (sh *Shell) cancelable() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sh.mu.Lock()
	sh.cancel = cancel
	sh.mu.Unlock()
	return ctx, func() {
		sh.mu.Lock()
		sh.cancel = nil
		sh.mu.Unlock()
		cancel()
	}
}

func (sh *Shell) cmdTime(arg string) {
	if arg == "" {
		fmt.Fprintln(sh.errw, "usage: :time CODE")
		return
	}
	start := time.Now()
	err := sh.eval(arg)
	elapsed := time.Since(start)
	if err == nil {
		fmt.Fprintf(sh.out, "time: %s\n", elapsed.Round(time.Microsecond))
	}
}

func (sh *Shell) cmdVars(string) {
	t := sh.s.Vars()
	if len(t.Rows) == 0 {
		fmt.Fprintln(sh.out, "nothing defined yet")
		return
	}
	fmt.Fprint(sh.out, t.String())
}

// Vars tabulates the top-level names defined so far: name, kind, type
// and value.
func (s *Session) Vars() *display.Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := display.NewTable("name", "kind", "type", "value")
	for _, d := range s.names {
		typ, val := "", ""
		if d.kind == "var" || d.kind == "const" {
			v, err := s.value(d.name)
			if err == nil && v.IsValid() && v.CanInterface() {
				x := v.Interface()
				typ = TypeName(x)
				text, _ := formatValue(x)
				val = oneLine(text, 60)
			}
			// The checker's type of it, which names the session's types.
			if e := s.scope.lookup(d.name); e != nil {
				if n := internalNames.ReplaceAllString(types.TypeString(e.obj.Type(), packageName), "$1"); n != "" {
					typ = n
				}
			}
		}
		t.Rows = append(t.Rows, []string{d.name, d.kind, typ, val})
	}
	return t
}

// fieldNames returns text, a value of type t that fmt formatted with %+v,
// with the names that the interpreter gave the unexported fields of the
// session's structs (p as Xp, see unexportedTags) written as Go writes
// them: {Xm:map[]} as {m:map[]}.
func fieldNames(text string, t reflect.Type) string {
	names := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if len(f.Name) > 1 && f.Name[0] == 'X' && !token.IsExported(f.Name[1:]) && f.Tag.Get("json") == "-" && f.Tag.Get("xml") == "-" {
					names[f.Name] = true
				}
				walk(f.Type)
			}
		}
	}
	walk(t)
	if len(names) == 0 {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == 'X' && i > 0 && (text[i-1] == '{' || text[i-1] == ' ') {
			if j := strings.IndexByte(text[i:], ':'); j > 0 && names[text[i:i+j]] {
				continue // the X
			}
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// packageName qualifies the names of types by their packages' names,
// leaving the session's unqualified.
func packageName(p *types.Package) string {
	if p.Path() == "main" {
		return ""
	}
	return p.Name()
}

// oneLine shortens s to one line of at most n characters.
func oneLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

func (sh *Shell) cmdHistory(string) {
	inputs := sh.s.Inputs()
	if len(inputs) == 0 {
		fmt.Fprintln(sh.out, "no inputs yet")
		return
	}
	for _, in := range inputs {
		src := strings.TrimRight(in.Src, "\n")
		if in.From != "" {
			src = ":load " + in.From
		}
		fmt.Fprintf(sh.out, "in[%d]: %s\n", in.N, strings.ReplaceAll(src, "\n", "\n       "))
	}
}

func (sh *Shell) cmdSave(arg string) {
	if arg == "" {
		fmt.Fprintln(sh.errw, "usage: :save FILE")
		return
	}
	err := sh.s.onDriver(func() error { return fsio.WriteFile(arg, []byte(sh.s.Script())) })
	if err != nil {
		sh.report(fmt.Errorf("repl: :save: %w", err))
		return
	}
	fmt.Fprintf(sh.out, "saved %d inputs to %s; run it with: sparknet-shell %s\n", len(sh.s.Inputs()), arg, arg)
}

// Script returns the accepted inputs as a script that sparknet-shell
// runs: one cell per input.
func (s *Session) Script() string {
	var b strings.Builder
	b.WriteString("// Inputs saved from a sparknet-shell session; run with: sparknet-shell FILE.go\n")
	for _, in := range s.Inputs() {
		src := strings.TrimRight(in.Src, "\n")
		if in.From != "" {
			fmt.Fprintf(&b, "\n// %%%% in[%d]: loaded from %s\n", in.N, in.From)
			if hasPackageClause(src) {
				fmt.Fprintf(&b, "// (a package main file; run it with :load %s)\n", in.From)
				continue
			}
		} else {
			fmt.Fprintf(&b, "\n// %%%% in[%d]\n", in.N)
		}
		b.WriteString(src + "\n")
	}
	return b.String()
}

// readPaste reads the lines of :paste, up to :end or the end of input,
// and returns them as one input; false when Ctrl-C drops them.
func (sh *Shell) readPaste() (string, bool) {
	fmt.Fprintln(sh.out, "paste mode: enter lines, then :end on a line of its own (or Ctrl-D)")
	var b strings.Builder
	for {
		line, err := sh.readLine("")
		if errors.Is(err, io.EOF) || (err == nil && strings.TrimSpace(line) == ":end") {
			break
		}
		if err != nil { // Ctrl-C drops the paste
			fmt.Fprintln(sh.out, "paste canceled")
			return "", false
		}
		b.WriteString(StripPrompt(line) + "\n")
	}
	return b.String(), true
}

func (sh *Shell) cmdDoc(arg string) {
	if arg == "" {
		fmt.Fprintln(sh.errw, "usage: :doc NAME (a package, pkg.Func, pkg.Type, pkg.Type.Method, a variable or var.Method)")
		return
	}
	text, err := sh.s.Doc(arg)
	if err != nil {
		fmt.Fprintln(sh.errw, err)
		return
	}
	fmt.Fprintln(sh.out, strings.TrimRight(text, "\n"))
}

// help topics.
var helpText = map[string]string{
	"echo": `Results
  An input that ends in an expression prints the value and its type:
      >>> x := 40 + 2          (declarations and assignments print nothing)
      >>> x
      42 (int)
  Strings are quoted (text of several lines prints as it is). A call prints
  each of its results on its own line, leaving out nil errors (a call that
  returns only a nil error prints nothing); when its final error is not nil
  it prints just "error: ...". fmt.Print*, print and println print only their own output.
  Arrays print numpy-style under a header with their shape; weight
  collections and nets print as tables (layer, shape, norm); figures and
  training histories print as sparklines.`,
	"input": `Input
  Type Go statements, expressions and declarations; they may be mixed in one
  input. An input continues on the next line (prompt "...") while brackets,
  a raw string or a comment are open, or after a trailing operator; an empty
  line then ends it. :paste reads many lines as one input. Lines pasted with
  ">>> " or "... " in front have the prompts removed.
  Packages usable without import lines: ` + strings.Join(sortedKeys(AutoImports), " ") + `.
  Other standard packages need an import line: import "math/rand".
  sc is the RDD context (master from --master), ctx is canceled by Ctrl-C.`,
	"keys": `Line editing
  Tab completes names, package members (fmt.Pr<Tab>) and the methods and
  fields of a variable's type (a.Re<Tab>), also after calls and indexes
  (net.Blob("data").Sh<Tab>). Up/Down and Ctrl-R search the history, kept
  in ~/.sparknet_shell_history (or $SPARKNET_SHELL_HISTORY); an input of
  several lines comes back whole, written on one line.
  Ctrl-A/Ctrl-E go to the start/end of the line, Ctrl-W deletes a word.
  Ctrl-C clears the line at the prompt and interrupts a running input;
  Ctrl-D on an empty line leaves.`,
	"interrupt": `Interrupting and errors
  Ctrl-C stops the running input and returns to the prompt; variables keep
  the values they had. Interpreted loops stop at once. Compiled loops stop
  when they look at ctx: pass ctx to them (solver.Step(ctx, n), RDD jobs are
  canceled too). A panic — in an input, in a goroutine it started, or in a
  function an RDD worker runs — is reported with where it happened, and the
  session goes on. Errors give file:line:col; in[N] is the N-th input.
  Goroutines started by go statements stop with the input on Ctrl-C; those
  left running by earlier inputs stop on :stop (or Ctrl-C at an empty
  prompt) and on :reset. :help limits says what the shell cannot stop.`,
	"limits": `Limits: what the shell stops, and what ends it
  User code cannot end the session in these ways; each is an ordinary error:
    runaway recursion     stops with "stack overflow" when a goroutine's stack
                          passes 64 MiB (about 100,000 nested calls)
    too much memory       make([]float64, 1<<40), new([1<<40]byte), a variable
                          of such a type and strings.Repeat(s, 1<<40) are
                          refused when they do not fit in the memory budget
                          (75% of the machine's memory; sparknet-shell
                          --memory SIZE, e.g. 8GiB or 50%), and code whose
                          heap grows past the budget is stopped
    a panic               anywhere: an input, its goroutines, RDD callbacks
    os.Exit               ends the input and the shell, with its status (in
                          Jupyter: the cell; the kernel goes on); as in Go, no
                          deferred call runs and no recover stops it
    endless loops         Ctrl-C stops them, and every goroutine they started
    a deadlock            an input whose goroutines all wait on channels and
                          locks for each other stops with Go's "all goroutines
                          are asleep - deadlock!" (a goroutine stuck in a
                          sync.Mutex's Lock waits on, and channels that
                          compiled code feeds are not seen)
  The Go runtime ends the process, with no chance to recover, when:
    - goroutines write one map at the same time ("concurrent map writes");
    - memory runs out faster than the shell's watch sees the heap grow
      (it looks every 50ms), or in one allocation inside another compiled
      function (slices.Grow(s, 1<<40); ndarray checks its own sizes);
    - compiled code recurses without end;
    - an interpreted function that compiled code calls on a goroutine of its
      own panics (time.AfterFunc(d, f)); RDD and Caffe callbacks are guarded.`,
	"scripts": `Scripts and notebooks
  sparknet-shell FILE.go [args]   run a script: top-level statements, or a
                                  package main file with func main
  sparknet-shell -e 'CODE'        evaluate CODE and print its result
  sparknet-shell --notebook FILE.go --out report.md
                                  run a notebook and write a Markdown report
  In a .go file, lines "// %%" separate cells; each cell runs as one input.
  A script prints only what it prints; a notebook report also shows the
  value of each cell's final expression, as the prompt would. As a Go
  program, a script ends with status 2 at a panic that nothing recovers,
  in a goroutine it started too (the prompt reports it and goes on).
  Start such files with "//go:build ignore" so that the go command skips them.
  A cell's leading // comment lines are prose, written to the report as
  Markdown. display.Show(v) shows a value (tables and figures go into the
  report, figures as PNG files beside it).`,
	"mpi": `On MPI ranks
  mpirun -np 4 sparknet-shell --master mpi FILE.go   a script on 4 ranks
  mpirun -np 4 sparknet-shell --master mpi -i        a session (-i: prompts)
  (a binary built with: go build -tags mpi ./cmd/sparknet-shell)
  Rank 0 reads every input and sends it to all ranks; every rank runs it;
  only rank 0 prints (--all-ranks-output lets all print). sc.Rank() is the
  rank, sc.Workers() the number of ranks. An error that differs between
  ranks shows with its rank; an input that failed on some ranks only ends
  the job. Ctrl-C ends the job. --resume continues trainers from their
  latest checkpoint (sparknet.Options.Checkpoint).`,
	"display": `Display
  display.NewTable(header...).Add(cells...)   a table
  display.Sparkline(values)                    ▁▂▄▇ in one line
  display.NewFigure(title).Line(name, ys)      a chart; .Save("f.png")
  display.TrackSolver(solver, iters, every)    live progress bar + history
  display.Show(v)                              show v as a result is shown
  At the prompt a trainer's Rounds, RunTo and Round show their progress
  unasked (TrackTrainer replaces that display with one of your own). On a
  terminal the bar redraws in place and is cleared when the run ends; on a
  pipe the display writes one line per round. Elapsed times and ETAs leave
  out the time the prompt waits.`,
}

func helpTopics() []string { return sortedKeys(helpText) }

func (sh *Shell) cmdHelp(topic string) {
	if topic != "" {
		topic = strings.TrimPrefix(topic, ":")
		if text, ok := helpText[topic]; ok {
			fmt.Fprintln(sh.out, text)
			return
		}
		if c, ok := commands[topic]; ok {
			fmt.Fprintf(sh.out, ":%s %s\n  %s\n", topic, c.args, c.summary)
			return
		}
		fmt.Fprintf(sh.errw, "no help for %q; topics: %s; commands: %s\n", topic, strings.Join(helpTopics(), ", "), strings.Join(commandNames(), " "))
		return
	}
	var b strings.Builder
	b.WriteString("Type Go code at the prompt; the value of a final expression is printed with its type.\n\nCommands:\n")
	for _, name := range sortedKeys(commands) {
		c := commands[name]
		fmt.Fprintf(&b, "  %-16s %s\n", ":"+name+" "+c.args, c.summary)
	}
	fmt.Fprintf(&b, "\nMore: :help TOPIC, with TOPIC one of %s.\n", strings.Join(helpTopics(), ", "))
	b.WriteString("Ready: sc (RDD context), ctx (canceled by Ctrl-C); packages " + strings.Join(sortedKeys(AutoImports), " ") + ".\n")
	fmt.Fprint(sh.out, b.String())
}
