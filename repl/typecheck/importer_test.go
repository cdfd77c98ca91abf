package typecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sparknet-go/sparknet/stdlib"
	yaegistdlib "github.com/traefik/yaegi/stdlib"
)

// testImporter is an Importer for the interpreter's tables and
// sparknet's, as the shell merges them.
var testImporter = sync.OnceValue(func() *Importer {
	all := map[string]map[string]reflect.Value{}
	for _, tables := range []map[string]map[string]reflect.Value{yaegistdlib.Symbols, stdlib.Symbols} {
		for k, syms := range tables {
			if all[k] == nil {
				all[k] = map[string]reflect.Value{}
			}
			for n, v := range syms {
				all[k][n] = v
			}
		}
	}
	return New(all)
})

// check type-checks src as a package main file and returns its errors.
func check(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	conf := types.Config{Importer: testImporter(), GoVersion: GoVersion, Error: func(err error) { errs = append(errs, err.Error()) }}
	conf.Check("main", fset, []*ast.File{f}, nil)
	return errs
}

func TestImportChecks(t *testing.T) {
	tests := []struct {
		name, src string
		errs      []string // parts of the errors, in order
	}{
		{"fmt and strings", `package main
import ("fmt"; "strings"; "time"; "os"; "math")
func main() {
	fmt.Println(strings.Repeat("a", 3), time.Second*2, math.Pi, os.Args)
	var d time.Duration = 3 * time.Millisecond
	_ = d.Seconds()
	var s fmt.Stringer = d
	_ = s
	f, err := os.Open("x")
	if err == nil { defer f.Close() }
}`, nil},
		{"too few arguments", `package main
import "strings"
func main() { strings.Repeat("a") }`, []string{"not enough arguments in call to strings.Repeat\n\thave (string)\n\twant (string, int)"}},
		{"two results in a single-value context", `package main
import "strconv"
func main() { x := strconv.Atoi("1"); _ = x }`, []string{"assignment mismatch: 1 variable but strconv.Atoi returns 2 values"}},
		{"sparknet packages", `package main
import ("github.com/sparknet-go/sparknet/ndarray"; "github.com/sparknet-go/sparknet/rdd"; "github.com/sparknet-go/sparknet")
func main() {
	a := ndarray.Arange(0, 6, 1).Reshape(2, 3)
	_ = a.MatMul(a.T())
	sc, _ := rdd.NewContextWith(rdd.Options{Master: "local[2]"})
	_ = sc
	var o sparknet.Options
	o.Tau = 5
}`, nil},
		{"generic packages", `package main
import ("slices"; "maps"; "iter"; "cmp"; "strings"; "fmt"; "errors")
type E struct{}
func (E) Error() string { return "e" }
func main() {
	x := []int{3, 1, 2}
	slices.Sort(x)
	m := map[string]int{"a": 1}
	keys := slices.Sorted(maps.Keys(m))
	var seq iter.Seq[string] = strings.Lines("a\nb")
	lines := slices.Collect(strings.Lines("a\nb"))
	fmt.Println(keys, seq, lines, cmp.Compare(1, 2), slices.Max(x))
	e, ok := errors.AsType[E](errors.New("x"))
	_, _ = e, ok
}`, nil},
		{"a method that hides an embedded field's", `package main
import ("text/template"; "os"; "bufio")
func main() {
	// Template.Parse returns a *Template; the *parse.Tree that Template
	// embeds has a Parse of its own.
	t := template.Must(template.New("t").Parse("{{.}}"))
	_ = t.Execute(os.Stdout, 1)
	// bufio.ReadWriter's Read and Write come from its fields.
	var rw *bufio.ReadWriter
	_, _ = rw.Read(nil)
	_, _ = rw.WriteString("x")
}`, nil},
		{"generic misuse", `package main
import "slices"
func main() { slices.Sort([]func(){}) }`, []string{"func() does not satisfy cmp.Ordered"}},
		{"unavailable package", `package main
import "gorgonia.org/tensor"
var _ tensor.Dense`, []string{"could not import gorgonia.org/tensor"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := check(t, tc.src)
			if len(errs) != len(tc.errs) {
				t.Fatalf("errors %q, want %q", errs, tc.errs)
			}
			for i, e := range errs {
				if !strings.Contains(e, tc.errs[i]) {
					t.Errorf("error %q, want %q", e, tc.errs[i])
				}
			}
		})
	}
}

// TestImportAll imports every package the interpreter knows.
func TestImportAll(t *testing.T) {
	imp := testImporter()
	for _, p := range imp.Packages() {
		pkg, err := imp.Import(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if pkg.Scope().Len() == 0 && p != "unsafe" {
			t.Errorf("%s: no symbols", p)
		}
	}
}
