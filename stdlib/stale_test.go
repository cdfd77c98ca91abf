package stdlib

import (
	"bufio"
	"go/types"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/stdlib/internal/stdsyms"
)

const (
	extractCmd = "go run github.com/traefik/yaegi/cmd/yaegi extract"
	stdCmd     = "go run ./internal/stdextract"
)

// generateArgs returns the arguments of stdlib.go's go:generate lines,
// keyed by the command they run: the one place that lists the packages.
func generateArgs(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("stdlib.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "//go:generate ")
		if !ok {
			continue
		}
		for _, cmd := range []string{extractCmd, stdCmd} {
			if rest, ok := strings.CutPrefix(line, cmd+" "); ok {
				lines[cmd] = strings.Fields(rest)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{extractCmd, stdCmd} {
		if lines[cmd] == nil {
			t.Fatalf("stdlib.go has no //go:generate %s line", cmd)
		}
	}
	return lines
}

// splitArgs separates packages from flags ("-name value").
func splitArgs(args []string) (pkgs []string, flags map[string]string) {
	flags = map[string]string{}
	for i := 0; i < len(args); i++ {
		if name, ok := strings.CutPrefix(args[i], "-"); ok {
			if i+1 < len(args) {
				flags[name] = args[i+1]
			}
			i++
			continue
		}
		pkgs = append(pkgs, args[i])
	}
	return pkgs, flags
}

// TestSymbolsCurrent fails when a generated table no longer matches its
// package: a symbol added, removed or changed from variable to function,
// an untyped constant with a new value, an interface with new methods,
// a table for a package no longer listed. Fix: go generate ./stdlib.
func TestSymbolsCurrent(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	args := generateArgs(t)
	ours, _ := splitArgs(args[extractCmd])
	_, flags := splitArgs(args[stdCmd])
	std := stdsyms.Packages(strings.Split(flags["add"], ","))
	im, err := stdsyms.NewImporter(append(append([]string{}, ours...), std...)...)
	if err != nil {
		t.Fatal(err)
	}

	listed := map[string]bool{}
	check := func(p string, want func(pkg *types.Package) []string) {
		pkg, err := im.Import(p)
		if err != nil {
			t.Error(err)
			return
		}
		key := stdsyms.Key(pkg)
		listed[key] = true
		if problems := stdsyms.Check(pkg, Symbols[key], want(pkg)); len(problems) > 0 {
			t.Errorf("%s: table is stale (%s); run go generate ./stdlib", p, strings.Join(problems, "; "))
		}
	}
	for _, p := range ours {
		check(p, stdsyms.Exported)
	}
	wantFiles := map[string]bool{}
	for _, p := range std {
		check(p, func(pkg *types.Package) []string {
			missing := stdsyms.Missing(pkg)
			if len(missing) > 0 {
				wantFiles[stdsyms.FileName(p)] = true
			}
			return missing
		})
	}
	for key := range Symbols {
		if !listed[key] {
			t.Errorf("table %s belongs to no package on a go:generate line; run go generate ./stdlib", key)
		}
	}

	// Files of packages taken off the lists.
	files, err := filepath.Glob("std_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !wantFiles[f] {
			t.Errorf("%s is not needed any more; run go generate ./stdlib", f)
		}
	}
	wantOurs := map[string]bool{}
	r := strings.NewReplacer("/", "-", ".", "_", "~", "_")
	for _, p := range ours {
		wantOurs[r.Replace(p)+".go"] = true
	}
	files, err = filepath.Glob("github_com-*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !wantOurs[f] {
			t.Errorf("%s belongs to no package on the go:generate line; delete it", f)
		}
	}
}

// TestSymbolsLoad checks that every listed sparknet package has a
// non-empty table under the key the interpreter expects.
func TestSymbolsLoad(t *testing.T) {
	ours, _ := splitArgs(generateArgs(t)[extractCmd])
	if len(ours) == 0 {
		t.Fatal("no sparknet packages on the go:generate line")
	}
	for _, p := range ours {
		key := p + "/" + path.Base(p)
		if len(Symbols[key]) == 0 {
			t.Errorf("no symbols for %s", key)
		}
	}
}
