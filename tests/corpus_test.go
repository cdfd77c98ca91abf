package tests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The language corpus: tests/corpus/*.go are small package main programs,
// each a point of the language as a tour of Go would show it. Every
// program runs three ways and must print the same thing each time:
//
//   - go: compiled by the go command, the reference;
//   - script: as sparknet-shell FILE.go;
//   - toplevel: in top-level form, as a sparknet-shell script without the
//     package clause, its imports as typed, its other declarations in
//     order and main's body last, as top-level statements.
//
// tests/corpus/exceptions.txt lists the known differences with their
// reasons; a listed program that passes fails the test until its line
// is removed, and README.md's pass counts must match the list.

// corpusModes are the ways a program runs besides the go command.
var corpusModes = []string{"script", "toplevel"}

// corpusProgram is one program of the corpus.
type corpusProgram struct {
	name string // file name, such as basics_hello.go
	path string
	src  []byte
	pkg  string // package name in the compiled reference binary
}

// TestCorpus runs the corpus three ways and compares the outputs.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(repoRoot, "tests", "corpus")
	progs := loadCorpus(t, dir)
	exc := loadExceptions(t, filepath.Join(dir, "exceptions.txt"), progs)
	checkCorpusCounts(t, progs, exc)

	work := t.TempDir()
	bin := buildCorpus(t, work, progs)
	top := filepath.Join(work, "toplevel")
	if err := os.Mkdir(top, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("programs", func(t *testing.T) {
		for _, p := range progs {
			t.Run(strings.TrimSuffix(p.name, ".go"), func(t *testing.T) {
				t.Parallel()
				want := runCorpus(t, bin, p.name)
				if again := runCorpus(t, bin, p.name); again != want {
					t.Fatalf("the compiled program prints differently from run to run; a corpus program must be deterministic:\n%s\nthen:\n%s", want, again)
				}
				want = strings.ReplaceAll(want, p.pkg+".", "main.")
				file := filepath.Join(top, p.name)
				form, err := topLevelForm(p.src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, form, 0o644); err != nil {
					t.Fatal(err)
				}
				for _, mode := range corpusModes {
					path := p.path
					if mode == "toplevel" {
						path = file
					}
					reason, known := exc[p.name][mode]
					// A known failure may be a hang: give it less time.
					limit := time.Minute
					if known {
						limit = 3 * time.Second
					}
					got := runCorpusShell(t, path, limit)
					switch {
					case got == want && known:
						t.Errorf("%s: runs as go run does now; remove its %s line from tests/corpus/exceptions.txt and update README.md's counts", mode, mode)
					case got != want && known:
						t.Logf("%s: known difference (%s)", mode, reason)
					case got != want:
						t.Errorf("%s: output differs from go run's%s\n--- go run:\n%s\n--- sparknet-shell:\n%s", mode, firstDiff(want, got), want, got)
					}
				}
			})
		}
	})
}

// loadCorpus reads the programs of dir.
func loadCorpus(t *testing.T, dir string) []corpusProgram {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus programs in", dir)
	}
	var progs []corpusProgram
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		progs = append(progs, corpusProgram{
			name: base,
			path: f,
			src:  src,
			pkg:  "corpus_" + strings.NewReplacer("-", "_", ".", "_").Replace(strings.TrimSuffix(base, ".go")),
		})
	}
	return progs
}

// loadExceptions reads the list of known differences: lines
//
//	NAME.go MODE reason...
//
// with MODE script or toplevel; # starts a comment.
func loadExceptions(t *testing.T, path string, progs []corpusProgram) map[string]map[string]string {
	t.Helper()
	known := map[string]bool{}
	for _, p := range progs {
		known[p.name] = true
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exc := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			t.Fatalf("%s:%d: want NAME.go MODE reason, got %q", path, n, line)
		}
		name, mode, reason := fields[0], fields[1], strings.Join(fields[2:], " ")
		if !known[name] {
			t.Fatalf("%s:%d: no corpus program %s", path, n, name)
		}
		if mode != "script" && mode != "toplevel" {
			t.Fatalf("%s:%d: mode %q: want script or toplevel", path, n, mode)
		}
		if exc[name] == nil {
			exc[name] = map[string]string{}
		}
		if _, dup := exc[name][mode]; dup {
			t.Fatalf("%s:%d: %s %s is listed twice", path, n, name, mode)
		}
		exc[name][mode] = reason
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return exc
}

// corpusCounts matches README.md's sentence with the corpus pass counts.
var corpusCounts = regexp.MustCompile(`(\d+) programs[^.]*?: (\d+) run as go run runs them as scripts and (\d+) in top-level form`)

// checkCorpusCounts checks README.md's pass counts against the corpus
// and its exceptions.
func checkCorpusCounts(t *testing.T, progs []corpusProgram, exc map[string]map[string]string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pass := map[string]int{}
	for _, mode := range corpusModes {
		pass[mode] = len(progs)
		for _, m := range exc {
			if _, ok := m[mode]; ok {
				pass[mode]--
			}
		}
	}
	want := []int{len(progs), pass["script"], pass["toplevel"]}
	m := corpusCounts.FindSubmatch(readme)
	if m == nil {
		t.Errorf("README.md does not give the corpus counts; it should say: %d programs ...: %d run as go run runs them as scripts and %d in top-level form", want[0], want[1], want[2])
		return
	}
	for i, w := range want {
		if got, _ := strconv.Atoi(string(m[i+1])); got != w {
			t.Errorf("README.md says %q; the corpus and tests/corpus/exceptions.txt give %d programs: %d as scripts, %d in top-level form", m[0], want[0], want[1], want[2])
			return
		}
	}
}

// buildCorpus compiles every program into one binary, each program in a
// package of its own named p.pkg (its main function and init functions
// run when the binary's first argument is the program's file name), and
// returns the binary's path.
func buildCorpus(t *testing.T, work string, progs []corpusProgram) string {
	t.Helper()
	mod := filepath.Join(work, "corpus")
	goVersion := "1.26"
	if gomod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod")); err == nil {
		if m := regexp.MustCompile(`(?m)^go (\S+)`).FindSubmatch(gomod); m != nil {
			goVersion = string(m[1])
		}
	}
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(mod, "go.mod"), []byte("module sparknetcorpus\n\ngo "+goVersion+"\n"))
	var main bytes.Buffer
	main.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n")
	for _, p := range progs {
		fmt.Fprintf(&main, "\t%q\n", "sparknetcorpus/"+p.pkg)
	}
	main.WriteString(")\n\nvar programs = map[string]func(){\n")
	for _, p := range progs {
		src, inits, err := asPackage(p.src, p.pkg)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		write(filepath.Join(mod, p.pkg, p.name), src)
		var run bytes.Buffer
		fmt.Fprintf(&run, "package %s\n\n// Run runs the program as its package main would run.\nfunc Run() {\n", p.pkg)
		for _, name := range inits {
			fmt.Fprintf(&run, "\t%s()\n", name)
		}
		run.WriteString("\tmain()\n}\n")
		write(filepath.Join(mod, p.pkg, "zz_run.go"), run.Bytes())
		fmt.Fprintf(&main, "\t%q: %s.Run,\n", p.name, p.pkg)
	}
	main.WriteString("}\n\nfunc main() {\n\tp := programs[os.Args[1]]\n\tif p == nil {\n\t\tfmt.Fprintln(os.Stderr, \"no program\", os.Args[1])\n\t\tos.Exit(2)\n\t}\n\tos.Args = os.Args[1:]\n\tp()\n}\n")
	write(filepath.Join(mod, "main.go"), main.Bytes())
	bin := filepath.Join(work, "corpus-bin")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("compiling the corpus: %v\n%s", err, out)
	}
	return bin
}

// asPackage turns a package main file into a file of package pkg: its
// init functions are renamed (and returned in order), so that they run
// only when the program does.
func asPackage(src []byte, pkg string) ([]byte, []string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	if f.Name.Name != "main" {
		return nil, nil, fmt.Errorf("package %s, want package main", f.Name.Name)
	}
	type edit struct {
		off, end int
		text     string
	}
	edits := []edit{{fset.Position(f.Name.Pos()).Offset, fset.Position(f.Name.End()).Offset, pkg}}
	var inits []string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
			name := fmt.Sprintf("corpusInit%d", len(inits))
			inits = append(inits, name)
			edits = append(edits, edit{fset.Position(fd.Name.Pos()).Offset, fset.Position(fd.Name.End()).Offset, name})
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].off < edits[j].off })
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		out.Write(src[last:e.off])
		out.WriteString(e.text)
		last = e.end
	}
	out.Write(src[last:])
	// The corpus files carry "//go:build ignore" so that the go command
	// leaves tests/corpus alone; here they must build.
	return bytes.Replace(out.Bytes(), []byte("//go:build ignore"), []byte("// (a corpus program)"), 1), inits, nil
}

// topLevelForm rewrites a package main file as top-level input: the
// comments before the package clause, the imports as typed, the other
// declarations in order, then the statements of main's body.
func topLevelForm(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	var out bytes.Buffer
	out.Write(src[:off(f.Package)])
	var body *ast.BlockStmt
	prev := off(f.Name.End())
	for _, d := range f.Decls {
		start, end := off(d.Pos()), off(d.End())
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
			start = off(fd.Doc.Pos())
		} else if gd, ok := d.(*ast.GenDecl); ok && gd.Doc != nil {
			start = off(gd.Doc.Pos())
		}
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			body = fd.Body
			prev = end
			continue
		}
		out.Write(src[prev:start])
		out.Write(src[start:end])
		prev = end
	}
	if body == nil {
		return nil, errors.New("no func main")
	}
	out.WriteString("\n")
	inner := string(src[off(body.Lbrace)+1 : off(body.Rbrace)])
	for _, line := range strings.Split(strings.Trim(inner, "\n"), "\n") {
		out.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	return out.Bytes(), nil
}

// runCorpus runs program name of the compiled corpus and returns what it
// printed, standard output and error together, and its exit status.
func runCorpus(t *testing.T, bin, name string) string {
	t.Helper()
	return runCorpusCmd(t, exec.Command(bin, name), time.Minute)
}

// runCorpusShell runs sparknet-shell FILE.go.
func runCorpusShell(t *testing.T, file string, limit time.Duration) string {
	t.Helper()
	cmd := exec.Command(shellBin, "--master", "local[2]", filepath.Base(file))
	cmd.Dir = filepath.Dir(file)
	return runCorpusCmd(t, cmd, limit)
}

// runCorpusCmd runs cmd and returns its output, with its exit status
// when not 0; it kills cmd after limit.
func runCorpusCmd(t *testing.T, cmd *exec.Cmd, limit time.Duration) string {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return out.String() + fmt.Sprintf("\n(killed after %v)", limit)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String() + fmt.Sprintf("\n(exit status %d)", ee.ExitCode())
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// firstDiff describes the first line where got differs from want.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf(" at line %d: %q, want %q", i+1, gl, wl)
		}
	}
	return ""
}
