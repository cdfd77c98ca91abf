package tests

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// browser is headless Chromium driven through the DevTools protocol over
// a pipe (--remote-debugging-pipe): commands go to its file descriptor 3
// and answers come from its descriptor 4, as JSON messages ended by NUL.
type browser struct {
	cmd     *exec.Cmd
	in      *os.File // our end of its fd 3
	out     *os.File // our end of its fd 4
	session string   // the page's session

	mu      sync.Mutex
	next    int
	pending map[int]chan cdpReply
	dead    error
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// findChromium returns the Chromium binary, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startBrowser starts headless Chromium with one blank page.
func startBrowser(t *testing.T, bin string, width, height int) *browser {
	t.Helper()
	toChrome, chromeIn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	chromeOut, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), fmt.Sprintf("--window-size=%d,%d", width, height),
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // its fds 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &browser{cmd: cmd, in: chromeIn, out: chromeOut, pending: map[int]chan cdpReply{}}
	go b.read()
	t.Cleanup(func() {
		b.call("", "Browser.close", nil)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		b.in.Close()
		b.out.Close()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("chromium's stderr:\n%s", stderr.String())
		}
	})
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	b.session = attached.SessionID
	if err := b.call(b.session, "Page.enable", nil); err != nil {
		t.Fatal(err)
	}
	if err := b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}); err != nil {
		t.Fatal(err)
	}
	return b
}

// read dispatches the browser's answers; events are ignored.
func (b *browser) read() {
	r := bufio.NewReader(b.out)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.dead = fmt.Errorf("the browser closed its pipe: %v", err)
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// call sends a command and decodes its result into out[0], if given.
func (b *browser) call(session, method string, params any, out ...any) error {
	b.mu.Lock()
	if b.dead != nil {
		b.mu.Unlock()
		return b.dead
	}
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %v", method, b.dead)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		if len(out) > 0 {
			return json.Unmarshal(r.Result, out[0])
		}
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no answer in 30s", method)
	}
}

// navigate opens url in the page.
func (b *browser) navigate(url string) error {
	var res struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call(b.session, "Page.navigate", map[string]any{"url": url}, &res); err != nil {
		return err
	}
	if res.ErrorText != "" {
		return fmt.Errorf("navigating to %s: %s", url, res.ErrorText)
	}
	return nil
}

// eval evaluates a JavaScript expression in the page and decodes its
// value into out.
func (b *browser) eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %s: %s", expr, res.ExceptionDetails.Text)
	}
	if len(res.Result.Value) == 0 {
		return fmt.Errorf("evaluating %s: no value", expr)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// waitFor evaluates a boolean expression until it holds.
func (b *browser) waitFor(t *testing.T, what, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		var ok bool
		if last = b.eval(expr, &ok); last == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	var text string
	b.eval("document.body ? document.body.innerText : ''", &text)
	t.Fatalf("waited %v for %s (%s; last error %v); the page reads:\n%s", timeout, what, expr, last, text)
}

// rect is an element's box in CSS pixels.
type rect struct {
	X, Y, Width, Height float64
}

// box returns the bounding box of the element a selector finds.
func (b *browser) box(selector string) (rect, error) {
	var r rect
	err := b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return null;
		const r = e.getBoundingClientRect(); return {X: r.x + window.scrollX, Y: r.y + window.scrollY, Width: r.width, Height: r.height}; })()`, selector), &r)
	if err != nil {
		return r, fmt.Errorf("%s: %v", selector, err)
	}
	if r.Width == 0 || r.Height == 0 {
		return r, fmt.Errorf("%s has no area", selector)
	}
	return r, nil
}

// screenshot captures a region of the page as an image.
func (b *browser) screenshot(r rect) (image.Image, error) {
	var res struct {
		Data string `json:"data"`
	}
	clip := map[string]any{"x": r.X, "y": r.Y, "width": r.Width, "height": r.Height, "scale": 1}
	if err := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png", "clip": clip, "captureBeyondViewport": true}, &res); err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		return nil, err
	}
	return png.Decode(bytes.NewReader(raw))
}

// countColor counts the pixels within tol of the color #rrggbb in each
// channel, and the pixels that are not near-white.
func countColor(img image.Image, hex string, tol int) (match, ink int) {
	var want [3]int
	fmt.Sscanf(hex, "#%02x%02x%02x", &want[0], &want[1], &want[2])
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			px := [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
			if px[0] < 235 || px[1] < 235 || px[2] < 235 {
				ink++
			}
			near := true
			for c := range px {
				if d := px[c] - want[c]; d > tol || d < -tol {
					near = false
				}
			}
			if near {
				match++
			}
		}
	}
	return match, ink
}
