package repl

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Doc returns the signature and documentation of name, which is one of
// a package imported in the session (ndarray), a member of one
// (ndarray.Zeros, ndarray.Array, ndarray.Array.Reshape), a builtin
// (len), a function or type an input declared, or a variable or a
// method or field of a variable's type (a, a.Reshape). Documentation
// comes from the packages' Go source, found the way the go command finds
// it from the current directory; for sparknet's own packages, from the
// documentation the binary holds where their source is not found.
func (s *Session) Doc(name string) (string, error) { return s.DocIn("", name) }

// DocIn is Doc for a name on a line of an input whose lines above it are
// above (a notebook cell's): the variables they declare, and the types
// they give them, count.
func (s *Session) DocIn(above, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docAbove = above
	defer func() { s.docAbove = "" }()
	parts := strings.Split(strings.TrimSpace(name), ".")
	for _, p := range parts {
		if !token.IsIdentifier(p) {
			return "", fmt.Errorf(":doc %s: not a name; try :doc ndarray, :doc ndarray.Zeros or :doc a.Reshape", name)
		}
	}
	if path, ok := s.imported[inputFile][parts[0]]; ok && parts[0] != rtName {
		return packageMember(path, parts[1:])
	}
	if d, ok := s.lookup(parts[0]); ok {
		if (d.kind == "func" || d.kind == "type") && len(parts) == 1 {
			if text, ok := s.declSource(d.name, ""); ok {
				return text, nil
			}
		}
		if d.kind == "type" {
			// A method of the session's type (not a value to evaluate).
			if len(parts) == 2 {
				if text, ok := s.declSource(d.name, parts[1]); ok {
					return text, nil
				}
			}
			return "", fmt.Errorf(":doc %s: %s has no method %s declared in this session", name, parts[0], strings.Join(parts[1:], "."))
		}
		return s.valueDoc(name, parts)
	}
	if len(parts) <= 2 {
		// A name of the session's prelude (sc, ctx), or a member of its
		// type.
		head, member := parts[0], ""
		if len(parts) == 2 {
			member = parts[1]
		}
		if text, ok := s.typedDoc(name, head, member); ok {
			return text, nil
		}
	}
	if len(parts) == 1 && (builtinFuncs[parts[0]] || intTypes[parts[0]] || builtinTypes[parts[0]]) {
		return packageMember("builtin", parts)
	}
	return "", fmt.Errorf(":doc %s: %s is not an imported package, a name declared in this session or a builtin (imported: %s)",
		name, parts[0], strings.Join(sortedKeys(AutoImports), " "))
}

var builtinTypes = map[string]bool{"bool": true, "string": true, "error": true, "any": true, "float32": true, "float64": true, "complex64": true, "complex128": true}

func (s *Session) lookup(name string) (declared, bool) {
	for i := len(s.names) - 1; i >= 0; i-- {
		if s.names[i].name == name {
			return s.names[i], true
		}
	}
	return declared{}, false
}

// valueDoc documents a variable's type, or a method or field of it.
func (s *Session) valueDoc(name string, parts []string) (string, error) {
	head, member := parts, ""
	if len(parts) > 1 {
		head, member = parts[:len(parts)-1], parts[len(parts)-1]
	}
	if text, ok := s.typedDoc(name, strings.Join(head, "."), member); ok {
		return text, nil
	}
	v, err := s.value(strings.Join(head, "."))
	if err != nil || !v.IsValid() {
		return "", fmt.Errorf(":doc %s: cannot evaluate %s", name, strings.Join(head, "."))
	}
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	t := v.Type()
	named := t
	if named.Kind() == reflect.Pointer {
		named = named.Elem()
	}
	if named.PkgPath() == "" || named.Name() == "" {
		if member != "" {
			return "", fmt.Errorf(":doc %s: %s is a %s, which has no documentation", name, strings.Join(head, "."), t)
		}
		return fmt.Sprintf("%s %s", strings.Join(head, "."), t), nil
	}
	path := named.PkgPath()
	if member == "" {
		text, err := packageMember(path, []string{named.Name()})
		return fmt.Sprintf("%s is a %s\n\n%s", name, t, text), err
	}
	return packageMember(path, []string{named.Name(), member})
}

// declSource returns the source of the func or type declaration of name
// in the accepted inputs, the latest first; with method, that of the
// method of type name.
func (s *Session) declSource(name, method string) (string, bool) {
	for i := len(s.inputs) - 1; i >= 0; i-- {
		src := s.inputs[i].Src
		fset := token.NewFileSet()
		for _, ch := range chunks(splitUnits(src).units, len(src)) {
			prefix, suffix := chunkWrap(ch.kind)
			f, err := parser.ParseFile(fset, "", prefix+src[ch.start:ch.end]+suffix, parser.ParseComments)
			if err != nil {
				continue
			}
			var found ast.Node
			start := token.NoPos // where the declaration starts: its doc comment is above
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					if method == "" && n.Recv == nil && n.Name.Name == name ||
						method != "" && n.Recv != nil && n.Name.Name == method && recvName(n) == name {
						found, start = n, n.Pos()
						n.Doc = nil // written from the source below
					}
				case *ast.GenDecl:
					for _, sp := range n.Specs {
						if ts, ok := sp.(*ast.TypeSpec); ok && method == "" && ts.Name.Name == name {
							found, start = ts, ts.Pos()
							if len(n.Specs) == 1 && !n.Lparen.IsValid() {
								start = n.Pos()
							}
							ts.Doc = nil
						}
					}
				}
				return found == nil
			})
			if found != nil {
				var b bytes.Buffer
				off := ch.start + fset.Position(start).Offset - len(prefix)
				b.WriteString(commentAbove(src, off))
				if _, ok := found.(*ast.TypeSpec); ok {
					b.WriteString("type ")
				}
				printer.Fprint(&b, fset, found)
				return fmt.Sprintf("%s\n\n(declared in %s[%d])", b.String(), s.inputName(), s.inputs[i].N), true
			}
		}
	}
	return "", false
}

// typedDoc documents expr (a variable or constant, or a selection of
// one), or its member (a method or field) when member is not "", by the
// type the checker gives it: a constant with its value, a value of the
// session's types with the type's declaration, a method's or a field's
// of them, a value of a compiled package's named type with that type's
// documentation. The interpreter's values of the session's structs are
// structures that reflection cannot name (struct { X float64; ... }).
func (s *Session) typedDoc(name, expr, member string) (string, bool) {
	tv, _, _, ok := s.localExpr(s.docAbove+expr, expr)
	if !ok {
		tv, _, _, ok = s.typedExpr(expr)
	}
	if !ok || tv.IsType() || tv.IsBuiltin() {
		return "", false
	}
	qual := func(p *types.Package) string { return p.Name() }
	if member == "" && tv.Value != nil {
		return fmt.Sprintf("const %s %s = %s", expr, types.TypeString(tv.Type, qual), tv.Value), true
	}
	t := tv.Type
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok && member == "" {
		// A slice, map, array or channel ([]Reading): its type, and the
		// declaration of the session's type its elements have.
		text := fmt.Sprintf("%s %s", expr, types.TypeString(tv.Type, qual))
		if e, ok := elemNamed(tv.Type); ok && e.Obj().Pkg() != nil && e.Obj().Pkg().Path() == "main" {
			if decl, ok := s.declSource(e.Obj().Name(), ""); ok {
				text += "\n\n" + decl
			}
		}
		return text, true
	}
	if !ok || n.Obj().Pkg() == nil {
		return "", false
	}
	tname := n.Obj().Name()
	if n.Obj().Pkg().Path() != "main" {
		// A compiled package's type: its documentation.
		if member == "" {
			text, err := packageMember(n.Obj().Pkg().Path(), []string{tname})
			if err != nil {
				return "", false
			}
			return fmt.Sprintf("%s is a %s\n\n%s", name, types.TypeString(tv.Type, qual), text), true
		}
		text, err := packageMember(n.Obj().Pkg().Path(), []string{tname, member})
		return text, err == nil
	}
	if member == "" {
		text, ok := s.declSource(tname, "")
		if !ok {
			return "", false
		}
		return fmt.Sprintf("%s is a %s\n\n%s", name, types.TypeString(tv.Type, qual), text), true
	}
	if text, ok := s.declSource(tname, member); ok {
		return text, true
	}
	if st, ok := n.Underlying().(*types.Struct); ok {
		for f := range st.Fields() {
			if f.Name() == member {
				return fmt.Sprintf("%s %s\n\n(a field of %s)", member, types.TypeString(f.Type(), qual), types.TypeString(n, qual)), true
			}
		}
	}
	return "", false
}

// elemNamed returns the named type that the elements of t (a slice,
// array, map, channel or pointer, of those in turn) have, if they have
// one.
func elemNamed(t types.Type) (*types.Named, bool) {
	for {
		switch u := types.Unalias(t).(type) {
		case *types.Named:
			return u, true
		case *types.Slice:
			t = u.Elem()
		case *types.Array:
			t = u.Elem()
		case *types.Map:
			t = u.Elem()
		case *types.Chan:
			t = u.Elem()
		case *types.Pointer:
			t = u.Elem()
		default:
			return nil, false
		}
	}
}

// commentAbove returns the lines of // comments of src right above the
// line that holds offset off (a declaration's doc comment), each ending
// in a newline, or "".
func commentAbove(src string, off int) string {
	if off < 0 || off > len(src) {
		return ""
	}
	end := strings.LastIndexByte(src[:off], '\n') + 1 // the declaration's line
	start := end
	for start > 0 {
		prev := strings.LastIndexByte(src[:start-1], '\n') + 1
		if !strings.HasPrefix(strings.TrimSpace(src[prev:start-1]), "//") {
			break
		}
		start = prev
	}
	var b strings.Builder
	for line := range strings.Lines(src[start:end]) {
		b.WriteString(strings.TrimSpace(line) + "\n")
	}
	return b.String()
}

// recvName returns the name of method fd's receiver type, "" for a
// function.
func recvName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	x := fd.Recv.List[0].Type
	if st, ok := x.(*ast.StarExpr); ok {
		x = st.X
	}
	switch t := x.(type) {
	case *ast.IndexExpr:
		x = t.X
	case *ast.IndexListExpr:
		x = t.X
	}
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// docCache holds parsed package documentation by import path.
var docCache sync.Map // string → *pkgDoc

type pkgDoc struct {
	fset *token.FileSet
	pkg  *doc.Package
	err  error
}

// loadDoc parses the documentation of the package at import path.
func loadDoc(path string) (*pkgDoc, error) {
	if d, ok := docCache.Load(path); ok {
		return d.(*pkgDoc), d.(*pkgDoc).err
	}
	d := &pkgDoc{fset: token.NewFileSet()}
	d.pkg, d.err = parseDoc(d.fset, path)
	docCache.Store(path, d)
	return d, d.err
}

func parseDoc(fset *token.FileSet, path string) (*doc.Package, error) {
	var parsed []*ast.File
	dir, files, err := findPackage(path)
	if err != nil {
		// sparknet's own packages, away from the module's source (a
		// notebook in a folder of its own): the declarations and
		// comments that go generate wrote into the binary.
		text, ok := embeddedDoc(path)
		if !ok {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path+"/doc.go", text, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("repl: :doc: %w", err)
		}
		parsed = append(parsed, f)
	}
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("repl: :doc: %w", err)
		}
		parsed = append(parsed, f)
	}
	var mode doc.Mode
	if path == "builtin" {
		mode = doc.AllDecls // its names are not exported
	}
	p, err := doc.NewFromFiles(fset, parsed, path, mode)
	if err != nil {
		return nil, fmt.Errorf("repl: :doc %s: %w", path, err)
	}
	return p, nil
}

// The documentation of sparknet's packages that the shell imports: each
// package's exported declarations with their comments (docsrc), for
// :doc and a notebook's inspection where the Go source is not at hand.
//
//go:generate go run ./internal/docgen -out docsrc github.com/sparknet-go/sparknet github.com/sparknet-go/sparknet/ndarray github.com/sparknet-go/sparknet/data github.com/sparknet-go/sparknet/rdd github.com/sparknet-go/sparknet/caffe github.com/sparknet-go/sparknet/caffe/caffepb github.com/sparknet-go/sparknet/caffe/format github.com/sparknet-go/sparknet/repl/display github.com/sparknet-go/sparknet/ui

//go:embed docsrc/*.txt
var docSources embed.FS

// embeddedDoc returns the documentation source of the package at import
// path that the binary holds (docsrc), if it holds one.
func embeddedDoc(path string) ([]byte, bool) {
	b, err := docSources.ReadFile("docsrc/" + strings.ReplaceAll(path, "/", "_") + ".txt")
	return b, err == nil
}

// modulePath is sparknet's module path.
const modulePath = "github.com/sparknet-go/sparknet"

// findPackage returns the directory and Go files of the package at
// import path: through the go command from the current directory, or,
// for sparknet's packages, in the enclosing checkout of the module.
func findPackage(path string) (dir string, files []string, err error) {
	cwd, _ := os.Getwd()
	bp, err := build.Import(path, cwd, 0)
	if err == nil {
		return bp.Dir, bp.GoFiles, nil
	}
	if rel, ok := strings.CutPrefix(path+"/", modulePath+"/"); ok {
		if root := moduleRoot(cwd); root != "" {
			if bp, err2 := build.ImportDir(filepath.Join(root, rel), 0); err2 == nil {
				return bp.Dir, bp.GoFiles, nil
			}
		}
	}
	return "", nil, fmt.Errorf(":doc needs the Go source of %s, which the go command does not find from here: %v", path, err)
}

// moduleRoot returns the enclosing directory of dir whose go.mod declares
// sparknet's module, or "".
func moduleRoot(dir string) string {
	for ; dir != "" && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan()
		f.Close()
		if strings.TrimSpace(strings.TrimPrefix(sc.Text(), "module")) == modulePath {
			return dir
		}
	}
	return ""
}

// packageMember documents a package (no names), one of its members, or
// a method or field of one of its types.
func packageMember(path string, names []string) (string, error) {
	d, err := loadDoc(path)
	if err != nil {
		return "", err
	}
	p := d.pkg
	what := strings.Join(append([]string{p.Name}, names...), ".")
	if len(names) == 0 {
		return packageSummary(d), nil
	}
	name := names[0]
	for _, f := range p.Funcs {
		if f.Name == name && len(names) == 1 {
			return funcDoc(d.fset, f), nil
		}
	}
	for _, t := range p.Types {
		if t.Name == name {
			if len(names) == 1 {
				return typeDoc(d.fset, t), nil
			}
			for _, f := range append(slices.Clone(t.Methods), t.Funcs...) {
				if f.Name == names[1] {
					return funcDoc(d.fset, f), nil
				}
			}
			if field, ok := fieldDoc(d.fset, t, names[1]); ok {
				return field, nil
			}
			return "", fmt.Errorf(":doc %s: %s.%s has no method or field %s; it has %s", what, p.Name, name, names[1], strings.Join(memberNames(t), ", "))
		}
		for _, f := range t.Funcs {
			if f.Name == name && len(names) == 1 {
				return funcDoc(d.fset, f), nil
			}
		}
		for _, v := range append(slices.Clone(t.Consts), t.Vars...) {
			if slices.Contains(v.Names, name) {
				return valueGroupDoc(d.fset, v), nil
			}
		}
	}
	for _, v := range append(slices.Clone(p.Consts), p.Vars...) {
		if slices.Contains(v.Names, name) {
			return valueGroupDoc(d.fset, v), nil
		}
	}
	return "", fmt.Errorf(":doc %s: package %s has no exported %s", what, p.Name, name)
}

func nodeText(fset *token.FileSet, n any) string {
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 4}
	if err := cfg.Fprint(&b, fset, n); err != nil {
		return fmt.Sprint(n)
	}
	return b.String()
}

func indentDoc(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	return "\n\n    " + strings.ReplaceAll(text, "\n", "\n    ")
}

func funcDoc(fset *token.FileSet, f *doc.Func) string {
	decl := *f.Decl
	decl.Doc, decl.Body = nil, nil
	return nodeText(fset, &decl) + indentDoc(f.Doc)
}

func typeDoc(fset *token.FileSet, t *doc.Type) string {
	decl := *t.Decl
	decl.Doc = nil
	var b strings.Builder
	b.WriteString(nodeText(fset, &decl) + indentDoc(t.Doc))
	list := func(title string, fs []*doc.Func) {
		if len(fs) == 0 {
			return
		}
		b.WriteString("\n\n" + title + ":")
		for _, f := range fs {
			fd := *f.Decl
			fd.Doc, fd.Body = nil, nil
			b.WriteString("\n    " + nodeText(fset, &fd))
		}
	}
	list("Constructors", t.Funcs)
	list("Methods", t.Methods)
	return b.String()
}

func fieldDoc(fset *token.FileSet, t *doc.Type, name string) (string, bool) {
	for _, spec := range t.Decl.Specs {
		ts, ok := spec.(*ast.TypeSpec)
		if !ok {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			for _, n := range f.Names {
				if n.Name == name {
					text := fmt.Sprintf("field %s.%s %s", t.Name, name, nodeText(fset, f.Type))
					if f.Doc != nil {
						text += indentDoc(f.Doc.Text())
					} else if f.Comment != nil {
						text += indentDoc(f.Comment.Text())
					}
					return text, true
				}
			}
		}
	}
	return "", false
}

func memberNames(t *doc.Type) []string {
	var names []string
	for _, f := range t.Methods {
		names = append(names, f.Name)
	}
	return names
}

func valueGroupDoc(fset *token.FileSet, v *doc.Value) string {
	decl := *v.Decl
	decl.Doc = nil
	return nodeText(fset, &decl) + indentDoc(v.Doc)
}

func packageSummary(d *pkgDoc) string {
	p := d.pkg
	var b strings.Builder
	fmt.Fprintf(&b, "package %s // import %q%s", p.Name, p.ImportPath, indentDoc(p.Doc))
	var funcs, types []string
	for _, f := range p.Funcs {
		funcs = append(funcs, f.Name)
	}
	for _, t := range p.Types {
		types = append(types, t.Name)
		for _, f := range t.Funcs {
			funcs = append(funcs, f.Name)
		}
	}
	sort.Strings(funcs)
	if len(types) > 0 {
		b.WriteString("\n\nTypes: " + strings.Join(types, ", "))
	}
	if len(funcs) > 0 {
		b.WriteString("\nFunctions: " + strings.Join(funcs, ", "))
	}
	return b.String()
}
