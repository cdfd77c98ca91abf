package typecheck

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// An Importer gives go/types the packages the interpreter can import:
// compiled packages, from the interpreter's symbol tables, and the
// shell's source packages (see Source). It is safe for concurrent use;
// the packages it returns are shared by all the checks that use it.
type Importer struct {
	mu      sync.Mutex
	tables  map[string]table          // import path → symbol table
	pkgs    map[string]*types.Package // every package met so far, by path
	loaded  map[string]bool           // paths whose scope holds all their symbols
	sources map[string]*Source        // checked source packages, by path
	conv    *fromReflect              // reflect → go/types, under mu
	fset    *token.FileSet            // positions in source packages
	loading map[string]bool           // source packages being checked (import cycles)
	merged  map[string]bool           // compiled packages whose overlay is merged in
	sizes   types.Sizes               // of the machine the shell runs on
}

// table is the symbol table of one compiled package.
type table struct {
	name string
	syms map[string]reflect.Value
}

// New returns an Importer for the compiled packages in symbols, which
// maps "import/path/name" to a package's symbols, as interp.Exports does.
func New(symbols map[string]map[string]reflect.Value) *Importer {
	imp := &Importer{
		tables:  map[string]table{},
		pkgs:    map[string]*types.Package{},
		loaded:  map[string]bool{},
		sources: map[string]*Source{},
		fset:    token.NewFileSet(),
		loading: map[string]bool{},
		merged:  map[string]bool{},
		sizes:   types.SizesFor("gc", runtime.GOARCH),
	}
	imp.conv = &fromReflect{imp: imp, types: map[reflect.Type]types.Type{}}
	for key, syms := range symbols {
		i := strings.LastIndexByte(key, '/')
		if i < 0 {
			continue
		}
		path, name := key[:i], key[i+1:]
		t := imp.tables[path]
		if t.syms == nil {
			t = table{name: name, syms: map[string]reflect.Value{}}
		}
		for n, v := range syms {
			t.syms[n] = v
		}
		imp.tables[path] = t
	}
	return imp
}

// Sizes returns the sizes of types on the machine the shell runs on.
func (imp *Importer) Sizes() types.Sizes { return imp.sizes }

// Import returns the package at path.
func (imp *Importer) Import(path string) (*types.Package, error) {
	imp.mu.Lock()
	defer imp.mu.Unlock()
	return imp.importLocked(path)
}

// Has reports whether path can be imported.
func (imp *Importer) Has(path string) bool {
	if path == "unsafe" {
		return true
	}
	if _, ok := sourceDirs[path]; ok {
		return true
	}
	_, ok := imp.tables[path]
	return ok
}

// Packages lists the import paths that can be imported, sorted.
func (imp *Importer) Packages() []string {
	set := map[string]bool{"unsafe": true}
	for p := range imp.tables {
		set[p] = true
	}
	for p := range sourceDirs {
		if !strings.HasPrefix(p, shellPrefix) {
			set[p] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (imp *Importer) importLocked(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if _, ok := sourceDirs[path]; ok {
		src, err := imp.source(path)
		if err != nil {
			return nil, err
		}
		return src.Pkg, nil
	}
	t, ok := imp.tables[path]
	if !ok {
		return nil, fmt.Errorf("package %s is not available in the shell", path)
	}
	pkg := imp.pkg(path, t.name)
	if !imp.loaded[path] {
		imp.loaded[path] = true
		names := make([]string, 0, len(t.syms))
		for n := range t.syms {
			if !strings.HasPrefix(n, "_") && token.IsExported(n) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			if pkg.Scope().Lookup(n) != nil {
				continue // a type already created as another package referred to it
			}
			pkg.Scope().Insert(imp.conv.object(pkg, n, t.syms[n]))
		}
	}
	ov, ok := overlayDirs[path]
	if !ok || imp.merged[path] {
		pkg.MarkComplete()
		return pkg, nil
	}
	if src, checking := imp.sources[ov]; checking && src == nil {
		// The overlay's own import of the package it extends (go/types
		// takes only complete packages; the overlay's objects are added
		// after).
		pkg.MarkComplete()
		return pkg, nil
	}
	src, err := imp.source(ov)
	if err != nil {
		return nil, err
	}
	for _, n := range src.Pkg.Scope().Names() {
		if obj := src.Pkg.Scope().Lookup(n); obj.Exported() && pkg.Scope().Lookup(n) == nil {
			pkg.Scope().Insert(obj)
		}
	}
	imp.merged[path] = true
	pkg.MarkComplete()
	return pkg, nil
}

// pkg returns the package at path, creating it empty if it is new. name
// is its name, or "" to take it from the symbol tables or the path.
func (imp *Importer) pkg(path, name string) *types.Package {
	if p, ok := imp.pkgs[path]; ok {
		return p
	}
	if name == "" {
		if t, ok := imp.tables[path]; ok {
			name = t.name
		} else {
			name = guessName(path)
		}
	}
	p := types.NewPackage(path, name)
	imp.pkgs[path] = p
	return p
}

// guessName returns the likely name of the package at path: its last
// element, without a version suffix (math/rand/v2 is rand) or a
// character an identifier cannot have.
func guessName(path string) string {
	elems := strings.Split(path, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return r
	}, name)
	return name
}

// instance returns the instance of the generic type base of pkg that the
// compiled type t is (iter.Seq[string], say), when pkg is one of the
// shell's source packages; otherwise nil.
func (imp *Importer) instance(pkg *types.Package, base string, t reflect.Type, c *fromReflect) types.Type {
	if _, ok := sourceDirs[pkg.Path()]; !ok {
		return nil
	}
	src, err := imp.source(pkg.Path())
	if err != nil {
		return nil
	}
	tn, _ := src.Pkg.Scope().Lookup(base).(*types.TypeName)
	if tn == nil {
		return nil
	}
	gen, _ := tn.Type().(*types.Named)
	if gen == nil || gen.TypeParams().Len() == 0 {
		return nil
	}
	concrete := c.structure(t, pkg)
	bind := map[*types.TypeParam]types.Type{}
	if !match(gen.Underlying(), concrete, bind) {
		return nil
	}
	args := make([]types.Type, gen.TypeParams().Len())
	for i := range args {
		if args[i] = bind[gen.TypeParams().At(i)]; args[i] == nil {
			return nil
		}
	}
	inst, err := types.Instantiate(nil, gen, args, true)
	if err != nil {
		return nil
	}
	return inst
}

// match reports whether the concrete type c is the pattern p with its
// type parameters replaced, recording their values in bind.
func match(p, c types.Type, bind map[*types.TypeParam]types.Type) bool {
	switch p := p.(type) {
	case *types.TypeParam:
		if b, ok := bind[p]; ok {
			return types.Identical(b, c)
		}
		bind[p] = c
		return true
	case *types.Pointer:
		c, ok := c.(*types.Pointer)
		return ok && match(p.Elem(), c.Elem(), bind)
	case *types.Slice:
		c, ok := c.(*types.Slice)
		return ok && match(p.Elem(), c.Elem(), bind)
	case *types.Array:
		c, ok := c.(*types.Array)
		return ok && p.Len() == c.Len() && match(p.Elem(), c.Elem(), bind)
	case *types.Map:
		c, ok := c.(*types.Map)
		return ok && match(p.Key(), c.Key(), bind) && match(p.Elem(), c.Elem(), bind)
	case *types.Chan:
		c, ok := c.(*types.Chan)
		return ok && p.Dir() == c.Dir() && match(p.Elem(), c.Elem(), bind)
	case *types.Signature:
		c, ok := c.(*types.Signature)
		return ok && p.Variadic() == c.Variadic() && matchTuple(p.Params(), c.Params(), bind) && matchTuple(p.Results(), c.Results(), bind)
	}
	return types.Identical(p, c)
}

func matchTuple(p, c *types.Tuple, bind map[*types.TypeParam]types.Type) bool {
	if p.Len() != c.Len() {
		return false
	}
	for i := range p.Len() {
		if !match(p.At(i).Type(), c.At(i).Type(), bind) {
			return false
		}
	}
	return true
}
