package repl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"log"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparknet-go/sparknet/rdd"
	"github.com/sparknet-go/sparknet/repl/display"
	"github.com/sparknet-go/sparknet/repl/typecheck"
	"github.com/sparknet-go/sparknet/ui"
	"github.com/traefik/yaegi/interp"
)

// Options configure a Session. The zero value works: the standard
// streams and master local[*].
type Options struct {
	// Stdout and Stderr receive the output of interpreted code, echoed
	// results and error reports; nil means os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Stdin is the standard input of interpreted code; nil means os.Stdin.
	Stdin io.Reader
	// Master is the master URL of the session's RDD context, sc; "" means
	// "local[*]". Under an SPMD master such as "mpi" every rank runs a
	// session: see RunShell and Main for how inputs reach the ranks.
	Master string
	// Engine, when set, runs sc's tasks instead of an engine made from
	// Master, as rdd.Options.Engine (an SPMD engine over in-process ranks,
	// say).
	Engine rdd.Engine
	// AllRanksOutput lets every rank of an SPMD job write its output.
	// By default only rank 0 does: the other ranks' results, fmt.Print
	// output and writes to os.Stdout and os.Stderr are discarded.
	AllRanksOutput bool
	// Args are the command-line arguments scripts see in os.Args; nil
	// means just the program name.
	Args []string
	// Show, when set, is offered each displayed value first (an echoed
	// result or an argument of display.Show) and returns whether it
	// displayed it; notebooks use it to put tables and figures in their
	// reports. Otherwise values are written as text to Stdout.
	Show func(v any) bool
	// Exit is called when a goroutine started by interpreted code calls
	// os.Exit; nil means os.Exit. (os.Exit in an input ends that input
	// with an *ExitError instead.)
	Exit func(code int)
	// GoroutinePanicsExit makes a panic that ends a goroutine started by
	// interpreted code end the process, after its report, with status 2
	// (by Exit), as it ends a Go program: sparknet-shell FILE.go sets it.
	// Otherwise the report is written and the session goes on.
	GoroutinePanicsExit bool
	// MemoryBudget is the most memory, in bytes, that make may ask for
	// together with what the heap holds already: larger sizes panic with
	// a *MemoryError instead of ending the process. 0 means
	// DefaultMemoryShare of the machine's memory; a negative value turns
	// the check off.
	MemoryBudget int64
	// StackLimit is how many bytes of stack a goroutine running
	// interpreted code may use: deeper calls panic with a
	// *StackOverflowError instead of ending the process. 0 means
	// DefaultStackLimit.
	StackLimit int64
	// UI, when set, starts the web UI and event log of sc (see package
	// ui); the command line sets it from --ui-port, --no-ui and
	// --event-log. Under an SPMD master only rank 0 serves, and shows
	// every rank.
	UI *ui.Options
	// Result, when set, is offered each echoed result (the value of an
	// input's final expression) before Show, and returns whether it
	// displayed it; the Jupyter kernel makes them a cell's result.
	Result func(v any) bool
	// InputName names interactive inputs in error positions and
	// listings: "in" (in[3]:2:5) by default; the Jupyter kernel says
	// "cell".
	InputName string

	// virtualStdio makes os.Stdin, os.Stdout and os.Stderr in
	// interpreted code the session's streams even when they are not
	// files (they are then an io.Reader and io.Writers).
	virtualStdio bool
}

// AutoImports are the packages that inputs and scripts may use without
// import lines, by name.
var AutoImports = map[string]string{
	"fmt":      "fmt",
	"math":     "math",
	"strings":  "strings",
	"sort":     "sort",
	"slices":   "slices",
	"maps":     "maps",
	"cmp":      "cmp",
	"iter":     "iter",
	"bytes":    "bytes",
	"unicode":  "unicode",
	"utf8":     "unicode/utf8",
	"bufio":    "bufio",
	"io":       "io",
	"regexp":   "regexp",
	"sync":     "sync",
	"context":  "context",
	"time":     "time",
	"os":       "os",
	"errors":   "errors",
	"strconv":  "strconv",
	"ndarray":  "github.com/sparknet-go/sparknet/ndarray",
	"data":     "github.com/sparknet-go/sparknet/data",
	"rdd":      "github.com/sparknet-go/sparknet/rdd",
	"caffe":    "github.com/sparknet-go/sparknet/caffe",
	"display":  "github.com/sparknet-go/sparknet/repl/display",
	"sparknet": "github.com/sparknet-go/sparknet",
	"ui":       "github.com/sparknet-go/sparknet/ui",
}

// inputFile is the file name under which interactive inputs are
// compiled; error positions in it are rewritten to in[N]:line:col.
const inputFile = "sparknet-input"

// rtPath is the import path of the shell's runtime package.
const rtPath = "sparknet-shell/rt"

// A Session is an interpreter with sparknet's packages, the variables sc
// (an RDD context) and ctx (canceled when the running input is
// interrupted), and the inputs evaluated so far. Eval and Load run one
// at a time.
type Session struct {
	opts   Options
	stdout io.Writer
	stderr *traceFilter
	exit   func(int)
	sc     *rdd.Context
	// trainers notices the trainers made on sc (see trainers.go).
	trainers trainerWatch
	ctx      *inputContext
	ui       *ui.UI // sc's web UI and event log, or nil
	// flags is the interpreter's flag.CommandLine, flagArgs the
	// arguments its Parse parses, flagUsage its flag.Usage (flags.go).
	flags     *flag.FlagSet
	flagArgs  []string
	flagUsage func()
	logger    *log.Logger // the interpreter's log.Default (logpkg.go)
	// before is the scope before the input being rewritten (reuseVars);
	// reused, the variables its top-level := assign instead of declaring
	// again, which refreshVarUsers leaves alone.
	before *scopeState
	reused map[string]bool

	group   *ranks   // the SPMD ranks, or nil under a local master
	quiet   bool     // this rank's output is discarded
	devNull *os.File // interpreted code's os.Stdout and os.Stderr when quiet

	budget     int64        // Options.MemoryBudget, resolved
	stackLimit int64        // Options.StackLimit, resolved
	live       atomic.Int64 // goroutines started by go statements, running
	spawned    sync.Map     // their goroutine ids → what their end undoes (see goroutine)
	// scriptDefers are the deferred calls of the top-level statements of
	// the script that RunSource runs, nil when it runs none; scriptPanic
	// is the panic that ended it, while they run, until one recovers it.
	scriptDefers *[]func()
	scriptPanic  *PanicError
	exec         running     // the running execution, for stack probes
	runID        *uint64     // the interpreter's run counter (see restoreRunID)
	runBase      uint64      // its value before any stop
	stopping     atomic.Bool // a stop of goroutines between inputs is under way
	returned     atomic.Bool // the running input's top-level statements ran a return
	park         atomic.Pointer[parking]
	unwatch      chan struct{} // closed to end watchMemory
	wakers       wakers        // what interpreted code made that can wake a goroutine (see watchDeadlock)
	busy         busyClock     // the time the session runs code

	mu       sync.Mutex // serializes evaluation
	in       *interp.Interpreter
	exports  interp.Exports
	imported map[string]map[string]string // file → import name → path
	names    []declared                   // top-level names, in order of declaration
	inputs   []Input                      // accepted inputs
	n        int                          // inputs numbered so far
	lines    []lineSpan                   // where interactive inputs lie in inputFile
	nextLine int                          // first line of the next interactive input
	funcPos  map[string]string            // where named functions were declared
	// writtenLits holds the positions (as a panic's trace gives them) of
	// the function literals that rewrites wrote, which reports leave out.
	writtenLits map[string]bool
	scope       *scope                     // what the type checker knows of the session
	typesSeen   map[string]bool            // type names the interpreter has met at the top level
	hidden      map[string]map[string]bool // per file, the paths imported under the shell's own names
	sources     map[string]bool            // the shell's source packages compiled into the interpreter
	tempSeq     int                        // numbers the temporaries of rewrites
	// laters holds the converters of the session's types for code
	// compiled before them or their methods (the runtime's Later);
	// pendingLater registers those of the segment being run, after each
	// of its chunks in laterChunks (laterConverters).
	// funcSrc holds the session's functions as inputs declared them,
	// by name, numbered in the order of their declarations by
	// funcOrder; refreshing is set while refreshCallers declares
	// functions again.
	funcSrc      map[string]*funcSource
	funcOrder    int
	refreshing   bool
	laterSeq     int // numbers the segments that the typed rewrites rewrite
	laters       atomic.Pointer[laterTable]
	pendingLater []ast.Stmt
	laterChunks  map[int]bool
	shadows      instanceShadows // the instances given type arguments of their own (rewrite_shadow.go)
	generic      bool            // the input being run uses generic types or functions (rewriteChecked)
	unchecked    bool            // evaluating the shell's own prelude
	reached      token.Pos       // where a failed statement chunk stopped
	preludePos   token.Pos       // the position of the checker's declarations of the session
	// docAbove: the lines of the input above the name that DocIn
	// documents (guarded by mu).
	docAbove  string
	atPos     []string     // positions of the running block's statements
	atWrapped []bool       // which of them run inside a function literal
	at        atomic.Int64 // the running block's statement, from At

	// instSeen are the instances of the session's generic types that
	// earlier inputs used, as their checks had them, for the type names
	// of values in interfaces (pastInstances); instPending are those of
	// the input being run, which join them once it ran.
	instSeen, instPending []*types.Named
	// fromCompiled holds the session's types declared as a compiled
	// package's named type (type D time.Duration), by name: the
	// interpreter takes them for that type (see fmtWrapping).
	fromCompiled map[string]bool
	// twins: the session's struct types marked as twins of types of the
	// same fields declared before them (rewrite_twins.go).
	twins map[string]bool
	// sigint: how interpreted code catches SIGINT (deadlock.go).
	sigint sigintHandlers
}

// Input is an input the session accepted: it evaluated without error.
type Input struct {
	N    int    // its number, as in in[N]
	Src  string // what was typed, or loaded
	From string // the file it was loaded from, or ""
}

// declared is a top-level name an input declared.
type declared struct {
	name, kind string // kind: "var", "const", "func", "type"
}

// lineSpan says that input n starts at line first of inputFile.
type lineSpan struct{ first, n int }

// New starts a session: an interpreter, the RDD context sc on
// opts.Master, and the prelude that imports AutoImports.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts, ctx: &inputContext{cur: context.Background()}}
	s.stdout = opts.Stdout
	if s.stdout == nil {
		s.stdout = os.Stdout
	}
	errw := opts.Stderr
	if errw == nil {
		errw = os.Stderr
	}
	s.stderr = &traceFilter{w: errw}
	s.exit = opts.Exit
	if s.exit == nil {
		s.exit = os.Exit
	}
	s.budget, s.stackLimit = opts.MemoryBudget, opts.StackLimit
	if s.budget == 0 {
		s.budget = defaultBudget()
	} else if s.budget < 0 {
		s.budget = math.MaxInt64
	}
	if s.stackLimit <= 0 {
		s.stackLimit = DefaultStackLimit
	}
	master := opts.Master
	if master == "" {
		master = "local[*]"
	}
	sc, err := rdd.NewContextWith(rdd.Options{Master: master, Engine: opts.Engine})
	if err != nil {
		return nil, fmt.Errorf("repl: master %q: %w", master, err)
	}
	s.sc = sc
	if c := sc.Comm(); c != nil {
		s.group = &ranks{comm: c}
		if c.Rank() != 0 && !opts.AllRanksOutput {
			if s.devNull, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0); err != nil {
				sc.Close()
				return nil, fmt.Errorf("repl: %w", err)
			}
			s.quiet = true
			s.stdout = s.devNull
			s.stderr.w = io.Discard
		}
	}
	if err := s.startUI(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.reset(); err != nil {
		s.Close()
		return nil, err
	}
	s.unwatch = make(chan struct{})
	go s.watchMemory(s.unwatch)
	s.watchTrainers()
	return s, nil
}

// Close stops the session's RDD context. Under an SPMD master every rank
// must close its session (closing the context is collective).
func (s *Session) Close() error {
	s.stopWatchingTrainers()
	if s.unwatch != nil {
		close(s.unwatch)
		s.unwatch = nil
	}
	wait := time.Second
	if s.opts.GoroutinePanicsExit {
		// A script run as a program: Go's ends when main returns,
		// whatever its goroutines do; one blocked for good (select {})
		// held the end up for the whole second.
		wait = 50 * time.Millisecond
	}
	s.StopGoroutines(wait)
	err := s.sc.Close()
	s.closeUI()
	if s.devNull != nil {
		s.devNull.Close()
	}
	return err
}

// errOut is where the session writes error reports.
func (s *Session) errOut() io.Writer {
	s.stderr.mu.Lock()
	defer s.stderr.mu.Unlock()
	return s.stderr.w
}

// errTo returns w, or io.Discard when the session is quiet: for reports
// the session's caller writes.
func (s *Session) errTo(w io.Writer) io.Writer {
	if s.quiet {
		return io.Discard
	}
	return w
}

// setErrOut makes w where the session writes error reports, unless the
// session is quiet.
func (s *Session) setErrOut(w io.Writer) {
	if s.quiet {
		return
	}
	s.stderr.mu.Lock()
	defer s.stderr.mu.Unlock()
	s.stderr.w = w
}

// SparkContext returns the session's RDD context, sc.
func (s *Session) SparkContext() *rdd.Context { return s.sc }

// Stdout returns the writer the session writes results to.
func (s *Session) Stdout() io.Writer { return s.stdout }

// inputName is how error positions name interactive inputs.
func (s *Session) inputName() string {
	if s.opts.InputName != "" {
		return s.opts.InputName
	}
	return "in"
}

// Inputs returns the accepted inputs, oldest first.
func (s *Session) Inputs() []Input { return slices.Clone(s.inputs) }

// reset makes a fresh interpreter: variables, functions and types are
// forgotten; sc stays.
func (s *Session) reset() error {
	s.wakers.until.Store(0)
	args := s.opts.Args
	if args == nil {
		args = []string{"sparknet-shell"}
	}
	s.newFlags(args)
	in := interp.New(interp.Options{
		Stdin:        s.opts.Stdin,
		Stdout:       s.stdout,
		Stderr:       s.stderr,
		Args:         args,
		Unrestricted: true, // the real environment; os.Exit stays the shell's
	})
	s.exports = s.symbols()
	if err := in.Use(s.exports); err != nil {
		return fmt.Errorf("repl: loading symbols: %w", err)
	}
	if err := s.useFlagVars(in); err != nil {
		return fmt.Errorf("repl: loading symbols: %w", err)
	}
	if err := s.useLog(in, s.logSymbols()); err != nil {
		return fmt.Errorf("repl: loading symbols: %w", err)
	}
	s.in = in
	s.runID = runIDOf(in)
	if s.runID != nil {
		s.runBase = atomic.LoadUint64(s.runID)
	}
	s.imported = map[string]map[string]string{}
	s.names = nil
	s.funcPos = map[string]string{}
	s.writtenLits = map[string]bool{}
	s.inputs = nil
	s.lines = nil
	// s.n goes on counting: after :reset, as after IPython's %reset, a
	// cell's number (in[N], a notebook's [N]) names one input alone.
	s.nextLine = 1
	s.scope = newScope()
	s.preludePos = token.Pos(in.FileSet().AddFile("sparknet-session", -1, 1).Base())
	s.typesSeen = map[string]bool{}
	s.hidden = map[string]map[string]bool{}
	s.sources = map[string]bool{}
	s.shadows = instanceShadows{}
	s.instSeen, s.instPending = nil, nil
	s.fromCompiled = nil
	s.laters.Store(nil)
	s.funcSrc = nil
	forgetStructNames()
	display.SetShow(s.show)
	display.SetOutput(s.stdout)
	display.SetClock(s.busy.read)
	if err := s.prepare(inputFile, nil); err != nil {
		return err
	}
	s.unchecked = true
	for _, src := range []string{"sc := " + rtName + ".SC()", "ctx := " + rtName + ".Ctx()", "var " + callsVar + " int", "var " + laterVar + " int"} {
		if err := s.evalChunks(context.Background(), inputFile, src, 0, false); err != nil {
			s.unchecked = false
			return fmt.Errorf("repl: prelude: %w", err)
		}
	}
	s.unchecked = false
	s.names = []declared{{"sc", "var"}, {"ctx", "var"}}
	if err := s.declarePrelude(); err != nil {
		return fmt.Errorf("repl: prelude: %w", err)
	}
	return nil
}

// symbols merges the interpreter's standard library, sparknet's tables
// and the shell's runtime package into one set of exports.
func (s *Session) symbols() interp.Exports {
	ex := interp.Exports(baseSymbols())
	osSyms := map[string]reflect.Value{}
	for n, v := range ex["os/os"] {
		osSyms[n] = v
	}
	osSyms["Exit"] = reflect.ValueOf(s.osExit)
	if s.quiet {
		osSyms["Stdout"] = reflect.ValueOf(&s.devNull).Elem()
		osSyms["Stderr"] = reflect.ValueOf(&s.devNull).Elem()
	} else if s.opts.virtualStdio {
		var stdin io.Reader = s.opts.Stdin
		var stdout, stderr io.Writer = s.stdout, s.stderr
		osSyms["Stdin"] = reflect.ValueOf(&stdin).Elem()
		osSyms["Stdout"] = reflect.ValueOf(&stdout).Elem()
		osSyms["Stderr"] = reflect.ValueOf(&stderr).Elem()
	}
	ex["os/os"] = osSyms
	ex["flag/flag"] = s.flagSymbols(ex["flag/flag"])
	s.guardSymbols(ex)
	ex[rtPath+"/rt"] = map[string]reflect.Value{
		"Go":      reflect.ValueOf(s.spawn(false)),
		"GoSlice": reflect.ValueOf(s.spawn(true)),
		"At":      reflect.ValueOf(func(i int) { s.exec.halted(); s.at.Store(int64(i)) }),
		"Return":  reflect.ValueOf(func() { s.returned.Store(true); runtime.Goexit() }),
		"Echo":    reflect.ValueOf(func(v ...any) { s.echo(v, false) }),
		// The builtins print and println (rewrite_typed.go's builtins).
		"BuiltinPrint":   reflect.ValueOf(func(v ...any) { io.WriteString(s.stderr.w, builtinPrint(v, false)) }),
		"BuiltinPrintln": reflect.ValueOf(func(v ...any) { io.WriteString(s.stderr.w, builtinPrint(v, true)) }),
		"PrintIface":     reflect.ValueOf(func(v any) any { return printIface{v} }),
		"EchoCall":       reflect.ValueOf(func(v ...any) { s.echo(v, true) }),
		"SC":             reflect.ValueOf(func() *rdd.Context { return s.sc }),
		"Probe":          reflect.ValueOf(s.probeStack),
		"MakeSize":       reflect.ValueOf(s.makeSize),
		"Park":           reflect.ValueOf(s.parkHere),
		"Recovered":      reflect.ValueOf(s.recoveredValue),
		"Ctx":            reflect.ValueOf(func() context.Context { return s.ctx }),
		"Typed":          reflect.ValueOf(s.typed),
		"TypedRaw":       reflect.ValueOf(s.typedRaw),
		"Raw":            reflect.ValueOf(func(v any) any { return v }),
		// A value as the interface of fmt's that fmt should find in it,
		// which the interpreter wraps it with (fmtWrapping).
		"AsFormatter": reflect.ValueOf(func(v fmt.Formatter) any { return v }),
		"AsError":     reflect.ValueOf(func(v error) any { return v }),
		"AsStringer":  reflect.ValueOf(func(v fmt.Stringer) any { return v }),
		// A method of fmt's interfaces, as a value of the interface.
		"FormatterOf": reflect.ValueOf(func(f func(fmt.State, rune)) any { return formatterFunc(f) }),
		"ErrorOf":     reflect.ValueOf(func(f func() string) any { return errorFunc(f) }),
		"StringerOf":  reflect.ValueOf(func(f func() string) any { return stringerFunc(f) }),
		"Rewrap":      reflect.ValueOf(rewrap),
		"NilWrap":     reflect.ValueOf(nilWrap),
		"NilOr":       reflect.ValueOf(nilOr),
		"NamedPanic":  reflect.ValueOf(func(v any, name string) any { return panicNamed{v, name} }),
		"Key":         reflect.ValueOf(interpValue),
		"MapKey":      reflect.ValueOf(newMapKey),
		"ScriptRecover": reflect.ValueOf(func() any {
			p := s.scriptPanic
			if p == nil {
				return nil
			}
			s.scriptPanic = nil
			return p.Value
		}),
		"Defer": reflect.ValueOf(func(f func()) {
			if s.scriptDefers != nil {
				*s.scriptDefers = append(*s.scriptDefers, f)
			}
		}),
		"Struct":         reflect.ValueOf(newStruct),
		"StructNils":     reflect.ValueOf(newStructNils),
		"Ref":            reflect.ValueOf(newRef),
		"HeldPlain":      reflect.ValueOf(heldPlain),
		"Later":          reflect.ValueOf(s.later),
		"LaterAs":        reflect.ValueOf(s.laterAs),
		"LaterErr":       reflect.ValueOf(s.laterErr),
		"Register":       reflect.ValueOf(s.registerLater),
		"Unmatched":      reflect.ValueOf(func() any { return unmatched }),
		"PairType":       reflect.ValueOf(pairType),
		"GoNames":        reflect.ValueOf(goNames),
		"Index":          reflect.ValueOf(checkIndex),
		"Bounds":         reflect.ValueOf(checkBounds),
		"Shift":          reflect.ValueOf(checkShift),
		"PanicArg":       reflect.ValueOf(panicArg),
		"AssertFail":     reflect.ValueOf(assertFail),
		"AssertTypeFail": reflect.ValueOf(assertTypeFail),
		"AssignIf":       reflect.ValueOf(assignIf),
		"TypedPlain":     reflect.ValueOf(newTyped),
		"AssertInto":     reflect.ValueOf(assertInto),
		"Zero":           reflect.ValueOf(func() float64 { return 0 }),
		"EmptyStruct": reflect.ValueOf(func(v any) bool {
			rv := reflect.ValueOf(v)
			return rv.Kind() == reflect.Struct && rv.NumField() == 0
		}),
		"LogAt": reflect.ValueOf(s.logAt),
		// fmt's functions, their arguments' containers converted
		// (laterArgs).
		"Printf":   reflect.ValueOf(func(format string, a ...any) (int, error) { return s.printf(format, s.laterArgs(a)...) }),
		"Sprintf":  reflect.ValueOf(func(format string, a ...any) string { return sprintf(format, s.laterArgs(a)...) }),
		"Fprintf":  reflect.ValueOf(func(w io.Writer, format string, a ...any) (int, error) { return fprintf(w, format, s.laterArgs(a)...) }),
		"Errorf":   reflect.ValueOf(func(format string, a ...any) error { return errorf(format, s.laterArgs(a)...) }),
		"Appendf":  reflect.ValueOf(func(b []byte, format string, a ...any) []byte { return appendf(b, format, s.laterArgs(a)...) }),
		"Print":    reflect.ValueOf(func(a ...any) (int, error) { return s.print(s.laterArgs(a)...) }),
		"Println":  reflect.ValueOf(func(a ...any) (int, error) { return s.println(s.laterArgs(a)...) }),
		"Sprint":   reflect.ValueOf(func(a ...any) string { return sprint(s.laterArgs(a)...) }),
		"Sprintln": reflect.ValueOf(func(a ...any) string { return sprintln(s.laterArgs(a)...) }),
		"Fprint":   reflect.ValueOf(func(w io.Writer, a ...any) (int, error) { return fprint(w, s.laterArgs(a)...) }),
		"Fprintln": reflect.ValueOf(func(w io.Writer, a ...any) (int, error) { return fprintln(w, s.laterArgs(a)...) }),
	}
	// The interpreter passes a value whose type has the methods that fmt
	// uses (Format, Error, String) to these functions as a value that has
	// them; fmt's printing functions get Error too, which the
	// interpreter's own list lacks.
	mapTypes := map[reflect.Value][]reflect.Type{}
	for _, name := range []string{"Typed", "TypedRaw", "Echo", "EchoCall", "Printf", "Sprintf", "Fprintf", "Errorf", "Appendf",
		"Print", "Println", "Sprint", "Sprintln", "Fprint", "Fprintln"} {
		mapTypes[ex[rtPath+"/rt"][name]] = fmtInterfaces
	}
	for _, name := range []string{"Errorf", "Fprint", "Fprintf", "Fprintln", "Print", "Printf", "Println", "Sprint", "Sprintf", "Sprintln"} {
		mapTypes[ex["fmt/fmt"][name]] = fmtInterfaces
	}
	ex["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(mapTypes)}
	return ex
}

// prepare imports AutoImports and the runtime into file, except the names
// that the file imports itself (own).
func (s *Session) prepare(file string, own map[string]string) error {
	if s.imported[file] != nil {
		return nil
	}
	names := map[string]string{rtName: rtPath}
	for name, path := range AutoImports {
		if _, taken := own[name]; !taken {
			names[name] = path
		}
	}
	var b strings.Builder
	b.WriteString("package main\nimport (\n")
	for _, name := range sortedKeys(names) {
		if typecheck.SourceID(names[name]) != "" {
			continue // a source package: imported where an input uses it
		}
		fmt.Fprintf(&b, "\t%s %q\n", name, names[name])
	}
	b.WriteString(")\n")
	f, err := parser.ParseFile(s.in.FileSet(), file, b.String(), 0)
	if err != nil {
		return fmt.Errorf("repl: prelude: %w", err)
	}
	if _, err := s.compile(f, nil); err != nil {
		return fmt.Errorf("repl: prelude: %w", err)
	}
	s.imported[file] = names
	return nil
}

// Eval evaluates one input typed at the prompt. When the input ends in
// an expression, its value is echoed with its type. ctx cancels it, and
// is the ctx that the input sees.
func (s *Session) Eval(ctx context.Context, src string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if blank(src) {
		return nil
	}
	defer endRoundChain() // the input's display of its Round calls
	s.n++
	first := s.nextLine
	s.lines = append(s.lines, lineSpan{first: first, n: s.n})
	s.nextLine += strings.Count(src, "\n") + 1
	err := s.evalChunks(ctx, inputFile, src, first, true)
	if errors.Is(err, errReturned) {
		err = nil // a return ends the input
	}
	if err == nil {
		s.inputs = append(s.inputs, Input{N: s.n, Src: src})
	}
	return err
}

// Number returns the number the next input will have.
func (s *Session) Number() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n + 1
}

// Reset forgets every variable, function, type and input; sc stays.
// Goroutines that inputs started stop (see StopGoroutines).
func (s *Session) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopInterpreted(2 * time.Second)
	return s.reset()
}
