// Package stdsyms compares interpreter symbol tables with the packages
// they describe. It finds the standard-library symbols that the
// interpreter's own tables (github.com/traefik/yaegi/stdlib, which stop at
// Go 1.22) lack for the Go toolchain in use, for the generator in
// ../stdextract, and it checks generated tables for staleness, for the
// tests of package stdlib.
package stdsyms

import (
	"bufio"
	"bytes"
	"fmt"
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"reflect"
	"slices"
	"strings"

	ys "github.com/traefik/yaegi/stdlib"
)

// Packages returns the standard import paths to consider, sorted: every
// standard package in the interpreter's tables plus extra, the standard
// packages it lacks entirely. Empty strings in extra are ignored.
func Packages(extra []string) []string {
	seen := map[string]bool{}
	for key := range ys.Symbols {
		p := path.Dir(key)
		if p == "." || strings.Contains(p, ".") {
			continue // yaegi's own entries, such as "github.com/traefik/yaegi/stdlib/stdlib"
		}
		seen[p] = true
	}
	for _, p := range extra {
		if p = strings.TrimSpace(p); p != "" {
			seen[p] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Importer loads packages from the export data that the go command builds.
type Importer struct {
	files map[string]string // import path → export data file
	imp   types.Importer
	pkgs  map[string]*types.Package
}

// NewImporter runs "go list -export -deps" once for paths, in the current
// directory's module, and returns an importer for them and their
// dependencies.
func NewImporter(paths ...string) (*Importer, error) {
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("stdsyms: go list: %w\n%s", err, stderr.Bytes())
	}
	im := &Importer{files: map[string]string{}, pkgs: map[string]*types.Package{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if p, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			im.files[p] = file
		}
	}
	im.imp = importer.ForCompiler(token.NewFileSet(), "gc", func(p string) (io.ReadCloser, error) {
		file, ok := im.files[p]
		if !ok {
			return nil, fmt.Errorf("stdsyms: no export data for %s", p)
		}
		return os.Open(file)
	})
	return im, nil
}

// Import returns the package at import path p.
func (im *Importer) Import(p string) (*types.Package, error) {
	if pkg, ok := im.pkgs[p]; ok {
		return pkg, nil
	}
	pkg, err := im.imp.Import(p)
	if err != nil {
		return nil, fmt.Errorf("stdsyms: %s: %w", p, err)
	}
	im.pkgs[p] = pkg
	return pkg, nil
}

// Key is the symbol-table key of pkg: "import/path/name".
func Key(pkg *types.Package) string { return pkg.Path() + "/" + pkg.Name() }

// Missing returns the exported symbols of pkg that the interpreter's own
// tables lack, sorted.
func Missing(pkg *types.Package) []string {
	have := ys.Symbols[Key(pkg)]
	var names []string
	for _, name := range Exported(pkg) {
		if _, ok := have[name]; !ok {
			names = append(names, name)
		}
	}
	return names
}

// Exported returns the names of pkg that an extracted symbol table holds:
// the exported constants, variables, functions and types, without generic
// functions and types and without constraint-only interfaces, sorted.
func Exported(pkg *types.Package) []string {
	var names []string
	sc := pkg.Scope()
	for _, name := range sc.Names() { // sorted
		o := sc.Lookup(name)
		if !o.Exported() {
			continue
		}
		switch o := o.(type) {
		case *types.Func:
			if s := o.Type().(*types.Signature); s.TypeParams().Len() > 0 {
				continue
			}
		case *types.TypeName:
			if t, ok := o.Type().(*types.Named); ok && t.TypeParams().Len() > 0 {
				continue
			}
			if t, ok := o.Type().Underlying().(*types.Interface); ok && t.NumMethods() == 0 && t.NumEmbeddeds() != 0 {
				continue
			}
		}
		names = append(names, name)
	}
	return names
}

// Check compares table, a generated symbol table of pkg, with the
// symbols want it should hold, and returns what is stale: missing or
// extra names, variables that scripts could not assign, untyped
// constants whose value changed, and interface wrappers that lack
// methods of their interface.
func Check(pkg *types.Package, table map[string]reflect.Value, want []string) []string {
	var problems []string
	var got []string
	for name := range table {
		if !strings.HasPrefix(name, "_") {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	for _, name := range want {
		if _, ok := slices.BinarySearch(got, name); !ok {
			problems = append(problems, "missing "+name)
		}
	}
	for _, name := range got {
		if _, ok := slices.BinarySearch(want, name); !ok {
			problems = append(problems, "extra "+name)
		}
	}
	for _, name := range want {
		v, ok := table[name]
		if !ok {
			continue
		}
		switch o := pkg.Scope().Lookup(name).(type) {
		case *types.Var:
			if !v.CanSet() {
				problems = append(problems, "variable "+name+" is not addressable")
			}
		case *types.Const:
			if b, ok := o.Type().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				if c, ok := v.Interface().(constant.Value); ok && c.ExactString() != o.Val().ExactString() && !sameFloat(c, o.Val()) {
					problems = append(problems, fmt.Sprintf("constant %s is %s, not %s", name, c.ExactString(), o.Val().ExactString()))
				}
			}
		case *types.TypeName:
			iface, ok := o.Type().Underlying().(*types.Interface)
			if !ok {
				continue
			}
			w, ok := table["_"+name]
			if !ok {
				problems = append(problems, "no wrapper for interface "+name)
				continue
			}
			wt := w.Type().Elem()
			for i := range iface.NumMethods() {
				m := iface.Method(i)
				if m.Exported() {
					if _, ok := wt.MethodByName(m.Name()); !ok {
						problems = append(problems, fmt.Sprintf("wrapper for interface %s lacks method %s", name, m.Name()))
					}
				}
			}
		}
	}
	return problems
}

// sameFloat reports whether two float constants agree to float64
// precision (the generator writes floats in their shortest exact form).
func sameFloat(a, b constant.Value) bool {
	if a.Kind() != constant.Float && b.Kind() != constant.Float {
		return false
	}
	x, _ := constant.Float64Val(constant.ToFloat(a))
	y, _ := constant.Float64Val(constant.ToFloat(b))
	return x == y
}

// FileName is the name of the generated file for standard package
// importPath.
func FileName(importPath string) string {
	return "std_" + strings.NewReplacer("/", "_", ".", "_").Replace(importPath) + ".go"
}
