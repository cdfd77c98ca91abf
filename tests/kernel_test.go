package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/repl/jupyter"
)

// kernelProc is a sparknet-shell --kernel process and a client connected
// to it.
type kernelProc struct {
	t    testing.TB
	cmd  *exec.Cmd
	file string
	info jupyter.ConnectionInfo
	c    *jupyter.Client
	log  *syncBuffer
	done chan error
}

// syncBuffer is a bytes.Buffer safe for a process's output and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newConnectionFile writes a connection file with free ports (0: the
// kernel picks them and writes them back) and a fresh key.
func newConnectionFile(t testing.TB, dir string) string {
	t.Helper()
	info := jupyter.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", SignatureScheme: "hmac-sha256", Key: jupyter.NewID(), KernelName: "sparknet"}
	path := filepath.Join(dir, "kernel-"+jupyter.NewID()[:8]+".json")
	if err := info.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// startKernel starts the kernel on a connection file and connects.
func startKernel(t testing.TB, file string, args ...string) *kernelProc {
	t.Helper()
	k := &kernelProc{t: t, file: file, log: &syncBuffer{}, done: make(chan error, 1)}
	k.cmd = exec.Command(shellBin, append(append([]string{"--master", "local[2]"}, args...), "--kernel", file)...)
	k.cmd.Dir = repoRoot
	k.cmd.Stdout, k.cmd.Stderr = k.log, k.log
	if err := k.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { k.done <- k.cmd.Wait() }()
	t.Cleanup(k.kill)
	// The kernel writes the ports it picked back to the file.
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		info, err := jupyter.ParseConnectionInfo(b)
		if err == nil && info.ShellPort != 0 && info.HBPort != 0 {
			k.info = *info
			break
		}
		select {
		case err := <-k.done:
			t.Fatalf("the kernel ended: %v\n%s", err, k.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the kernel did not write its ports; log:\n%s", k.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err := jupyter.Dial(k.info)
	if err != nil {
		t.Fatal(err)
	}
	k.c = c
	if _, err := c.WaitReady(20 * time.Second); err != nil {
		t.Fatalf("%v; log:\n%s", err, k.log)
	}
	return k
}

func (k *kernelProc) kill() {
	if k.c != nil {
		k.c.Close()
	}
	if k.cmd.ProcessState == nil {
		k.cmd.Process.Kill()
		<-k.done
		k.done <- nil
	}
}

// execute runs code and fails the test if it does not finish.
func (k *kernelProc) execute(code string) *jupyter.Execution {
	k.t.Helper()
	ex, err := k.c.Execute(code, 60*time.Second)
	if err != nil {
		k.t.Fatalf("execute %q: %v; log:\n%s", code, err, k.log)
	}
	return ex
}

// content decodes a message's content.
func content(t *testing.T, m *jupyter.Message) map[string]any {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(m.Content, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// outputText joins the text of an execution's outputs: streams, the
// text/plain of results and displays, and errors' tracebacks.
func outputText(t *testing.T, ex *jupyter.Execution) string {
	var b strings.Builder
	for _, m := range ex.IOPub {
		c := content(t, m)
		switch m.Header.MsgType {
		case "stream":
			b.WriteString(c["text"].(string))
		case "execute_result", "display_data", "update_display_data":
			b.WriteString(c["data"].(map[string]any)["text/plain"].(string) + "\n")
		case "error":
			for _, l := range c["traceback"].([]any) {
				b.WriteString(l.(string) + "\n")
			}
		}
	}
	return b.String()
}

func types(ex *jupyter.Execution) []string {
	var out []string
	for _, m := range ex.IOPub {
		out = append(out, m.Header.MsgType)
	}
	return out
}

// tinyTraining is a training cell: a small classifier trained by the
// SparkNet trainer on synthetic images for many rounds. Nothing asks for
// its progress: the kernel shows it, a live display.
const tinyTraining = `sp, err := caffe.ParseSolverParameter("tiny_solver.prototxt", []byte(` + "`" + `
base_lr: 0.05 momentum: 0.9 lr_policy: "fixed"
net_param {
  name: "tiny"
  layer { name: "data" type: "Data" top: "data" top: "label"
          transform_param { scale: 0.00390625 }
          data_param { source: "unused" batch_size: 8 } }
  layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"
          inner_product_param { num_output: 12 weight_filler { type: "xavier" } } }
  layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }
  layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
          inner_product_param { num_output: 3 weight_filler { type: "xavier" } } }
  layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2" bottom: "label" top: "loss" }
}` + "`" + `))
if err != nil {
	panic(err)
}
s, _ := data.NewSamples(96, 1, 4, 4, false)
for i := range s.Pixels {
	s.Pixels[i] = uint8(i * 37 % 251)
}
for i := range s.Labels {
	s.Labels[i] = float32(i % 3)
}
tr, err := sparknet.Parallelize(sc, sp, sc.ParallelizeSamples(s, 2).Cache(), sparknet.Options{Tau: 20})
if err != nil {
	panic(err)
}
fmt.Println("training")
tr.Rounds(ctx, 100000)
`

// TestKernelProtocol drives a kernel through the Jupyter protocol as a
// front end does: execution with results and errors, completion,
// inspection, history, input, output of goroutines, interrupts during
// training (interrupt_request and SIGINT), bad and replayed signatures,
// and a restart.
func TestKernelProtocol(t *testing.T) {
	dir := t.TempDir()
	file := newConnectionFile(t, dir)
	k := startKernel(t, file)
	c := k.c

	t.Run("kernel_info", func(t *testing.T) {
		reply, err := c.Request(jupyter.Shell, "kernel_info_request", map[string]any{}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		info := content(t, reply)
		lang := info["language_info"].(map[string]any)
		if info["protocol_version"] != "5.3" || lang["name"] != "go" || lang["file_extension"] != ".go" || lang["pygments_lexer"] != "go" || lang["codemirror_mode"] != "go" {
			t.Errorf("kernel_info_reply: %s", reply.Content)
		}
		if err := c.Ping(5 * time.Second); err != nil {
			t.Error(err)
		}
	})

	t.Run("execute", func(t *testing.T) {
		ex := k.execute("x := 40 + 2\nx")
		want := []string{"status", "execute_input", "execute_result", "status"}
		if got := types(ex); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("iopub messages %v, want %v", got, want)
		}
		rc := content(t, ex.Reply)
		if rc["status"] != "ok" || rc["execution_count"] != 1.0 {
			t.Errorf("execute_reply: %s", ex.Reply.Content)
		}
		if got := outputText(t, ex); got != "42 (int)\n" {
			t.Errorf("result %q", got)
		}
		// Rich output: an array has HTML, a figure a PNG.
		ex = k.execute("ndarray.Arange(0, 6, 1).Reshape(2, 3)")
		data := content(t, ex.IOPub[2])["data"].(map[string]any)
		if !strings.Contains(data["text/html"].(string), "<table") {
			t.Errorf("array without an HTML table: %v", data)
		}
		ex = k.execute(`display.Show(display.NewFigure("loss").Line("train", []float64{3, 2, 1}))`)
		var png string
		for _, m := range ex.IOPub {
			if m.Header.MsgType == "display_data" {
				png, _ = content(t, m)["data"].(map[string]any)["image/png"].(string)
			}
		}
		if !strings.HasPrefix(png, "iVBORw0KGgo") {
			t.Errorf("figure without image/png: %v", types(ex))
		}
	})

	t.Run("errors", func(t *testing.T) {
		ex := k.execute("y := undefinedThing + 1")
		rc := content(t, ex.Reply)
		if rc["status"] != "error" || !strings.Contains(rc["evalue"].(string), "cell[4]:1:6") {
			t.Errorf("compile error reply: %s", ex.Reply.Content)
		}
		ex = k.execute("var m map[string]int\nm[\"a\"] = 1")
		rc = content(t, ex.Reply)
		if rc["ename"] != "panic" || !strings.Contains(outputText(t, ex), "at cell[5]:2:1") {
			t.Errorf("panic reply: %s\n%s", ex.Reply.Content, outputText(t, ex))
		}
		// Positions count from the cell's first line, blank and
		// command lines included.
		ex = k.execute("\n:vars\n\nw := undefinedThing")
		if rc := content(t, ex.Reply); rc["status"] != "error" || !strings.Contains(rc["evalue"].(string), "cell[6]:4:6") {
			t.Errorf("compile error after blank and command lines: %s", ex.Reply.Content)
		}
		// IPython's forms fail with advice.
		for code, want := range map[string]string{"%time x": ":time", "fmt.Println?": "Shift-Tab", "x = 1\n:vars": "start of a cell"} {
			ex = k.execute(code)
			if rc := content(t, ex.Reply); rc["status"] != "error" || !strings.Contains(fmt.Sprint(rc["traceback"]), want) {
				t.Errorf("%q: %s, want advice naming %s", code, ex.Reply.Content, want)
			}
		}
		if got := outputText(t, k.execute("x")); got != "42 (int)\n" {
			t.Errorf("after the errors, x is %q", got)
		}
	})

	t.Run("commands", func(t *testing.T) {
		out := outputText(t, k.execute(":vars"))
		if !strings.Contains(out, "x") || !strings.Contains(out, "int") {
			t.Errorf(":vars: %q", out)
		}
		ex := k.execute(":time\nz := 0\nfor i := 0; i < 1000; i++ { z += i }\nz")
		if out := outputText(t, ex); !strings.Contains(out, "499500 (int)") || !strings.Contains(out, "time: ") {
			t.Errorf(":time cell: %q", out)
		}
		ex = k.execute(":nosuch")
		if rc := content(t, ex.Reply); rc["status"] != "error" || !strings.Contains(rc["evalue"].(string), "unknown command :nosuch") {
			t.Errorf(":nosuch: %s", ex.Reply.Content)
		}
		// A silent request (a front end's own) takes no execution
		// count; the next cell gets the one after the last cell's.
		before := content(t, k.execute("1").Reply)["execution_count"].(float64)
		req, err := c.Send(jupyter.Shell, "execute_request", map[string]any{"code": "q := 2", "silent": true, "store_history": false, "user_expressions": map[string]any{}, "allow_stdin": false})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Collect(req, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		if n := content(t, k.execute("q").Reply)["execution_count"].(float64); n != before+1 {
			t.Errorf("after a silent request, count %v, want %v", n, before+1)
		}
		ex = k.execute("os.Exit(3)")
		if rc := content(t, ex.Reply); rc["ename"] != "Exit" {
			t.Errorf("os.Exit: ename %v, want Exit", rc["ename"])
		}
	})

	t.Run("complete", func(t *testing.T) {
		reply, err := c.Request(jupyter.Shell, "complete_request", map[string]any{"code": "n := ndarray.Zer", "cursor_pos": 16}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		rc := content(t, reply)
		if !contains(rc["matches"], "Zeros") || rc["cursor_start"] != 13.0 || rc["cursor_end"] != 16.0 {
			t.Errorf("complete_reply: %s", reply.Content)
		}
		k.execute("a := ndarray.Zeros(2, 3)")
		code := "b := 1\na.Resh"
		reply, err = c.Request(jupyter.Shell, "complete_request", map[string]any{"code": code, "cursor_pos": len(code)}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if rc := content(t, reply); !contains(rc["matches"], "Reshape") {
			t.Errorf("members of a variable: %s", reply.Content)
		}
		// A variable of the cell itself, above the cursor, not yet run.
		code = "grid := ndarray.Ones(4)\nfor i := range 2 {\n\tgrid.Su"
		reply, err = c.Request(jupyter.Shell, "complete_request", map[string]any{"code": code, "cursor_pos": len(code)}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if rc := content(t, reply); !contains(rc["matches"], "Sum") || rc["cursor_start"] != float64(len(code)-2) {
			t.Errorf("members of the cell's variable: %s", reply.Content)
		}
	})

	t.Run("inspect", func(t *testing.T) {
		reply, err := c.Request(jupyter.Shell, "inspect_request", map[string]any{"code": "ndarray.Zeros(2, 3)", "cursor_pos": 15, "detail_level": 0}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		rc := content(t, reply)
		text, _ := rc["data"].(map[string]any)["text/plain"].(string)
		if rc["found"] != true || !strings.Contains(text, "func Zeros") {
			t.Errorf("inspect_reply: %s", reply.Content)
		}
		// A variable that a line of the cell above declares.
		code := "img := ndarray.Ones(2, 2)\nfor range 3 {\n\tfmt.Println(img.Sum())\n}"
		reply, err = c.Request(jupyter.Shell, "inspect_request", map[string]any{"code": code, "cursor_pos": strings.Index(code, "img.Sum") + 1, "detail_level": 0}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		rc = content(t, reply)
		text, _ = rc["data"].(map[string]any)["text/plain"].(string)
		if rc["found"] != true || !strings.Contains(text, "img is a *ndarray.Array") {
			t.Errorf("inspect_reply of the cell's variable: %s", reply.Content)
		}
	})

	t.Run("is_complete", func(t *testing.T) {
		for code, want := range map[string]string{"for i := 0; i < 3; i++ {": "incomplete", "f(1,": "incomplete", "x + 1": "complete", ":vars": "complete",
			"func f() {\n}}": "invalid", "x := )": "invalid", "fmt.Println(\"a\"))": "invalid", "type T struct{ A int }\nfunc (t T) M() {}": "complete"} {
			reply, err := c.Request(jupyter.Shell, "is_complete_request", map[string]any{"code": code}, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if got := content(t, reply)["status"]; got != want {
				t.Errorf("is_complete %q: %v, want %s", code, got, want)
			}
		}
	})

	t.Run("history", func(t *testing.T) {
		reply, err := c.Request(jupyter.Shell, "history_request", map[string]any{"hist_access_type": "tail", "n": 2, "output": false, "raw": true}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		hist := content(t, reply)["history"].([]any)
		if len(hist) != 2 || !strings.Contains(hist[1].([]any)[2].(string), "ndarray.Zeros(2, 3)") {
			t.Errorf("history_reply: %s", reply.Content)
		}
	})

	t.Run("stdin", func(t *testing.T) {
		req, err := c.Send(jupyter.Shell, "execute_request", map[string]any{"code": "var name string\nfmt.Print(\"name? \")\nfmt.Scanln(&name)\nfmt.Println(\"hello,\", name)", "allow_stdin": true, "store_history": true})
		if err != nil {
			t.Fatal(err)
		}
		in, err := c.Recv(jupyter.Stdin, 10*time.Second)
		if err != nil || in.Header.MsgType != "input_request" {
			t.Fatalf("no input_request: %v %v", in, err)
		}
		m, _ := c.NewMessage("input_reply", map[string]any{"value": "gopher"})
		m.Parent = &in.Header
		frames, _ := c.Frames(m)
		c.SendFrames(jupyter.Stdin, frames)
		ex, err := c.Collect(req, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if out := outputText(t, ex); out != "name? hello, gopher\n" {
			t.Errorf("output %q", out)
		}
	})

	t.Run("goroutine output goes to its cell", func(t *testing.T) {
		first := k.execute("done := make(chan bool)\ngo func() { <-done; fmt.Println(\"from the goroutine\") }()")
		second := k.execute("close(done)\ntime.Sleep(300 * time.Millisecond)\nfmt.Println(\"second cell\")")
		// The goroutine's line belongs to the first cell: a message after
		// its idle status, with the first request as parent.
		found := false
		for _, m := range second.Other {
			if m.Header.MsgType == "stream" && strings.Contains(string(m.Content), "from the goroutine") {
				found = m.Parent.MsgID == first.Request.Header.MsgID
			}
		}
		out := outputText(t, second)
		if strings.Contains(out, "from the goroutine") || (!found) {
			t.Errorf("goroutine output went to the second cell (%q), or not to the first (%v)", out, found)
		}
	})

	t.Run("a loop of rounds shows one progress display", func(t *testing.T) {
		// The training loop of sparknet's documentation: the rounds of
		// one cell go on one display, updated in place, as Rounds's do.
		code := strings.Replace(tinyTraining, "tr.Rounds(ctx, 100000)", "for r := 0; r < 3; r++ {\n\ttr.Round(ctx)\n}", 1)
		ex := k.execute(code)
		displays, updates := 0, 0
		last := ""
		for _, m := range ex.IOPub {
			switch m.Header.MsgType {
			case "display_data":
				displays++
			case "update_display_data":
				updates++
				last = string(m.Content)
			}
		}
		if displays != 1 || updates == 0 || !strings.Contains(last, "round 3") {
			t.Errorf("3 rounds in a loop: %d displays, %d updates (want 1 display updated in place), the last %s", displays, updates, last)
		}
	})

	t.Run("interrupt during training", func(t *testing.T) {
		for _, how := range []string{"interrupt_request", "SIGINT"} {
			req, err := c.Send(jupyter.Shell, "execute_request", map[string]any{"code": tinyTraining, "store_history": true})
			if err != nil {
				t.Fatal(err)
			}
			// Wait for the live progress display to update in place.
			updated := false
			deadline := time.Now().Add(60 * time.Second)
			var seen []*jupyter.Message
			for !updated && time.Now().Before(deadline) {
				m, err := c.Recv(jupyter.IOPub, time.Until(deadline))
				if err != nil {
					break
				}
				seen = append(seen, m)
				if m.Parent != nil && m.Parent.MsgID == req.Header.MsgID && m.Header.MsgType == "update_display_data" {
					updated = strings.Contains(string(m.Content), "round ")
				}
			}
			if !updated {
				t.Fatalf("%s: no update_display_data of the progress; log:\n%s", how, k.log)
			}
			start := time.Now()
			if how == "SIGINT" {
				k.cmd.Process.Signal(syscall.SIGINT)
			} else if _, err := c.Request(jupyter.Control, "interrupt_request", map[string]any{}, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			ex, err := c.Collect(req, 20*time.Second)
			if err != nil {
				t.Fatalf("%s: the cell did not stop: %v", how, err)
			}
			if rc := content(t, ex.Reply); rc["ename"] != "Interrupted" {
				t.Errorf("%s: reply %s", how, ex.Reply.Content)
			}
			t.Logf("%s: stopped %s after the interrupt", how, time.Since(start).Round(time.Millisecond))
			if got := outputText(t, k.execute("x")); got != "42 (int)\n" {
				t.Errorf("%s: after the interrupt, x is %q", how, got)
			}
		}
	})

	t.Run("interrupt between cells stops goroutines", func(t *testing.T) {
		k.execute("ticks := 0\ngo func() {\n\tfor {\n\t\ttime.Sleep(5 * time.Millisecond)\n\t\tticks++\n\t}\n}()")
		if _, err := c.Request(jupyter.Control, "interrupt_request", map[string]any{}, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		a := outputText(t, k.execute("ticks"))
		time.Sleep(200 * time.Millisecond)
		if b := outputText(t, k.execute("ticks")); a != b {
			t.Errorf("the goroutine still runs after the interrupt: ticks %q then %q", a, b)
		}
	})

	t.Run("bad signatures are refused", func(t *testing.T) {
		bad := k.info
		bad.Key = "not-the-key"
		bc, err := jupyter.Dial(bad)
		if err != nil {
			t.Fatal(err)
		}
		defer bc.Close()
		if _, err := bc.Send(jupyter.Shell, "execute_request", map[string]any{"code": "x = 0"}); err != nil {
			t.Fatal(err)
		}
		// A replayed message, correctly signed, is refused too.
		m, _ := c.NewMessage("execute_request", map[string]any{"code": "x++"})
		frames, _ := c.Frames(m)
		c.SendFrames(jupyter.Shell, frames)
		if _, err := c.Collect(m, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		c.SendFrames(jupyter.Shell, frames)
		time.Sleep(300 * time.Millisecond)
		if got := outputText(t, k.execute("x")); got != "43 (int)\n" {
			t.Errorf("x is %q: the message with a wrong key or the replay ran", got)
		}
		log := k.log.String()
		if !strings.Contains(log, "message refused: jupyter: the message's signature is wrong") || !strings.Contains(log, "signature was used before") {
			t.Errorf("the log does not report the refused messages:\n%s", log)
		}
	})

	t.Run("restart", func(t *testing.T) {
		reply, err := c.Request(jupyter.Control, "shutdown_request", map[string]any{"restart": true}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if rc := content(t, reply); rc["restart"] != true || rc["status"] != "ok" {
			t.Errorf("shutdown_reply: %s", reply.Content)
		}
		select {
		case err := <-k.done:
			if err != nil {
				t.Errorf("the kernel ended with %v", err)
			}
			k.done <- err
		case <-time.After(10 * time.Second):
			t.Fatal("the kernel did not end after shutdown_request")
		}
		// Jupyter starts the kernel again on the same connection file
		// (the same ports).
		k2 := startKernel(t, file)
		if k2.info != k.info {
			t.Errorf("the ports changed: %+v, then %+v", k.info, k2.info)
		}
		if out := outputText(t, k2.execute("x := 1\nx")); out != "1 (int)\n" {
			t.Errorf("after the restart: %q", out)
		}
	})
}

func contains(list any, s string) bool {
	l, _ := list.([]any)
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// TestKernelBadInput checks the kernel's answer to a broken connection
// file and to a port in use: a clear error and an exit status, no hang.
func TestKernelBadInput(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name string
		file string // contents
		code int
		want []string
	}{
		{"syntax error", "{\n  \"ip\": \"127.0.0.1\",\n  \"shell_port\": 5000,,\n}", 2, []string{"bad.json:3:22: invalid character ','"}},
		{"missing fields", `{"ip": "127.0.0.1", "shell_port": 1}`, 2, []string{"missing control_port, iopub_port, stdin_port, hb_port, key"}},
		{"wrong type", `{"ip": "127.0.0.1", "shell_port": "5000", "control_port": 0, "iopub_port": 0, "stdin_port": 0, "hb_port": 0, "key": ""}`, 2, []string{"shell_port is a JSON string; want a int"}},
		{"bad scheme", `{"ip": "127.0.0.1", "shell_port": 0, "control_port": 0, "iopub_port": 0, "stdin_port": 0, "hb_port": 0, "key": "k", "signature_scheme": "hmac-md5"}`, 2, []string{`signature_scheme "hmac-md5" is not supported; want one of hmac-sha1,`}},
		{"port in use", `{"ip": "127.0.0.1", "shell_port": 0, "control_port": 0, "iopub_port": ` + itoa(busyPort) + `, "stdin_port": 0, "hb_port": 0, "key": "k", "signature_scheme": "hmac-sha256", "transport": "tcp"}`, 1,
			[]string{"the iopub channel cannot listen on tcp://127.0.0.1:" + itoa(busyPort) + ": bind: address already in use", "start the kernel with a new connection file"}},
		{"no file", "", 2, []string{"no such file or directory"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.json")
			os.Remove(path)
			if tc.file != "" {
				os.WriteFile(path, []byte(tc.file), 0o600)
			}
			res := runShell(t, dir, "", 20*time.Second, "--kernel", path)
			if res.code != tc.code {
				t.Errorf("exit status %d, want %d; output:\n%s", res.code, tc.code, res.out)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.out, w) {
					t.Errorf("output lacks %q:\n%s", w, res.out)
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
