package repl

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sparknet-go/sparknet/repl/display"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// NotebookOptions configure RunNotebook.
type NotebookOptions struct {
	// Session configures the notebook's session; its Stdout, Stderr and
	// Show are the notebook's own.
	Session Options
	// Out is the Markdown report to write; "" means the notebook's path
	// with .md in place of .go. Images go beside it.
	Out string
	// Log receives one line per cell as the notebook runs; nil means
	// none.
	Log io.Writer
}

// RunNotebook runs the cells of the notebook-style Go file at path in
// order (see SplitCells) and writes a Markdown report with each cell's
// prose, code, output, tables and figures (as PNG files beside the
// report). A failing cell stops the run; its error is in the report, and
// RunNotebook returns it after writing the report.
//
// Under an SPMD master rank 0 reads the notebook, every rank runs its
// cells, and rank 0 alone writes the report.
func RunNotebook(ctx context.Context, path string, opts NotebookOptions) error {
	nb, s, err := startNotebook(path, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	return nb.run(ctx, s, opts)
}

// startNotebook starts the session of a notebook run.
func startNotebook(path string, opts NotebookOptions) (*notebook, *Session, error) {
	out := opts.Out
	if out == "" {
		out = strings.TrimSuffix(path, filepath.Ext(path)) + ".md"
	}
	nb := &notebook{path: path, out: out}
	sopts := opts.Session
	sopts.Stdout = &nb.w
	sopts.Stderr = &nb.w
	sopts.Show = nb.show
	if isIPynb(path) {
		sopts.InputName = "cell"
	}
	s, err := New(sopts)
	if err != nil {
		return nil, nil, err
	}
	// A report that cannot be written fails now, not after every cell ran.
	if err := s.onDriver(func() error { return prepareReport(out) }); err != nil {
		s.Close()
		return nil, nil, err
	}
	nb.master = s.SparkContext().Master()
	return nb, s, nil
}

// prepareReport checks that a report can be written at out: its folder is
// made if missing, and a file is created and removed there.
func prepareReport(out string) error {
	if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("repl: the report %s is %s, not a file", out, describeMode(fi.Mode()))
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("repl: the report %s: cannot make its folder: %w", out, err)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("repl: the report %s cannot be written: %w", out, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// describeMode names the kind of a file that is not a regular one.
func describeMode(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// run runs the notebook's cells in s and writes the report.
func (nb *notebook) run(ctx context.Context, s *Session, opts NotebookOptions) error {
	var cells []Cell
	ipynb := isIPynb(nb.path)
	if ipynb {
		jnb, err := s.readNotebook(nb.path)
		if err != nil {
			return err
		}
		cells = ipynbCells(jnb)
	} else {
		src, err := s.readFile(nb.path)
		if err != nil {
			return err
		}
		cells = SplitCells(src)
		if hasPackageClause(src) {
			cells = []Cell{{Code: src, Line: 1}}
		}
	}
	logw := opts.Log
	if s.quiet {
		logw = nil
	}
	var runErr error
	for i, c := range cells {
		res := &cellResult{cell: c, n: i + 1}
		nb.cells = append(nb.cells, res)
		if strings.TrimSpace(c.Code) == "" {
			continue
		}
		nb.w.start(res)
		start := time.Now()
		if ipynb {
			runErr = s.settle(s.Eval(ctx, c.Code)) // the cells of a notebook share one namespace, as in Jupyter
		} else {
			runErr = s.settle(s.EvalCell(ctx, nb.path, c.Code, c.Line, !hasPackageClause(c.Code)))
		}
		res.elapsed = time.Since(start)
		nb.w.start(nil)
		if logw != nil {
			status := "ok"
			if runErr != nil {
				status = "FAILED"
			}
			title := c.Title
			if title == "" {
				title = "line " + fmt.Sprint(c.Line)
			}
			fmt.Fprintf(logw, "[%d/%d] %s: %s (%s)\n", i+1, len(cells), title, status, display.FormatDuration(res.elapsed))
		}
		if runErr != nil {
			res.err = runErr
			for j, rest := range cells[i+1:] {
				nb.cells = append(nb.cells, &cellResult{cell: rest, n: i + j + 2, notRun: true})
			}
			break
		}
	}
	if err := s.onDriver(nb.write); err != nil {
		return err
	}
	return runErr
}

// notebook collects the results of a notebook run.
type notebook struct {
	path, out string
	master    string
	cells     []*cellResult
	w         cellWriter
	images    int
}

// cellResult is what a cell produced, in order.
type cellResult struct {
	cell    Cell
	n       int
	blocks  []block
	err     error
	elapsed time.Duration
	notRun  bool // an earlier cell failed
}

// block is a piece of a cell's output: text, Markdown (a table) or an
// image file.
type block struct {
	kind string // "text", "markdown", "image"
	text string // text or Markdown, or the image's title
	file string // image file name, relative to the report
}

// cellWriter appends output to the running cell's text.
type cellWriter struct {
	mu  sync.Mutex
	res *cellResult
}

func (w *cellWriter) start(res *cellResult) {
	w.mu.Lock()
	w.res = res
	w.mu.Unlock()
}

func (w *cellWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.res == nil {
		return len(p), nil
	}
	w.res.add(block{kind: "text", text: string(p)})
	return len(p), nil
}

func (r *cellResult) add(b block) {
	if n := len(r.blocks); b.kind == "text" && n > 0 && r.blocks[n-1].kind == "text" {
		r.blocks[n-1].text += b.text
		return
	}
	r.blocks = append(r.blocks, b)
}

// show puts tables and figures into the report; other values are left
// to the text output.
func (nb *notebook) show(v any) bool {
	nb.w.mu.Lock()
	res := nb.w.res
	nb.w.mu.Unlock()
	if res == nil {
		return false
	}
	if t := display.AsTable(v); t != nil {
		nb.w.mu.Lock()
		res.add(block{kind: "markdown", text: t.Markdown()})
		nb.w.mu.Unlock()
		return true
	}
	var save func(path string) error
	var title string
	switch x := v.(type) {
	case *display.HeatMap:
		save, title = x.Save, x.Title
	case *display.HeatMaps:
		save, title = x.Save, x.Title
	default:
		if f := display.AsFigure(v); f != nil {
			save, title = f.Save, f.Title
		}
	}
	if save == nil {
		return false
	}
	nb.images++
	stem := strings.TrimSuffix(filepath.Base(nb.out), filepath.Ext(nb.out))
	name := fmt.Sprintf("%s-%d.png", stem, nb.images)
	if err := save(filepath.Join(filepath.Dir(nb.out), name)); err != nil {
		nb.w.mu.Lock()
		res.add(block{kind: "text", text: fmt.Sprintf("(figure not saved: %v)\n%s\n", err, v)})
		nb.w.mu.Unlock()
		return true
	}
	if title == "" {
		title = "figure"
	}
	nb.w.mu.Lock()
	res.add(block{kind: "image", text: title, file: name})
	nb.w.mu.Unlock()
	return true
}

// write writes the Markdown report.
func (nb *notebook) write() error {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- Report of %s, run by sparknet-shell %s with master %s. -->\n", filepath.Base(nb.path), Version(), nb.master)
	for _, r := range nb.cells {
		c := r.cell
		b.WriteString("\n")
		if c.Title != "" {
			fmt.Fprintf(&b, "## %s\n\n", c.Title)
		}
		if c.Prose != "" {
			b.WriteString(c.Prose + "\n\n")
		}
		if strings.TrimSpace(c.Code) != "" {
			b.WriteString("```go\n" + c.Code + "```\n\n")
			if r.notRun {
				b.WriteString("_Not run: an earlier cell failed._\n")
			}
		}
		for _, blk := range r.blocks {
			switch blk.kind {
			case "text":
				text := strings.TrimRight(stripControl(blk.text), "\n")
				if text != "" {
					b.WriteString("```text\n" + text + "\n```\n\n")
				}
			case "markdown":
				b.WriteString(blk.text + "\n")
			case "image":
				fmt.Fprintf(&b, "![%s](%s)\n\n", blk.text, blk.file)
			}
		}
		if r.err != nil {
			fmt.Fprintf(&b, "**Error** (the run stopped here):\n\n```text\n%s\n```\n", FormatError(r.err))
		}
	}
	if err := fsio.WriteFile(nb.out, []byte(b.String())); err != nil {
		return fmt.Errorf("repl: writing the report: %w", err)
	}
	return nil
}

// stripControl removes carriage-return redraws and terminal escapes.
func stripControl(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		line = strings.ReplaceAll(line, "\x1b[K", "")
		b.WriteString(line)
	}
	return b.String()
}
