package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/repl/display"
	"github.com/sparknet-go/sparknet/repl/jupyter"
)

// KernelName is the name of sparknet-shell's kernelspec, and
// KernelDisplayName what Jupyter's menus call it.
const (
	KernelName        = "sparknet"
	KernelDisplayName = "SparkNet (Go)"
)

// KernelOptions configure RunKernel.
type KernelOptions struct {
	// Session configures the kernel's session; its streams, Show and
	// Result are the kernel's own.
	Session Options
	// ConnectionFile is the connection file Jupyter wrote for the kernel.
	ConnectionFile string
	// Log receives the kernel's log: refused messages, protocol errors;
	// nil means os.Stderr.
	Log io.Writer
}

// Kernel is a session behind the Jupyter protocol: the cells of a
// notebook are the inputs of one session, as typed at the shell.
type Kernel struct {
	s      *Session
	sh     *Shell // runs the : commands, and under an SPMD master shares inputs
	srv    *jupyter.Server
	out    *router
	logw   io.Writer
	stop   context.CancelFunc
	closed bool

	mu      sync.Mutex
	cancel  context.CancelFunc // cancels the running cell, or nil
	running *kernelCell        // the running cell, or nil
}

// kernelCell is the sink of one execute request's output: it publishes
// on the iopub channel with the request as parent.
type kernelCell struct {
	k      *Kernel
	req    *jupyter.Message
	count  int
	silent bool
	stdin  bool // the front end accepts input requests
}

func (c *kernelCell) publish(typ string, content any) {
	if c.silent {
		return
	}
	if err := c.k.srv.Publish(&c.req.Header, typ, content); err != nil {
		c.k.srv.Logf("%v", err)
	}
}

func (c *kernelCell) stream(name, text string) {
	c.publish("stream", map[string]any{"name": name, "text": text})
}

func (c *kernelCell) display(data, meta map[string]any, id string, update bool) {
	content := map[string]any{"data": data, "metadata": meta, "transient": map[string]any{}}
	typ := "display_data"
	if id != "" {
		content["transient"] = map[string]any{"display_id": id}
		if update {
			typ = "update_display_data"
		}
	}
	c.publish(typ, content)
}

func (c *kernelCell) result(data, meta map[string]any) {
	c.publish("execute_result", map[string]any{"execution_count": c.count, "data": data, "metadata": meta})
}

func (c *kernelCell) fail(ename, evalue string, tb []string) {
	c.publish("error", map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
}

// RunKernel runs a Jupyter kernel on the connection file until a client
// shuts it down, and returns the exit status. Under an SPMD master rank
// 0 is the kernel and the other ranks run every cell with it.
func RunKernel(opts KernelOptions) int {
	logw := opts.Log
	if logw == nil {
		logw = os.Stderr
	}
	k, err := StartKernel(opts)
	if err != nil {
		fmt.Fprintln(logw, "sparknet-shell:", err)
		var ce *connError
		if errors.As(err, &ce) {
			return 2
		}
		return 1
	}
	if k.srv == nil { // a rank that follows rank 0
		defer k.s.Close()
		return k.follow()
	}
	defer k.Close()
	return k.Serve(context.Background())
}

// connError is an error in the connection file.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

// StartKernel reads the connection file, starts the session and listens
// on the channels. Under an SPMD master a rank other than 0 gets a
// kernel without channels whose shell follows rank 0 (see RunKernel).
func StartKernel(opts KernelOptions) (*Kernel, error) {
	logw := opts.Log
	if logw == nil {
		logw = os.Stderr
	}
	info, err := jupyter.ReadConnectionFile(opts.ConnectionFile)
	if err != nil {
		return nil, &connError{err}
	}
	k := &Kernel{logw: logw, out: &router{}}
	sopts := opts.Session
	sopts.Stdout = k.out.writer("stdout")
	sopts.Stderr = k.out.writer("stderr")
	sopts.Stdin = &kernelStdin{k: k}
	sopts.Show = k.out.show
	sopts.Result = k.out.result
	sopts.InputName = "cell"
	sopts.virtualStdio = true
	if sopts.Args == nil {
		sopts.Args = []string{"sparknet-shell"}
	}
	s, err := New(sopts)
	if err != nil {
		return nil, err
	}
	s.announceUI(logw) // the notebook's :ui shows it too
	k.s, k.out.s = s, s
	k.sh = &Shell{s: s, opts: ShellOptions{Session: sopts}, out: s.Stdout(), errw: s.errOut()}
	if s.group != nil && s.group.rank() != 0 {
		return k, nil // rank 0 is the kernel; this rank runs its inputs
	}
	k.srv, err = jupyter.Listen(*info, logw)
	if err != nil {
		k.stopRanks()
		s.Close()
		return nil, err
	}
	if k.srv.Info != *info {
		// Ports of 0 became free ports: tell the client.
		if err := k.srv.Info.WriteFile(opts.ConnectionFile); err != nil {
			k.srv.Close()
			k.stopRanks()
			s.Close()
			return nil, fmt.Errorf("jupyter: writing the ports picked to %s: %w", opts.ConnectionFile, err)
		}
	}
	display.SetLive(k.out.newLive)
	return k, nil
}

// stopRanks ends the shells of the other ranks under an SPMD master.
func (k *Kernel) stopRanks() {
	if k.s.group != nil {
		k.s.share(&input{EOF: true})
	}
}

// Close stops the kernel's channels and ends its session.
func (k *Kernel) Close() error {
	if k.closed {
		return nil
	}
	k.closed = true
	display.SetLive(nil)
	if k.srv != nil {
		k.srv.Close()
	}
	k.out.flush()
	k.stopRanks()
	return k.s.Close()
}

// Serve answers requests until a client shuts the kernel down, and
// returns the exit status.
func (k *Kernel) Serve(ctx context.Context) int {
	ctx, k.stop = context.WithCancel(ctx)
	// Training shows its progress, a display updated in place, without
	// being asked, as at the shell's prompt.
	defer sparknet.SetWatcher(sparknet.SetWatcher(watchTraining))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for {
			select {
			case <-sigs:
				k.interrupt()
			case <-ctx.Done():
				return
			}
		}
	}()
	go k.watchParent(ctx)
	k.srv.Serve(ctx, k.handle)
	return 0
}

// watchParent ends the kernel when the process that started it (named
// by JPY_PARENT_PID, which Jupyter sets) is gone, so that a crashed
// front end leaves no kernel behind.
func (k *Kernel) watchParent(ctx context.Context) {
	pid, err := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
	if err != nil || pid <= 1 || os.Getppid() != pid {
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if os.Getppid() != pid {
				k.srv.Logf("the front end (process %d) is gone; the kernel stops", pid)
				k.interrupt()
				k.stop()
				return
			}
		}
	}
}

// handle answers one request.
func (k *Kernel) handle(r *jupyter.Request) {
	switch r.Type() {
	case "kernel_info_request":
		r.Reply(k.info())
	case "execute_request":
		k.execute(r)
	case "complete_request":
		k.complete(r)
	case "inspect_request":
		k.inspect(r)
	case "is_complete_request":
		k.isComplete(r)
	case "history_request":
		k.history(r)
	case "comm_info_request":
		r.Reply(map[string]any{"status": "ok", "comms": map[string]any{}})
	case "interrupt_request":
		k.interrupt()
		r.Reply(map[string]any{"status": "ok"})
	case "shutdown_request":
		var c struct {
			Restart bool `json:"restart"`
		}
		r.Decode(&c)
		k.interrupt()
		r.Reply(map[string]any{"status": "ok", "restart": c.Restart})
		k.stop()
	case "comm_open", "comm_msg", "comm_close":
		// No comm targets: widgets are not supported.
	default:
		k.srv.Logf("%s channel: unknown message type %q ignored", r.Channel, r.Type())
	}
}

// LanguageInfo is the language_info of the kernel and its notebooks.
func LanguageInfo() map[string]any {
	return map[string]any{
		"name":               "go",
		"version":            strings.TrimPrefix(runtime.Version(), "go"),
		"mimetype":           "text/x-go",
		"file_extension":     ".go",
		"pygments_lexer":     "go",
		"codemirror_mode":    "go",
		"nbconvert_exporter": "script",
	}
}

func (k *Kernel) info() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       jupyter.ProtocolVersion,
		"implementation":         "sparknet-shell",
		"implementation_version": Version(),
		"language_info":          LanguageInfo(),
		"banner":                 strings.Replace(k.sh.Banner(), ":quit or Ctrl-D to leave", "Kernel > Shut Down to leave", 1),
		"help_links":             []any{},
	}
}

// execute runs a cell.
func (k *Kernel) execute(r *jupyter.Request) {
	var c struct {
		Code            string            `json:"code"`
		Silent          bool              `json:"silent"`
		StoreHistory    *bool             `json:"store_history"`
		UserExpressions map[string]string `json:"user_expressions"`
		AllowStdin      bool              `json:"allow_stdin"`
		StopOnError     *bool             `json:"stop_on_error"`
	}
	if err := r.Decode(&c); err != nil {
		r.Reply(map[string]any{"status": "error", "ename": "BadRequest", "evalue": err.Error(), "traceback": []string{err.Error()}, "execution_count": k.s.Number() - 1})
		return
	}
	count := k.s.Number()
	if blank(c.Code) {
		count--
	}
	cell := &kernelCell{k: k, req: r.Message, count: count, silent: c.Silent, stdin: c.AllowStdin}
	cell.publish("execute_input", map[string]any{"code": c.Code, "execution_count": count})
	ctx, cancel := context.WithCancel(context.Background())
	k.mu.Lock()
	k.cancel, k.running = cancel, cell
	k.mu.Unlock()
	k.out.begin(cell)
	err := k.runCell(WithOrigin(ctx, cell), c.Code)
	k.mu.Lock()
	k.cancel, k.running = nil, nil
	k.mu.Unlock()
	cancel()
	display.EndLive()
	k.out.flush()
	if !blank(c.Code) && k.s.Number() == count {
		k.s.skipNumber() // a command cell: its number is used up all the same
	}
	if c.Silent || c.StoreHistory != nil && !*c.StoreHistory {
		// A front end's own request (a variable inspector's): no
		// execution count of its own, nor a place in the history.
		count--
		k.s.unnumber(count)
	}
	if err != nil {
		k.out.fail(cell, err)
		ename, evalue, tb := errorParts(err)
		r.Reply(map[string]any{"status": "error", "execution_count": count, "ename": ename, "evalue": evalue, "traceback": tb})
		if c.StopOnError == nil || *c.StopOnError {
			k.srv.AbortQueued()
		}
		return
	}
	r.Reply(map[string]any{"status": "ok", "execution_count": count, "payload": []any{}, "user_expressions": k.userExpressions(c.UserExpressions)})
}

// runCell runs a cell's code: lines at its start that begin with a colon
// are commands, the rest is Go; a cell that starts with ":time" alone on
// its line is timed whole.
func (k *Kernel) runCell(ctx context.Context, code string) error {
	rest := code
	skipped := 0 // lines before rest, which stay as empty lines: positions count from the cell's first line
	for {
		line, after, _ := strings.Cut(rest, "\n")
		t := strings.TrimSpace(line)
		if t == "" && after != "" {
			rest = after
			skipped++
			continue
		}
		if !strings.HasPrefix(t, ":") {
			break
		}
		if t == ":time" && !blank(after) { // time the rest of the cell
			return k.runInput(ctx, input{Command: ":time " + after})
		}
		if err := k.runInput(ctx, input{Command: t}); err != nil {
			return err
		}
		rest = after
		skipped++
		if after == "" {
			return nil
		}
	}
	if blank(rest) {
		return nil
	}
	err := k.runInput(ctx, input{Code: strings.Repeat("\n", skipped) + rest})
	if err != nil {
		if h := cellHint(rest); h != "" {
			err = hintedError{err, h}
		}
	}
	return err
}

// cellHint returns advice for a cell that failed and holds lines in the
// forms of IPython's magics, shell escapes and inspection, or a command
// after code; "" for others.
func cellHint(code string) string {
	for line := range strings.Lines(code) {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "%"):
			return "(IPython's %magics are commands here, which start with a colon at the start of a cell: :time, :doc, :vars; :help lists them)"
		case strings.HasPrefix(t, "!") && len(t) > 1 && t[1] != '=' && t[1] != '(':
			return "(a shell escape (!cmd) is not Go; os/exec runs a command: exec.Command(\"ls\").Output())"
		case strings.HasSuffix(t, "?") && !strings.HasPrefix(t, "//"):
			return "(to see a name's documentation, press Shift-Tab on it, or use :doc NAME at the start of a cell)"
		case strings.HasPrefix(t, ":"):
			return "(commands go at the start of a cell, before its Go code)"
		}
	}
	return ""
}

// hintedError is a cell's error with advice on its last line.
type hintedError struct {
	err  error
	hint string
}

func (e hintedError) Error() string { return e.err.Error() + "\n" + e.hint }
func (e hintedError) Unwrap() error { return e.err }

// kernelCommands are the commands that make no sense in a notebook.
var kernelCommands = map[string]string{
	"quit":  "the kernel stops with the front end's Shut Down (Kernel menu), not :quit",
	"paste": "paste code into a cell instead",
}

// runInput runs an input as the shell does (see Shell.runInput), and
// returns its error: under an SPMD master it first goes to every rank,
// and the ranks' outcomes are compared after it.
func (k *Kernel) runInput(ctx context.Context, in input) error {
	if in.Command != "" {
		name := commandName(in.Command)
		if why, ok := kernelCommands[name]; ok {
			return fmt.Errorf(":%s: %s", name, why)
		}
		if c, ok := commands[name]; !ok || c.run == nil {
			return fmt.Errorf("unknown command :%s; the commands are %s (:help for more)", name, strings.Join(commandNames(), " "))
		}
	}
	if err := k.s.share(&in); err != nil {
		return err
	}
	return k.execInput(ctx, in)
}

// follow runs, on a rank other than 0 under an SPMD master, the inputs
// that rank 0's kernel sends, until it shuts down.
func (k *Kernel) follow() int {
	defer sparknet.SetWatcher(sparknet.SetWatcher(watchTraining))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			k.s.abort(130, fmt.Sprintf("interrupted (SIGINT) on rank %d", k.s.group.rank()))
		}
	}()
	for {
		var in input
		if err := k.s.share(&in); err != nil {
			fmt.Fprintln(k.logw, "sparknet-shell:", err)
			return 1
		}
		if in.EOF {
			return 0
		}
		k.execInput(context.Background(), in)
	}
}

// execInput runs an input that every rank has.
func (k *Kernel) execInput(ctx context.Context, in input) error {
	sh := k.sh
	sh.deferReports, sh.pending = true, nil
	if in.Command != "" {
		sh.command(in.Command) // :load and :time make sh.cancel, which interrupt calls
	} else {
		sh.pending = k.s.Eval(ctx, in.Code)
	}
	sh.deferReports = false
	err := k.s.settle(sh.pending)
	sh.pending = nil
	var re *RankError
	if errors.As(err, &re) && re.Partial() {
		msg := "sparknet-shell: the input failed on some ranks only, so the ranks' sessions differ from here on; the job ends.\n" + re.Error()
		k.s.abort(1, msg)
	}
	var ex *ExitError
	if errors.As(err, &ex) {
		return kernelExit{ex}
	}
	return err
}

// kernelExit is an os.Exit in a cell, which ends the cell (ename Exit),
// not the kernel.
type kernelExit struct{ ex *ExitError }

func (e kernelExit) Error() string {
	return fmt.Sprintf("os.Exit(%d) ends a script, not the kernel; the session goes on (Kernel > Shut Down stops it)", e.ex.Code)
}

func (e kernelExit) Unwrap() error { return e.ex }

// cancelRunning cancels the running cell.
func (k *Kernel) cancelRunning() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cancel != nil {
		k.cancel()
	}
}

// interrupt stops the running cell as Ctrl-C does at the shell: loops,
// RDD jobs and training stop and the session goes on. Under an SPMD
// master it ends the job, as Ctrl-C does there.
func (k *Kernel) interrupt() {
	if k.s.group != nil {
		k.mu.Lock()
		running := k.running != nil
		k.mu.Unlock()
		if running {
			k.s.abort(130, "interrupted (interrupt_request) on rank 0")
		}
		return
	}
	k.mu.Lock()
	running := k.running != nil
	k.mu.Unlock()
	k.cancelRunning()
	k.sh.mu.Lock()
	if k.sh.cancel != nil {
		k.sh.cancel()
	}
	k.sh.mu.Unlock()
	if !running {
		// Between cells, as Ctrl-C at an empty prompt: stop the
		// goroutines that earlier cells left running.
		go k.sh.stopGoroutines()
	}
}

// userExpressions evaluates the expressions of an execute request.
func (k *Kernel) userExpressions(exprs map[string]string) map[string]any {
	out := map[string]any{}
	for name, expr := range exprs {
		v, err := k.s.valueOf(expr)
		if err != nil {
			out[name] = map[string]any{"status": "error", "ename": "Error", "evalue": err.Error(), "traceback": []string{err.Error()}}
			continue
		}
		data, meta := mimeBundle(v)
		out[name] = map[string]any{"status": "ok", "data": data, "metadata": meta}
	}
	return out
}

// kernelStdin is the session's standard input: a read asks the front
// end for a line (input_request) and waits for it.
type kernelStdin struct {
	k    *Kernel
	mu   sync.Mutex
	rest []byte // what the last line left unread
}

func (in *kernelStdin) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.rest) > 0 {
		n := copy(p, in.rest)
		in.rest = in.rest[n:]
		return n, nil
	}
	k := in.k
	k.mu.Lock()
	cell := k.running
	k.mu.Unlock()
	if cs, ok := k.s.Origin().(*kernelCell); ok && cs != nil {
		cell = cs
	}
	if cell == nil || !cell.stdin {
		return 0, errors.New("standard input: this front end does not take input (allow_stdin is false); give the values in the code")
	}
	k.out.flush() // the prompt printed before the read shows first
	ctx := k.s.ctx.get()
	line, err := k.srv.Input(ctx, cell.req, "", false)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ErrInterrupted
		}
		return 0, err
	}
	n := copy(p, line+"\n")
	in.rest = []byte(line + "\n")[n:]
	return n, nil
}

// complete answers a complete_request with the shell's completion.
func (k *Kernel) complete(r *jupyter.Request) {
	var c struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	r.Decode(&c)
	before := prefixRunes(c.Code, c.CursorPos)
	line := before[strings.LastIndexByte(before, '\n')+1:]
	word, cands := k.s.CompleteIn(before[:len(before)-len(line)], line)
	if cands == nil {
		cands = []string{}
	}
	pos := utf8.RuneCountInString(before)
	r.Reply(map[string]any{
		"status":       "ok",
		"matches":      cands,
		"cursor_start": pos - utf8.RuneCountInString(word),
		"cursor_end":   pos,
		"metadata":     map[string]any{},
	})
}

// prefixRunes returns the first n code points of s (Jupyter counts
// cursor positions in code points).
func prefixRunes(s string, n int) string {
	if n < 0 {
		return ""
	}
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// inspect answers an inspect_request (Shift-Tab) with :doc's text for the
// name at the cursor.
func (k *Kernel) inspect(r *jupyter.Request) {
	var c struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	r.Decode(&c)
	before := prefixRunes(c.Code, c.CursorPos)
	name := nameAt(c.Code, len(before))
	reply := map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}
	if name != "" {
		// The lines above the cursor's, and its line's indentation.
		line := before[strings.LastIndexByte(before, '\n')+1:]
		above := before[:len(before)-len(line)] + line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if text, err := k.s.DocIn(above, name); err == nil {
			reply["found"] = true
			reply["data"] = map[string]any{"text/plain": text}
		}
	}
	r.Reply(reply)
}

// nameAt returns the dotted name (pkg.Func, x.Method) at byte offset off
// of code; in the arguments of a call, the function called.
func nameAt(code string, off int) string {
	isName := func(r byte) bool {
		return r == '_' || r == '.' || r >= 0x80 || unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r))
	}
	if off > len(code) {
		off = len(code)
	}
	word := func(off int) string {
		start, end := off, off
		for start > 0 && isName(code[start-1]) {
			start--
		}
		for end < len(code) && isName(code[end]) && code[end] != '.' {
			end++
		}
		w := strings.Trim(code[start:end], ".")
		if w == "" || unicode.IsDigit(rune(w[0])) {
			return ""
		}
		return w
	}
	if w := word(off); w != "" {
		return w
	}
	// In a call's arguments: the callee before the open parenthesis.
	depth := 0
	for i := off - 1; i >= 0 && code[i] != '\n'; i-- {
		switch code[i] {
		case ')':
			depth++
		case '(':
			if depth == 0 {
				return word(i)
			}
			depth--
		}
	}
	return ""
}

// isComplete answers an is_complete_request: code with open brackets,
// strings or comments, or that stops after an operator, is incomplete;
// code that does not parse otherwise is invalid.
func (k *Kernel) isComplete(r *jupyter.Request) {
	var c struct {
		Code string `json:"code"`
	}
	r.Decode(&c)
	if strings.HasPrefix(strings.TrimSpace(c.Code), ":") {
		r.Reply(map[string]any{"status": "complete"})
		return
	}
	if !needsMore(c.Code) {
		status := "complete"
		if syntaxInvalid(c.Code) {
			status = "invalid"
		}
		r.Reply(map[string]any{"status": status})
		return
	}
	last := c.Code[strings.LastIndexByte(strings.TrimRight(c.Code, "\n"), '\n')+1:]
	indent := last[:len(last)-len(strings.TrimLeft(last, " \t"))]
	if t := strings.TrimRight(last, " \t\r\n"); strings.HasSuffix(t, "{") || strings.HasSuffix(t, "(") || strings.HasSuffix(t, "[") {
		indent += "\t"
	}
	r.Reply(map[string]any{"status": "incomplete", "indent": indent})
}

// history answers a history_request with the session's accepted inputs.
func (k *Kernel) history(r *jupyter.Request) {
	var c struct {
		Access  string `json:"hist_access_type"`
		Session int    `json:"session"`
		Start   int    `json:"start"`
		Stop    *int   `json:"stop"`
		N       int    `json:"n"`
		Pattern string `json:"pattern"`
		Unique  bool   `json:"unique"`
		Output  bool   `json:"output"`
	}
	r.Decode(&c)
	var hist []any
	ins := k.s.Inputs()
	add := func(in Input) {
		if c.Output {
			hist = append(hist, []any{0, in.N, []any{in.Src, nil}})
		} else {
			hist = append(hist, []any{0, in.N, in.Src})
		}
	}
	switch c.Access {
	case "range":
		for _, in := range ins {
			if in.N >= c.Start && (c.Stop == nil || in.N < *c.Stop) {
				add(in)
			}
		}
	case "search":
		seen := map[string]bool{}
		var found []Input
		for i := len(ins) - 1; i >= 0; i-- {
			in := ins[i]
			if ok, _ := path.Match(c.Pattern, in.Src); ok || c.Pattern == "" || strings.Contains(in.Src, strings.Trim(c.Pattern, "*")) {
				if c.Unique && seen[in.Src] {
					continue
				}
				seen[in.Src] = true
				found = append(found, in)
				if c.N > 0 && len(found) == c.N {
					break
				}
			}
		}
		for i := len(found) - 1; i >= 0; i-- {
			add(found[i])
		}
	default: // "tail"
		if c.N > 0 && len(ins) > c.N {
			ins = ins[len(ins)-c.N:]
		}
		for _, in := range ins {
			add(in)
		}
	}
	if hist == nil {
		hist = []any{}
	}
	r.Reply(map[string]any{"status": "ok", "history": hist})
}

// value evaluates an expression without calls (see Session.value).
func (s *Session) valueOf(expr string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.value(expr)
	if err != nil {
		return nil, s.mapErr(err)
	}
	if !v.IsValid() || !v.CanInterface() {
		return nil, fmt.Errorf("%s has no value", expr)
	}
	return v.Interface(), nil
}

// skipNumber uses up the number of the next input, for a cell that ran
// commands only, so that cell numbers and input numbers stay the same.
// unnumber takes back the numbers after n, and forgets the inputs that
// had them.
func (s *Session) unnumber(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n = n
	s.inputs = slices.DeleteFunc(s.inputs, func(in Input) bool { return in.N > n })
}

func (s *Session) skipNumber() {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
}
