// Package repl is sparknet-shell: an interactive Go shell on the yaegi
// interpreter with sparknet's packages, an RDD context sc and a context
// ctx ready, plus script, -e and notebook modes.
//
// # Sessions
//
// A Session is the interpreter and what the inputs so far have defined.
// Eval evaluates one input: statements, expressions and declarations,
// mixed freely. When an input ends in an expression its value is printed
// with its type ("42 (int)"); arrays print numpy-style, weight
// collections and nets as tables:
//
//	s, _ := repl.New(repl.Options{Master: "local[2]"})
//	s.Eval(ctx, "a := ndarray.Arange(0, 6, 1).Reshape(2, 3)")
//	s.Eval(ctx, "a.Sum(0)")
//
// # Go, checked
//
// Every input is type-checked with go/types before any of it runs, in
// the session's scope: the earlier inputs' declarations, the imports,
// sc and ctx. What Go rejects is an error in the compiler's words at
// in[N]:line:col (file:line:col in a script), at most ten, one per line,
// and nothing of the input runs:
//
//	>>> func f() (int, error) { return 7, nil }
//	>>> x := f()
//	in[2]:1:6: assignment mismatch: 1 variable but f returns 2 values
//
// The leniency of a prompt: unused variables at the top level and unused
// imports are not errors (but those of a whole file with a package
// clause are, as in Go; and a variable declared in a block, an if, for
// or switch statement, or a function literal is used or an error, as
// in Go, at the top level too), and a top-level declaration replaces an
// earlier one of the same name, in an earlier input or the same one (a
// type too: values of the old type keep it; x := x + 1 uses the old x).
// A top-level x := 5 where the session has a variable x of that type
// assigns it, as Go's := does in one scope, so the functions that use x
// see the new value; of another type, x is a new variable, and the
// functions of earlier inputs that use it are declared again for it
// after the input, where they fit (a constant's too).
// The packages of AutoImports need no import line (an input may still
// use their names for its own declarations); the others are imported as
// in Go. Compiled packages are checked against the interpreter's symbol
// tables; iter, cmp, slices, maps and the generic functions of errors,
// sync and math/rand/v2 are the shell's own source (package typecheck),
// to Go 1.26's API, which the interpreter runs too.
//
// The type information then drives rewrites that make the interpreter
// run the Go of go.mod's version: per-iteration loop variables, range
// over integers and functions, min, max and clear, all type arguments
// spelled out, comma-ok everywhere, deferred calls that take their
// arguments at the defer, the session's types keeping their names and
// methods where compiled code sees them (fmt's %T and %v, the echo,
// errors.Is and errors.As, %+v and %#v of unexported fields), parallel
// assignments and defines whose values the interpreter would drop (a
// define mixing composite literals with other values: n, v := 5, T{1}
// left n 0), a script's package-level variables whose values call
// generic functions, generic functions as values (f := slices.Max[[]int]),
// type aliases declared inside functions,
// Go's run-time errors. Other rewrites keep the
// interpreter from taking the process down: go statements run on
// goroutines that report a panic instead of crashing, and defer at the
// top level is refused (one in the block of a top-level for, if, switch
// or select runs its call when that statement ends, last in first out).
// A script sees its name and the arguments after it in os.Args, and the
// flag package's functions parse them (the shell's own flag set, which
// ends a script on a bad flag as Go's ends a program: status 2, the
// usage on standard error); log.Fatal ends it as it ends a program
// (status 1, no deferred call run), and so do a panic that nothing
// recovers and a deadlock (status 2).
// A return among the top-level statements ends the input as a return in
// main ends a program: the rest of the input does not run, the calls the
// enclosing statements deferred do, and a script ends there.
// A panic in an input, in a goroutine it started or in a callback an RDD
// worker ran comes back as an error; interrupting an input (canceling its
// context) stops interpreted code at once and compiled code that watches
// ctx.
//
// User code cannot end the process with the failures the Go runtime does
// not let a program recover from, as far as they can be seen coming:
// interpreted calls that nest past Options.StackLimit stop with a
// *StackOverflowError (every function body counts its calls and probes
// the stack now and then); make, strings.Repeat and bytes.Repeat refuse
// sizes beyond Options.MemoryBudget with a *MemoryError (a run-time
// panic, as Go's own "makeslice: len out of range"), an input that holds
// a fixed-size value larger than the budget is refused before it runs,
// and a heap that grows past the budget stops the running code.
// StopGoroutines (Ctrl-C at an empty prompt) and Reset stop the
// goroutines that inputs left running. An input whose goroutines all
// wait for each other on channels, selects and locks, with no timer,
// signal or ctx that could wake one, stops with a *DeadlockError in the
// words of Go's runtime ("all goroutines are asleep - deadlock!")
// instead of hanging.
//
// # The shell
//
// Shell adds line editing and history (github.com/chzyer/readline),
// continuation lines while brackets are open, tab completion (which sees
// the names that the lines above of a multi-line input declare), Ctrl-C and
// the commands :help, :doc, :load, :time, :vars, :reset, :stop, :history,
// :save, :paste and :quit. Main is the whole command line of
// sparknet-shell.
//
// # Scripts and notebooks
//
// A script is a package main file or top-level statements; lines "// %%"
// split a file into cells that run as separate inputs, and the leading
// comment lines of a cell are its prose. RunNotebook runs the cells and
// writes a Markdown report with each cell's code, output, tables and
// figures.
//
// # The Jupyter kernel
//
// sparknet-shell --kernel CONNECTION_FILE (RunKernel) puts a session
// behind the Jupyter messaging protocol (package jupyter): each cell is an
// input, as typed at the shell, numbered as Jupyter numbers it, so error
// positions read cell[N]:line:col. Leading lines of a cell that start
// with a colon are commands; a cell that starts with ":time" alone is
// timed whole. Results become execute_result messages and shown values
// display_data, each with text/plain and, where the value has them,
// text/html (tables, arrays), image/png (figures, heat maps, images) or
// text/markdown. Progress bars made by display.NewProgress become one
// display updated in place (update_display_data). Output is routed by
// Session.Origin: what a goroutine writes goes to the cell that started
// it, however much later. Reads of standard input (fmt.Scan, os.Stdin)
// send input_request when the front end allows it. complete_request,
// inspect_request (:doc), is_complete_request, history_request,
// interrupt_request (and SIGINT), shutdown and restart are answered; a
// message with a wrong signature is refused and logged. --install-kernel
// writes the kernelspec; --notebook runs .ipynb files too and writes one
// with --out F.ipynb; --to-ipynb converts a // %% file (ToIPynb). Under
// --master mpi rank 0 is the kernel and the other ranks run its cells.
//
// # On MPI ranks
//
// Started by mpirun with the master "mpi" (in a binary built with -tags
// mpi), every rank runs sparknet-shell, and its session is one rank of an
// SPMD job: rank 0 reads the input (the script, the -e code, the
// notebook, the lines typed or fed on standard input) and sends it to
// every rank; every rank runs it, so all hold the same variables and run
// the same RDD actions; only rank 0 prints:
//
//	mpirun -np 2 sparknet-shell --master mpi count.go   # prints once
//	mpirun -np 2 sparknet-shell --master mpi -i         # a session; -i shows prompts
//
// After each input the ranks compare their errors. An error that every
// rank had shows once; errors that differ show with their ranks
// ("rank 1: open train.idx: no such file"). An input that failed on some
// ranks only stops a script on every rank, and ends an interactive
// session's job (see RankError), since the ranks' variables would differ
// from then on. :quit ends every rank; :reset keeps sc (MPI cannot start
// twice); Ctrl-C ends the job. Options.AllRanksOutput (the flag
// --all-ranks-output) lets every rank print, for debugging.
//
// # Resuming training
//
// sparknet-shell --resume sets sparknet.ResumeFromCheckpoints: trainers
// made with a checkpoint prefix (sparknet.Options.Checkpoint) continue
// from their latest checkpoint, so a script restarted after a failure
// ends with the weights of an uninterrupted run when it trains with
// Trainer.RunTo; the session names the checkpoint each trainer resumes
// from. A checkpoint prefix that holds another run's checkpoints is
// refused unless --overwrite (sparknet.OverwriteCheckpoints) lets the new
// run replace them.
//
// A trainer keeps its replicas in the worker stores until it is closed or
// nothing refers to it; after an input that made trainers the session runs
// the garbage collector, so that the trainers the input replaced (a cell
// run again) give their replicas back at once.
//
// --latency DELAY ($SPARKNET_LATENCY) sets sparknet.InjectedLatency: every
// trainer whose options set no Latency waits DELAY for each broadcast and
// each collection of a round, as over a network with that latency.
// scripts/netcluster.sh passes it to its hosts on kernels without netem.
//
// # The web UI
//
// Options.UI starts the web UI and event log of sc (package ui): the
// command line serves it at http://127.0.0.1:4040/ or the next free
// port (--ui-port, --no-ui, $SPARKNET_UI_PORT), writes the event log
// with --event-log DIR ($SPARKNET_EVENT_LOG), and prints the address in
// the banner, or on stderr for scripts, -e, notebooks and the Jupyter
// kernel; :ui shows it again. Under MPI, rank 0 serves it and shows every
// rank.
//
// # Display
//
// Package display draws tables, sparklines, figures and training
// progress; the session installs its hooks so that display.Show in a
// script shows a value the way an echoed result is shown, and so that
// progress displays count only the time the session runs code. The
// interactive shell also installs a sparknet.SetWatcher watcher: a
// trainer's rounds show their progress at the prompt without a
// display.TrackTrainer.
//
// BUG(repl): The interpreter names only the function a panic passed
// through, not the line: a report places a panic at its top-level
// statement exactly and in a function at the function's declaration.
//
// BUG(repl): Some failures are fatal errors of the Go runtime, which no
// recover stops: interpreted code that writes a map from two goroutines
// at once ends the process, as does memory that runs out faster than the
// session's watch sees it grow, one huge allocation inside a compiled
// function (slices.Grow(s, 1<<40)), and compiled code that recurses
// without end. So does a panic in an interpreted function that compiled
// code calls on a goroutine of its own (time.AfterFunc); callbacks of rdd
// and caffe are guarded. :help limits lists these.
//
// BUG(repl): The interpreter keeps the first declaration of a method. At
// the prompt and in a notebook a method goes through a function variable
// that a later declaration with the same receiver and signature replaces
// (so a call of it costs one interpreted call more: a loop of method calls
// at the prompt runs about 1.7 times as long as in a script); a method
// declared again with another signature, or declared in a script (:load
// too), or calling recover itself, or of a generic type, is refused, with
// the advice to declare its type again (then its methods).
//
// BUG(repl): The interpreter compiles the methods of generic types'
// instances under the method's name and type arguments alone: of two
// generic types with a method of the same name (Stack[T] and Queue[T],
// both with Len), instantiated with the same type arguments (Stack[int],
// Queue[int]), the second's method would run the first's body. The shell
// gives the second instance type arguments of its own, for type arguments
// of basic types without methods (int, or a declared ID int) that the
// type parameters' constraints take; an instance whose type arguments
// are structs or have methods (Stack[Point], Queue[Point]), or of
// a generic type that embeds an instance of another (SortedBox[T]
// embedding SliceBox[T], both with Add), still gets the first type's
// method and fails ("reflect.Set: value of type *struct {...} is not
// assignable", "call of unknown method on struct Value"). Instances made
// only inside generic code are not seen.
//
// BUG(repl): The interpreter's generics fail in places the shell does not
// rewrite: a generic function that calls another with its own type
// parameters as type arguments, instantiated with a type that is not
// predeclared, where the interpreter cannot infer them from the call's
// arguments (Count(xs) in Dups[T] works for Dups[ID]; a type parameter
// only in a function parameter's results, or in a constraint, S ~[]E, is
// not inferred); generic types whose methods are called with such types;
// a generic function instantiated with another package's named type
// that is not a struct (Twice(time.Second), float64(a) in Ratio[T] of a
// time.Duration); a conversion
// to a type parameter in a generic function that only a later input
// instantiates with a named type (the input that declares it and so
// instantiates it converts through reflection); a method of a generic type that calls a generic function with
// the type's parameters as type arguments (newSet[T]() in a method of
// Set[T], walk(t.root, visit) in Tree[T].InOrder, min(b.v, c) in a
// method of Box[T]; in a generic function min and max work), for an
// instance with a type argument that is not predeclared (Set[ID];
// Set[string] works); an instance whose type argument is an
// instance, inside generic code (&node[entry[K, V]]{} in a method of
// Tree[K, V]; outside generic code such types work); a method of a
// generic type that embeds another generic type whose method of the same
// name it overrides (SortedBox[T] embedding SliceBox[T], both with Add):
// the call runs the embedded type's method on the outer value ("call of
// unknown method on struct Value"); a comparison of a sum, product or bitwise
// operation (if n+1 == 0) in a method of a generic type where a generic
// function declares or makes a slice of that type and appends to it
// ("not a generic type"); in generic code, a call of a generic function
// with a type argument made of an instance of the code's type parameters
// that the call's arguments do not give directly (E of S ~[]E:
// slices.Clone(ps) of a []Pair[K, V] in a generic function of K and V;
// where the arguments give it, apply(Box[K]{k}) or slices.SortFunc(ps,
// cmp), it works). These fail to compile ("the interpreter failed
// on this input"), not silently. A generic type with two or more type
// parameters that refers to itself (type node[K, V any] struct{ next
// *node[K, V] }) is refused: its instantiation overflowed the
// interpreter's stack, ending the process. The shell's slices, maps and iter
// call no generic function from another for that reason; their sorts are
// stable (Go's are for up to 12 elements only).
//
// BUG(repl): The interpreter holds a value of a declared type in a
// compiled interface type with methods (error, fmt.Stringer) as a wrapper
// of its own, which compares as no Go value does. The shell rewrites what
// the input spells out (conversions, assertions, type switches, == and
// !=, switches on such a value) to behave as Go, and the shell's slices
// compare what the wrappers hold, but other generic code compares the
// wrappers themselves: the == of a generic function of the session's, or
// maps.Equal, with an error value of a declared type on both sides
// panics ("comparing uncomparable type interp._error").
//
// BUG(repl): Values of two declared types with the same underlying type
// are equal as interface values (the interpreter gives both one reflect
// type): any(A(1)) == any(B(1)) is true, such keys of a map[any]
// collide, and x.(A) is true of any int x. So in an interface that could
// hold the underlying type too (an any), only values of the session's
// struct types keep their type's name: %T of an any holding an A prints
// int (in an interface with A's methods, A is named). (Struct types of
// the same fields are told apart: the later one gets a field of its own,
// which reflection sees; see the BUG on reflection.)
//
// BUG(repl): Struct types that refer to each other (type X struct{ Ys
// []Y }; type Y struct{ Xs []X }), or a struct type that refers to
// itself and to such types, can fail to compile where one is used as a
// field of another ("cannot use type main.X as type unsafe2.dummy"), or
// fail when a value is stored ("reflect.Set: value of type ... is not
// assignable"), and now and then a use of them ends the process (a
// fault): the interpreter builds their reflection types in pieces. A
// type that refers only to itself (a tree, a list) works.
//
// BUG(repl): Reflection sees the session's structs as the interpreter
// builds them: unnamed struct types whose fields are all exported (an
// unexported p as Xp, tagged json:"-" and xml:"-" so that those packages
// leave it out as Go does), and an embedded struct as a field of its
// name. So encoding/json writes an embedded struct's fields under its
// name ({"Base":{"ID":1}}, not {"ID":1}), encoding/xml needs an XMLName
// field for the element's name, and errors name no type ("Go struct
// field .id"). A struct with a field p and a field Xp fails to compile
// ("reflect.StructOf: duplicate field Xp"). A struct type declared after
// another of the same fields has a first field of its own,
// X_sn_twin_Name struct{} (so that the interpreter tells the two types
// apart): printing and encoding leave it out, reflection counts it.
//
// BUG(repl): Goroutines of an earlier input that took part in a
// deadlock go on waiting on their channels when the input stops (the
// interpreter cannot wake them): a later send on such a channel may go to
// them. One waiting in a compiled call (a sync.Mutex's Lock) waits for
// ever. Deadlock detection does not see channels that compiled code makes
// and feeds from goroutines of its own (ui.State.Changed): waiting on one
// alone can be taken for a deadlock.
//
// BUG(repl): An index or slice expression out of range panics with Go's
// message, index and length included, outside loops; inside a loop
// (where a check would cost an interpreted call per element), and where
// the indexed operand or a slice's upper bound holds a call other than
// len or cap (f()[i], s[:f()]) or a receive, or for a slice of three
// indices, the message leaves out the numbers: "runtime error: index out
// of range". For the same reason a failed assertion x.(T) of one value
// to one of the session's types names the types by their structure
// inside a loop (interface {} is struct { S float64 }, not main.Sq).
//
// BUG(repl): The names of the session's types reach compiled code where
// the checker sees the value: fmt's functions, the echo, errors.As. A
// value that compiled code stores and hands back (in an []any, a
// container of its own) is named by its structure (but for fmt's %T and
// %#v, which name the session's struct types they find in a type:
// map[string]main.K, where two such types with the same fields are
// named as the one declared last), and so is a value of
// an instance of a generic type in an interface or a type parameter
// inside generic code: %T prints struct { V int }. Outside generic code,
// the instances that the input names (Box[int], *Pair[string, int]), or
// that earlier inputs used, keep their names; a function compiled before
// any input used an instance names that instance by its structure. (A
// function declared in an earlier input than a type, or than the type's
// methods, prints the type's values as Go does: each input registers a
// converter for the types it declares or gives methods, which such a
// function asks at run time.)
//
// BUG(repl): A nil slice, map or function of a session's type put in a
// compiled interface type with methods (sort.Interface, fmt.Stringer:
// sort.Sort of a nil Names, type Names []string) becomes a nil
// interface, and the method panics; fmt prints <nil> for such a nil
// value whose type has a String method (var t Tags; fmt.Println(t)),
// where Go calls the method. The interpreter makes the interface value
// that way. A nil pointer (var p *E; var err error = p, the "non-nil nil
// error" of Go's FAQ) is not nil, as in Go: the shell makes the
// interface value of it. In an any, or in an interface the session
// declares, such values are not nil, as in Go.
//
// BUG(repl): text/template and other packages that find methods by
// reflection do not see the methods of the session's types ({{.Total}}
// on a struct with a Total method: "can't evaluate field Total"); their
// fields they see. A function type with a String method prints as an
// address.
//
// BUG(repl): A deferred call of a function held in a variable declared
// in a loop's body (g := func() {...}; defer g(), or a literal that
// calls g) runs the first of them and then hangs: the interpreter's.
// Deferred method calls in loops (defer f.Close()) and literals that
// take what they need as arguments (defer func(n int) {...}(i)) work.
//
// BUG(repl): Code compiled before a method of a type was declared (a
// function of an earlier input, or, in one input without a package
// clause, a function above the method) prints the type's values with
// the method, and its assertions and type switches to error,
// fmt.Stringer, fmt.Formatter, sort.Interface, io.Reader, io.Writer and
// the interfaces the session declares see it, and so do errors.As,
// errors.Is and errors.Unwrap there, as Go does; assertions to other
// interfaces of compiled packages do not. (There errors.As with a
// target of a type of the session's that never implements error returns
// false, where Go panics.) A function declared again in a later input is
// what the functions and methods of earlier inputs call (they are
// declared again after it, from their source), generic functions
// included, but not what a function value taken before calls (f := g).
//
// BUG(repl): A value of a session's type whose methods have value
// receivers, once in a variable or result of an interface type (error,
// fmt.Stringer), reaches compiled code as the interpreter keeps it: as
// its bare structure (var e error = T{...}), where %T and errors.As panic
// with reflect's "Call using struct {...} as type error", or in the
// interpreter's wrapper (a function's error result), which %T names
// interp._error and errors.As does not match. Pointer receivers (*T)
// work.
//
// BUG(repl): A value of a compiled type is not seen to implement an
// interface type written in the session, named or not: with type multi
// interface{ Unwrap() []error }, err.(multi) is false for the error that
// fmt.Errorf makes of two %w, and errors.As(err, &m) with m a multi finds
// nothing, where Go finds that error. Assertions to the interfaces of
// compiled packages (error, fmt.Stringer, io.Reader) work, and so does
// errors.As with a target of one of the session's concrete types.
//
// BUG(repl): A map whose keys are of an interface type with methods
// (Shape, error) is a map with keys of type any in the code the
// interpreter runs, so that its keys compare as Go compares them: %T and
// the checker name its type, but a generic function it is passed to
// sees keys of type any (maps.Keys(m) yields any values), and so does
// reflection.
//
// BUG(repl): A goto back to a label before a select statement (a loop
// built of a goto around a select) is refused: the interpreter's compiler
// recursed without end on it, ending the process. A for loop around the
// select runs.
//
// BUG(repl): A predeclared name (true, len) that a top-level statement
// of an input declares again can be that variable in the statements of the
// input above it too, where Go's would be the predeclared one: declare it
// in an input of its own, or give it another name.
//
// BUG(repl): In a function that defers calls inside a loop, a deferred
// call that panics still stops the calls deferred before it (the
// interpreter runs them in a loop that the panic leaves); elsewhere the
// shell runs them, as Go does.
//
// BUG(repl): defer in the body of a range over a function is refused:
// the body runs as a function of its own, so the deferred call would run
// at the end of the iteration.
//
// BUG(repl): The interpreter does not find the methods that a value of
// a struct type (not a pointer) has from an embedded field of a
// compiled type (*bytes.Buffer, *ndarray.Array, and interfaces:
// sort.Interface, io.Reader, error, whose field the interpreter sees as
// named) where the value is
// printed or put into an interface ("method not found: String"): the
// shell declares them on the type, as methods that call the field's,
// after the input that declares the type (in a script, with it), but
// not those whose signatures name a package the interpreter has no
// table of.
//
// BUG(repl): A type declared as a compiled package's named type (type D
// time.Duration, type Mode caffe.Phase) is that type to the
// interpreter. fmt's functions and the echo print its values as Go does
// where the input spells out their type (D(5), a []D, a struct's field
// of type D), but in an interface (an any, error, fmt.Stringer) they
// have that type's methods, not the session's: an any holding a D
// prints 1s where Go prints 1000000000.
//
// BUG(repl): In a notebook, os.Stdout, os.Stderr and os.Stdin are
// writers and a reader of the kernel's, not *os.File values: their
// WriteString, Name and Fd, and passing them where an *os.File goes,
// fail. A compiled call that ignores ctx (solver.Step with
// context.Background(), time.Sleep) goes on after an interrupt until it
// returns, though nothing of the interrupted input runs after it; and
// until then the count of the interpreter's runs stays where the stop
// left it, so closures made before the stop do nothing when called.
package repl
