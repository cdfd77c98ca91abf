package repl

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDoc(t *testing.T) {
	s, _, _ := newTestSession(t)
	for _, in := range []string{"a := ndarray.Ones(2, 3)", "// twice doubles.\nfunc twice(v int) int { return 2 * v }", "type pair struct{ A, B int }", "func (p *pair) Sum() int { return p.A + p.B }", "func (p *pair) Sum() int { return p.A*10 + p.B }"} {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		want []string // parts of the text, or of the error
		err  bool
	}{
		{"ndarray.Zeros", []string{"func Zeros(shape ...int) *Array"}, false},
		{"ndarray.Array", []string{"type Array struct", "Methods:", "func (a *Array) Reshape(shape ...int) *Array"}, false},
		{"ndarray.Array.Sum", []string{"func (a *Array) Sum(axis int) *Array"}, false},
		{"ndarray", []string{"package ndarray", "Types:", "WeightCollection"}, false},
		{"strings.ToUpper", []string{"func ToUpper(s string) string", "ToUpper returns s with all Unicode letters"}, false},
		{"a.Reshape", []string{"func (a *Array) Reshape(shape ...int) *Array"}, false},
		{"a", []string{"a is a *ndarray.Array", "type Array struct"}, false},
		{"twice", []string{"func twice(v int) int", "declared in in[2]"}, false},
		{"pair", []string{"type pair struct", "declared in in[3]"}, false},
		{"pair.Sum", []string{"func (p *pair) Sum() int", "p.A*10 + p.B", "declared in in[5]"}, false}, // the latest
		{"pair.Nope", []string{"pair has no method Nope"}, true},
		{"len", []string{"func len(v Type) int"}, false},
		{"rdd.Context.Master", []string{"func (sc *Context) Master() string"}, false},
		{"ndarray.Nope", []string{"package ndarray has no exported Nope"}, true},
		{"ndarray.Array.Nope", []string{"has no method or field Nope"}, true},
		{"nosuch", []string{"not an imported package"}, true},
		{"1+1", []string{"not a name"}, true},
	}
	for _, tc := range tests {
		text, err := s.Doc(tc.name)
		if (err != nil) != tc.err {
			t.Errorf(":doc %s: error %v", tc.name, err)
			continue
		}
		if err != nil {
			text = err.Error()
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf(":doc %s lacks %q:\n%s", tc.name, w, text)
			}
		}
	}
}

// TestDocOutsideModule checks that :doc documents sparknet's packages
// from a directory outside the module, where their source is not at
// hand (a notebook in a folder of its own), from the documentation the
// binary holds, and that the standard library's still comes from Go's
// source.
func TestDocOutsideModule(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, path := range []string{modulePath + "/ndarray", modulePath + "/rdd", modulePath + "/caffe", "strings"} {
		docCache.Delete(path)
		t.Cleanup(func() { docCache.Delete(path) })
	}
	s, _, _ := newTestSession(t)
	for name, want := range map[string]string{
		"ndarray.Zeros":           "func Zeros(shape ...int) *Array",
		"rdd.Context.Parallelize": "Parallelize distributes the elements of a slice",
		"caffe":                   "package caffe",
		"strings.ToUpper":         "ToUpper returns s with all Unicode letters",
	} {
		text, err := s.Doc(name)
		if err != nil || !strings.Contains(text, want) {
			t.Errorf(":doc %s outside the module: %q, %v; want it to hold %q", name, text, err, want)
		}
	}
}

// TestDocSourcesFresh checks that the documentation the binary holds
// (docsrc) is what go generate writes from the packages as they are now.
func TestDocSourcesFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run")
	}
	src, err := os.ReadFile("godoc.go")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for line := range strings.Lines(string(src)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:generate go run ./internal/docgen "); ok {
			args = strings.Fields(rest)
		}
	}
	if len(args) < 3 || args[0] != "-out" {
		t.Fatal("godoc.go has no //go:generate go run ./internal/docgen -out docsrc line")
	}
	// The packages are those the shell exposes, which stdlib.go's first
	// go:generate line lists.
	exposed, err := os.ReadFile("../stdlib/stdlib.go")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for line := range strings.Lines(string(exposed)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -name stdlib "); ok {
			want = strings.Fields(rest)
			break
		}
	}
	if !slices.Equal(args[2:], want) {
		t.Errorf("the packages documented (godoc.go's go:generate line) are %v; the shell exposes %v (stdlib.go)", args[2:], want)
	}
	out := t.TempDir()
	cmd := exec.Command("go", append([]string{"run", "./internal/docgen", "-out", out}, args[2:]...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docgen: %v\n%s", err, msg)
	}
	fresh, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadDir(args[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != len(old) {
		t.Errorf("docsrc has %d files, go generate writes %d; run go generate ./repl", len(old), len(fresh))
	}
	for _, e := range fresh {
		want, _ := os.ReadFile(filepath.Join(out, e.Name()))
		got, err := os.ReadFile(filepath.Join(args[1], e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docsrc/%s is stale or missing; run go generate ./repl", e.Name())
		}
	}
}

// TestDocComments checks that :doc of a declaration of the session shows
// its doc comment, where the declaration opens its input, follows another
// without a blank line, or is a method.
func TestDocComments(t *testing.T) {
	s, _, _ := newTestSession(t)
	for _, in := range []string{
		"// Point is a point.\ntype Point struct{ X, Y float64 }\n// Norm is the length.\nfunc (p Point) Norm() float64 { return 0 }\n\n// Free is free.\nfunc Free() {}",
		"// Scale scales.\n// It changes p.\nfunc (p *Point) Scale(f float64) {}",
	} {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"Point":       "// Point is a point.\ntype Point struct",
		"Point.Norm":  "// Norm is the length.\nfunc (p Point) Norm()",
		"Free":        "// Free is free.\nfunc Free()",
		"Point.Scale": "// Scale scales.\n// It changes p.\nfunc (p *Point) Scale(",
	} {
		text, err := s.Doc(name)
		if err != nil || !strings.Contains(text, want) {
			t.Errorf(":doc %s: %q, %v; want it to hold %q", name, text, err, want)
		}
	}
}

// TestDocValues checks :doc of values by the checker's types: a variable
// of the session's struct type names the type and shows its declaration
// (not the interpreter's structure), its methods and fields are found,
// the session's ctx is documented by its type, and a constant shows its
// value.
func TestDocValues(t *testing.T) {
	s, _, _ := newTestSession(t)
	if err := s.Eval(context.Background(), "type Point struct{ X, Y float64; name string }\n// Norm is the length.\nfunc (p Point) Norm() float64 { return math.Hypot(p.X, p.Y) }\npt := Point{3, 4, \"a\"}\npts := []Point{pt}\nconst K = 7"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"pt":      "pt is a main.Point\n\ntype Point struct",
		"pt.Norm": "// Norm is the length.\nfunc (p Point) Norm()",
		"pt.X":    "X float64",
		"ctx":     "ctx is a context.Context",
		"K":       "= 7",
		"pts":     "pts []main.Point\n\ntype Point struct",
	} {
		text, err := s.Doc(name)
		if err != nil || !strings.Contains(text, want) || strings.Contains(text, "Xname") {
			t.Errorf(":doc %s: %q, %v; want it to hold %q", name, text, err, want)
		}
	}
}

// TestDocInCell documents names that the lines of a cell above the
// cursor declare, which have not run (Shift-Tab in a notebook).
func TestDocInCell(t *testing.T) {
	s, _, _ := newTestSession(t)
	if err := s.Eval(context.Background(), "type Point struct{ X, Y float64 }\nfunc (p Point) Norm() float64 { return math.Hypot(p.X, p.Y) }\nq := 1"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ above, name, want string }{
		{"grid := ndarray.Ones(4)\n", "grid", "grid is a *ndarray.Array"},
		{"func walk(ps []Point) {\n\tfor _, p := range ps {\n\t\t", "p.Norm", "func (p Point) Norm()"},
		{"q := Point{}\n", "q", "q is a main.Point"}, // the cell's q, not the session's int
	} {
		text, err := s.DocIn(tc.above, tc.name)
		if err != nil || !strings.Contains(text, tc.want) {
			t.Errorf("DocIn(%q, %s): %q, %v; want it to hold %q", tc.above, tc.name, text, err, tc.want)
		}
	}
	if _, err := s.Doc("grid"); err == nil {
		t.Errorf(":doc grid found a name that only a cell's text declared")
	}
}
