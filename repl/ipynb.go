package repl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/repl/display"
	"github.com/sparknet-go/sparknet/repl/jupyter"
)

// Notebooks in Jupyter's format. A notebook-style Go file (cells split by
// "// %%") converts to an .ipynb with ToIPynb: each cell's title and
// prose become a Markdown cell, its code a code cell. --notebook runs an
// .ipynb as it runs a Go file, and writes a Markdown report or, when
// --out ends in .ipynb, the executed notebook with its outputs: text,
// tables as HTML, figures as PNG, errors, as the kernel shows them.

// The teaching notebooks in examples/ ship as .ipynb too; TestExampleNotebooksCurrent
// fails when one is stale.
//go:generate go run ../cmd/sparknet-shell --to-ipynb ../examples/custom_layer.go ../examples/mnist_sparknet.go ../examples/ndarray_basics.go ../examples/paper_speedup.go ../examples/predict.go ../examples/rdd_basics.go

// isIPynb reports whether path names a Jupyter notebook.
func isIPynb(path string) bool { return strings.EqualFold(filepath.Ext(path), ".ipynb") }

// ToIPynb converts a notebook-style Go file to a Jupyter notebook for
// the sparknet kernel, without outputs.
func ToIPynb(src string) *jupyter.Notebook {
	nb := jupyter.NewNotebook(KernelName, KernelDisplayName, LanguageInfo())
	// The Go version changes with the toolchain; a generated notebook
	// names the language only.
	nb.Metadata["language_info"] = map[string]any{"name": "go", "file_extension": ".go", "mimetype": "text/x-go", "pygments_lexer": "go", "codemirror_mode": "go"}
	add := func(typ, text string) {
		h := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%s", len(nb.Cells), typ, text))
		nb.Cells = append(nb.Cells, &jupyter.Cell{ID: hex.EncodeToString(h[:6]), Type: typ, Source: text})
	}
	cells := SplitCells(src)
	if hasPackageClause(src) {
		cells = []Cell{{Code: src, Line: 1}}
	}
	for _, c := range cells {
		var md []string
		if c.Title != "" {
			md = append(md, "## "+c.Title)
		}
		if c.Prose != "" {
			md = append(md, c.Prose)
		}
		if len(md) > 0 {
			add("markdown", strings.Join(md, "\n\n"))
		}
		if code := strings.TrimRight(c.Code, "\n"); strings.TrimSpace(code) != "" {
			add("code", code)
		}
	}
	return nb
}

// ConvertToIPynb writes the Jupyter notebook of the notebook-style Go
// file at path to out ("" means path with .ipynb for .go).
func ConvertToIPynb(path, out string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	if isIPynb(path) {
		return fmt.Errorf("repl: %s is a notebook already; --to-ipynb converts a Go file with // %%%% cells", path)
	}
	if out == "" {
		out = strings.TrimSuffix(path, filepath.Ext(path)) + ".ipynb"
	}
	return ToIPynb(string(b)).WriteFile(out)
}

// ipynbCells returns the cells of a Jupyter notebook as the Markdown
// report takes them: a Markdown cell is prose, a code cell code.
func ipynbCells(nb *jupyter.Notebook) []Cell {
	var cells []Cell
	for _, c := range nb.Cells {
		switch c.Type {
		case "markdown":
			cells = append(cells, Cell{Prose: strings.TrimSpace(c.Source)})
		case "code":
			code := strings.TrimRight(c.Source, " \t\r\n")
			if code != "" {
				code += "\n"
			}
			cells = append(cells, Cell{Code: code, Line: 1})
		}
	}
	return cells
}

// readNotebook reads a notebook for every rank: rank 0 reads the file.
func (s *Session) readNotebook(path string) (*jupyter.Notebook, error) {
	src, err := s.readFile(path)
	if err != nil {
		return nil, err
	}
	nb, err := jupyter.ParseNotebook([]byte(src))
	if err != nil {
		return nil, fmt.Errorf("jupyter: notebook %s%w", path, err)
	}
	return nb, nil
}

// nbCell keeps the outputs of a code cell of a notebook being run.
type nbCell struct {
	c     *jupyter.Cell
	count int
	ids   map[string]int // display id → index in c.Outputs
}

func (n *nbCell) stream(name, text string) {
	outs := n.c.Outputs
	if k := len(outs); k > 0 && outs[k-1]["output_type"] == "stream" && outs[k-1]["name"] == name {
		outs[k-1]["text"] = outs[k-1]["text"].(string) + text
		return
	}
	n.c.Outputs = append(outs, jupyter.Output{"output_type": "stream", "name": name, "text": text})
}

func (n *nbCell) display(data, meta map[string]any, id string, update bool) {
	if i, ok := n.ids[id]; ok && update {
		n.c.Outputs[i]["data"], n.c.Outputs[i]["metadata"] = data, meta
		return
	}
	if id != "" {
		if n.ids == nil {
			n.ids = map[string]int{}
		}
		n.ids[id] = len(n.c.Outputs)
	}
	n.c.Outputs = append(n.c.Outputs, jupyter.Output{"output_type": "display_data", "data": data, "metadata": meta})
}

func (n *nbCell) result(data, meta map[string]any) {
	n.c.Outputs = append(n.c.Outputs, jupyter.Output{"output_type": "execute_result", "execution_count": n.count, "data": data, "metadata": meta})
}

func (n *nbCell) fail(ename, evalue string, tb []string) {
	n.c.Outputs = append(n.c.Outputs, jupyter.Output{"output_type": "error", "ename": ename, "evalue": evalue, "traceback": tb})
}

// runToIPynb runs the notebook at path (a Go file or an .ipynb) and
// writes it with its outputs to the .ipynb out. A failing cell stops the
// run; its error is among its outputs, and the error is returned after
// the notebook is written.
func runToIPynb(ctx context.Context, path, out string, opts NotebookOptions) error {
	r := &router{}
	sopts := opts.Session
	sopts.Stdout, sopts.Stderr = r.writer("stdout"), r.writer("stderr")
	sopts.Show, sopts.Result = r.show, r.result
	sopts.virtualStdio = true
	fromGo := !isIPynb(path)
	if !fromGo {
		sopts.InputName = "cell"
	}
	s, err := New(sopts)
	if err != nil {
		return err
	}
	defer s.Close()
	r.s = s
	display.SetLive(r.newLive)
	defer display.SetLive(nil)
	ctx, stop := s.interruptible(ctx)
	defer stop()

	var nb *jupyter.Notebook
	var cells []Cell // the Go file's cells, beside nb's code cells
	if fromGo {
		src, err := s.readFile(path)
		if err != nil {
			return err
		}
		nb = ToIPynb(src)
		nb.Metadata["language_info"] = LanguageInfo()
		cells = SplitCells(src)
		if hasPackageClause(src) {
			cells = []Cell{{Code: src, Line: 1}}
		}
	} else if nb, err = s.readNotebook(path); err != nil {
		return err
	}
	var code []*jupyter.Cell
	for _, c := range nb.Cells {
		if c.Type == "code" {
			c.Outputs, c.ExecutionCount = nil, nil
			code = append(code, c)
		}
	}
	logw := opts.Log
	if s.quiet {
		logw = nil
	}
	var runErr error
	goCell := 0
	for i, c := range code {
		count := i + 1
		if !fromGo {
			count = s.Number()
		}
		sink := &nbCell{c: c, count: count}
		r.begin(sink)
		start := time.Now()
		cctx := WithOrigin(ctx, sink)
		if fromGo {
			for goCell < len(cells) && strings.TrimSpace(cells[goCell].Code) == "" {
				goCell++
			}
			gc := cells[goCell]
			goCell++
			runErr = s.settle(s.EvalCell(cctx, path, gc.Code, gc.Line, !hasPackageClause(gc.Code)))
		} else {
			runErr = s.settle(s.Eval(cctx, c.Source))
		}
		display.EndLive()
		r.flush()
		c.ExecutionCount = &count
		if runErr != nil {
			r.fail(sink, runErr)
		}
		if logw != nil {
			status := "ok"
			if runErr != nil {
				status = "FAILED"
			}
			fmt.Fprintf(logw, "[%d/%d] cell %d: %s (%s)\n", i+1, len(code), count, status, display.FormatDuration(time.Since(start)))
		}
		if runErr != nil {
			break
		}
	}
	r.begin(nil)
	nb.Metadata["language_info"] = LanguageInfo()
	if err := s.onDriver(func() error { return nb.WriteFile(out) }); err != nil {
		return err
	}
	return runErr
}
