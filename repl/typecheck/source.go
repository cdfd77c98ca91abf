package typecheck

import (
	"embed"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The shell's source packages are Go source that both go/types and the
// interpreter load, for what the interpreter's symbol tables cannot hold:
// generic functions, which compiled code cannot offer the interpreter.
// They are written for this project, to Go 1.26's API:
//
//   - _src/std/PATH: a standard package whose API is all generic
//     (iter, cmp, slices, maps); it replaces the package of that path.
//   - _src/overlay/PATH: generic functions of a standard package whose
//     other symbols are compiled (errors.AsType, sync.OnceValue): go/types
//     sees them as members of PATH.
//   - _src/shell/NAME: helpers that rewritten inputs call (min, max and
//     clear for the interpreter, which lacks them); inputs cannot import
//     them.
//
// The interpreter compiles a source package under its ID ("_sn_slices"),
// and inputs reach it through an import of that name, so that it never
// meets the interpreter's own (older) generic packages.

//go:embed _src
var srcFS embed.FS

// shellPrefix starts the import paths of overlays and helpers.
const shellPrefix = "sparknet-shell/"

var (
	// sourceDirs maps the import path of each source package to its
	// folder in srcFS.
	sourceDirs = map[string]string{}
	// overlayDirs maps a compiled package's path to the path of its
	// overlay.
	overlayDirs = map[string]string{}
)

func init() {
	err := fs.WalkDir(srcFS, "_src", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		dir := path.Dir(p)
		kind, rel, _ := strings.Cut(strings.TrimPrefix(dir, "_src/"), "/")
		switch kind {
		case "std":
			sourceDirs[rel] = dir
		case "overlay":
			sourceDirs[shellPrefix+"overlay/"+rel] = dir
			overlayDirs[rel] = shellPrefix + "overlay/" + rel
		case "shell":
			sourceDirs[shellPrefix+rel] = dir
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
}

// A Source is one of the shell's source packages, checked.
type Source struct {
	// Path is its import path for go/types: "slices", or
	// "sparknet-shell/overlay/errors" for an overlay.
	Path string
	// ID is the import path and name under which the interpreter
	// compiles it: "_sn_slices".
	ID string
	// Extends is, for an overlay, the path of the compiled package it
	// adds to.
	Extends string
	// Imports lists the paths of the source packages it imports, which
	// the interpreter must compile first.
	Imports []string
	// Pkg is the checked package.
	Pkg *types.Package

	files map[string]string // name → text
}

// SourceID returns the ID of the source package at path, or "" when path
// is not one.
func SourceID(path string) string {
	if _, ok := sourceDirs[path]; !ok {
		return ""
	}
	return idOf(path)
}

func idOf(p string) string {
	p = strings.TrimPrefix(p, shellPrefix)
	return "_sn_" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(p)
}

// IsSource reports whether pkg is one of the shell's source packages.
func IsSource(pkg *types.Package) bool {
	if pkg == nil {
		return false
	}
	_, ok := sourceDirs[pkg.Path()]
	return ok
}

// Source returns the source package at path, checked.
func (imp *Importer) Source(path string) (*Source, error) {
	imp.mu.Lock()
	defer imp.mu.Unlock()
	return imp.source(path)
}

// Helper returns the helper package named name ("builtin"), checked.
func (imp *Importer) Helper(name string) (*Source, error) {
	return imp.Source(shellPrefix + name)
}

// lockedImporter imports for a check that runs while imp.mu is held.
type lockedImporter struct{ imp *Importer }

func (l lockedImporter) Import(path string) (*types.Package, error) {
	return l.imp.importLocked(path)
}

func (imp *Importer) source(p string) (*Source, error) {
	if src, ok := imp.sources[p]; ok {
		if src == nil {
			return nil, fmt.Errorf("import cycle through %s", p)
		}
		return src, nil
	}
	dir, ok := sourceDirs[p]
	if !ok {
		return nil, fmt.Errorf("no source package %s", p)
	}
	imp.sources[p] = nil // marks it as being checked
	src := &Source{Path: p, ID: idOf(p), files: map[string]string{}}
	if strings.HasPrefix(p, shellPrefix+"overlay/") {
		src.Extends = strings.TrimPrefix(p, shellPrefix+"overlay/")
	}
	entries, err := fs.ReadDir(srcFS, dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := fs.ReadFile(srcFS, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		src.files[name] = string(b)
		f, err := parser.ParseFile(imp.fset, path.Join(strings.TrimPrefix(dir, "_src/"), name), b, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			if _, ok := sourceDirs[ip]; ok {
				src.Imports = append(src.Imports, ip)
			}
		}
	}
	sort.Strings(src.Imports)
	src.Imports = compact(src.Imports)
	var errs []error
	conf := types.Config{
		Importer:  lockedImporter{imp},
		GoVersion: GoVersion,
		Sizes:     imp.sizes,
		Error:     func(err error) { errs = append(errs, err) },
	}
	name := path.Base(p)
	if src.Extends != "" {
		name = guessName(src.Extends)
		if t, ok := imp.tables[src.Extends]; ok {
			name = t.name
		}
	}
	pkg := types.NewPackage(p, name)
	if err := types.NewChecker(&conf, imp.fset, pkg, nil).Files(files); err != nil && len(errs) == 0 {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		delete(imp.sources, p)
		return nil, fmt.Errorf("the shell's package %s does not check: %w", p, errors.Join(errs...))
	}
	src.Pkg = pkg
	imp.sources[p] = src
	return src, nil
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// File parses the package's files with fset as one file, as the
// interpreter compiles it: the package is named ID, and it imports the
// source packages it uses by their IDs, under their IDs.
func (src *Source) File(fset *token.FileSet) (*ast.File, error) {
	names := make([]string, 0, len(src.files))
	for n := range src.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out *ast.File
	var imports, decls []ast.Decl
	seen := map[string]bool{}
	for _, n := range names {
		f, err := parser.ParseFile(fset, src.ID+"/"+n, src.files[n], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = f
		}
		renamed := map[string]string{} // local import name → ID
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			if _, ok := sourceDirs[ip]; !ok {
				continue
			}
			local := path.Base(ip)
			if is.Name != nil {
				local = is.Name.Name
			}
			id := idOf(ip)
			renamed[local] = id
			is.Name = ast.NewIdent(id)
			is.Path.Value = strconv.Quote(id)
		}
		if len(renamed) > 0 {
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						if id, ok := renamed[x.Name]; ok {
							x.Name = id
						}
					}
				}
				return true
			})
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				for _, sp := range gd.Specs {
					is := sp.(*ast.ImportSpec)
					key := is.Path.Value
					if is.Name != nil {
						key = is.Name.Name + " " + key
					}
					if !seen[key] {
						seen[key] = true
						imports = append(imports, &ast.GenDecl{Tok: token.IMPORT, Specs: []ast.Spec{is}})
					}
				}
				continue
			}
			decls = append(decls, d)
		}
	}
	out.Name.Name = src.ID
	out.Decls = append(imports, decls...)
	out.Imports = nil
	return out, nil
}

// GoVersion is the language version inputs are checked against.
const GoVersion = "go1.26"
