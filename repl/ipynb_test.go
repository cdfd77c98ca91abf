package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sparknet-go/sparknet/repl/jupyter"
)

// TestExampleNotebooksCurrent checks that every notebook-style example
// has its .ipynb, made from it by ToIPynb (go generate ./repl).
func TestExampleNotebooksCurrent(t *testing.T) {
	files, err := filepath.Glob("../examples/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ToIPynb(string(src)).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		nbPath := strings.TrimSuffix(f, ".go") + ".ipynb"
		got, err := os.ReadFile(nbPath)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s is missing or stale: run go generate ./repl (and add a new example to its go:generate line)", nbPath)
		}
	}
}

// TestToIPynb converts a small notebook-style file and reads it back.
func TestToIPynb(t *testing.T) {
	src := "//go:build ignore\n\n// # Title\n//\n// Intro.\n\n// %% First\n// Some prose.\nx := 1\nx\n\n// %% Second\nfmt.Println(x)\n"
	b, err := ToIPynb(src).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	nb, err := jupyter.ParseNotebook(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range nb.Cells {
		got = append(got, c.Type+": "+c.Source)
	}
	want := []string{"markdown: # Title\n\nIntro.", "markdown: ## First\n\nSome prose.", "code: x := 1\nx", "markdown: ## Second", "code: fmt.Println(x)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cells:\n%q\nwant\n%q", got, want)
	}
	if ks := nb.Metadata["kernelspec"].(map[string]any); ks["name"] != KernelName || ks["display_name"] != KernelDisplayName {
		t.Errorf("kernelspec %v", ks)
	}
}

// TestPartialRune checks that a stream's flush keeps back exactly the
// bytes of a character that a write cut.
func TestPartialRune(t *testing.T) {
	s := "aé€😀"
	for cut := 0; cut <= len(s); cut++ {
		b := []byte(s[:cut])
		k := partialRune(b)
		if !utf8.Valid(b[:len(b)-k]) || (k > 0 && utf8.FullRune(b[len(b)-k:])) {
			t.Errorf("%q: kept back %d bytes", b, k)
		}
		if k == 0 && !utf8.Valid(b) {
			t.Errorf("%q: kept back nothing of an incomplete character", b)
		}
	}
	if k := partialRune([]byte{0xff}); k != 0 {
		t.Errorf("an invalid byte: kept back %d", k)
	}
}
