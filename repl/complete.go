package repl

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// completer completes at the prompt: commands after a colon, file names
// after :load and :save, and otherwise Go names: keywords, builtins,
// imported packages and the names inputs declared; after "pkg." the
// package's members; after "x." the methods and fields of x's type.
type completer struct{ sh *Shell }

var goKeywords = []string{
	"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
	"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
	"return", "select", "struct", "switch", "type", "var",
}

// Do implements readline.AutoCompleter: it returns the candidates' rest
// after the word before the cursor, and the length of that word.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	before := string(line[:pos])
	if strings.TrimSpace(before) == "" {
		// Tab at the start of a line is indentation (pasted code has it).
		return [][]rune{[]rune("\t")}, 0
	}
	c.sh.mu.Lock()
	above := c.sh.above
	c.sh.mu.Unlock()
	word, cands := c.sh.s.CompleteIn(above, before)
	var out [][]rune
	for _, cand := range cands {
		out = append(out, []rune(strings.TrimPrefix(cand, word)))
	}
	return out, len([]rune(word))
}

// Complete returns the word being typed at the end of before and the
// completions of it, sorted.
func (s *Session) Complete(before string) (word string, cands []string) {
	return s.CompleteIn("", before)
}

// CompleteIn is Complete on a line of an input whose lines above it are
// above (a notebook cell's, or a multi-line input's at the prompt): the
// names they declare, and the types they give them, count.
func (s *Session) CompleteIn(above, before string) (word string, cands []string) {
	trimmed := strings.TrimLeft(before, " \t")
	if strings.HasPrefix(trimmed, ":") {
		cmd, arg, hasArg := strings.Cut(trimmed, " ")
		if !hasArg {
			return cmd, filterPrefix(commandNames(), cmd)
		}
		switch cmd {
		case ":load", ":save":
			return completeFile(arg)
		case ":help", ":h":
			return arg, filterPrefix(append(helpTopics(), sortedKeys(commands)...), arg)
		case ":doc", ":time":
			before = arg
		default:
			return "", nil
		}
	}
	// The word: the identifiers and dots before the cursor.
	i := len(before)
	for i > 0 {
		r := rune(before[i-1])
		if r != '.' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i--
	}
	expr := before[i:]
	dot := strings.LastIndexByte(expr, '.')
	if dot < 0 {
		names := s.names0()
		s.mu.Lock()
		names = append(names, s.localNames(above+before[:len(before)-len(expr)])...)
		s.mu.Unlock()
		return expr, filterPrefix(dedupSorted(names), expr)
	}
	head, partial := expr[:dot], expr[dot+1:]
	if strings.HasPrefix(expr, ".") {
		// After a call or an index: net.Blob("data").Sh
		chain := chainBefore(before[:i])
		if chain == "" {
			return partial, nil
		}
		head = chain + head
	}
	if !s.isPackage(head) {
		s.mu.Lock()
		names, ok := s.localMembers(above+before[:len(before)-len(partial)-1], head)
		if !ok {
			names, ok = s.typedMembers(head)
		}
		s.mu.Unlock()
		if ok {
			return partial, filterPrefix(names, partial)
		}
	}
	if strings.ContainsAny(head, "([") {
		return partial, filterPrefix(s.chainMembers(head), partial)
	}
	return partial, filterPrefix(s.members(head), partial)
}

// isPackage reports whether name is the name of an imported package.
func (s *Session) isPackage(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.imported[inputFile][name]
	return ok && s.scope.lookup(name) == nil
}

// chainBefore returns the part of a selector chain that ends before[:]
// with a closing bracket: the calls, indexes and selectors that lead up
// to it ("net.Blob(\"data\")" of "x := net.Blob(\"data\")"), or "".
func chainBefore(before string) string {
	if !strings.HasSuffix(before, ")") && !strings.HasSuffix(before, "]") {
		return ""
	}
	var toks []offsetToken
	for _, tk := range scanOffsets(before) {
		if tk.t != token.SEMICOLON || tk.lit != "\n" {
			toks = append(toks, tk)
		}
	}
	// Walk back over groups in brackets, identifiers and dots.
	i := len(toks) - 1
	start := -1
	for i >= 0 {
		switch toks[i].t {
		case token.RPAREN, token.RBRACK:
			depth := 0
			for ; i >= 0; i-- {
				switch toks[i].t {
				case token.RPAREN, token.RBRACK, token.RBRACE:
					depth++
				case token.LPAREN, token.LBRACK, token.LBRACE:
					depth--
				}
				if depth == 0 {
					break
				}
			}
			if i < 0 {
				return ""
			}
			start = toks[i].off
			i--
		case token.IDENT:
			start = toks[i].off
			i--
			if i >= 0 && toks[i].t == token.PERIOD {
				i--
				continue
			}
			return before[start:]
		default:
			return ""
		}
	}
	if start < 0 {
		return ""
	}
	return before[start:]
}

// offsetToken is a token of a text and its offset in it.
type offsetToken struct {
	off int
	t   token.Token
	lit string
}

// scanOffsets returns the tokens of text, semicolons the scanner adds at
// the ends of lines included, errors ignored.
func scanOffsets(text string) []offsetToken {
	var toks []offsetToken
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(text))
	var sc scanner.Scanner
	sc.Init(file, []byte(text), func(token.Position, string) {}, 0)
	for {
		pos, t, lit := sc.Scan()
		if t == token.EOF {
			return toks
		}
		toks = append(toks, offsetToken{file.Offset(pos), t, lit})
	}
}

// chainMembers lists the methods and fields of the type of chain, an
// expression with calls or indexes in it. Calls are not made: their
// result types come from the functions' signatures.
func (s *Session) chainMembers(chain string) []string {
	e, err := parser.ParseExpr(chain)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, t := s.exprType(chain, e)
	switch {
	case v.IsValid():
		return typeMembers(v)
	case t != nil:
		return typeMembers(reflect.Zero(t))
	}
	return nil
}

// exprType returns the value of e, when it can be had without a call, or
// else its type, when the signatures of the functions it calls tell it.
// src is the text e was parsed from. The caller holds s.mu.
func (s *Session) exprType(src string, e ast.Expr) (reflect.Value, reflect.Type) {
	if !hasCall(e) {
		v, err := s.value(src[e.Pos()-1 : e.End()-1])
		if err != nil || !v.IsValid() {
			return reflect.Value{}, nil
		}
		if v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		return v, v.Type()
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return s.exprType(src, x.X)
	case *ast.CallExpr:
		_, ft := s.exprType(src, x.Fun)
		if ft == nil || ft.Kind() != reflect.Func || ft.NumOut() == 0 {
			return reflect.Value{}, nil
		}
		return reflect.Value{}, ft.Out(0)
	case *ast.IndexExpr:
		_, t := s.exprType(src, x.X)
		if t == nil {
			return reflect.Value{}, nil
		}
		if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Array {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			return reflect.Value{}, t.Elem()
		}
	case *ast.StarExpr:
		if _, t := s.exprType(src, x.X); t != nil && t.Kind() == reflect.Pointer {
			return reflect.Value{}, t.Elem()
		}
	case *ast.SelectorExpr:
		_, t := s.exprType(src, x.X)
		if t == nil {
			return reflect.Value{}, nil
		}
		name := x.Sel.Name
		for _, mt := range []reflect.Type{t, reflect.PointerTo(t)} {
			if m, ok := mt.MethodByName(name); ok {
				if t.Kind() == reflect.Interface {
					return reflect.Value{}, m.Type
				}
				// A method of a concrete type takes its receiver first.
				in := make([]reflect.Type, 0, m.Type.NumIn()-1)
				for i := 1; i < m.Type.NumIn(); i++ {
					in = append(in, m.Type.In(i))
				}
				out := make([]reflect.Type, m.Type.NumOut())
				for i := range out {
					out[i] = m.Type.Out(i)
				}
				return reflect.Value{}, reflect.FuncOf(in, out, m.Type.IsVariadic())
			}
		}
		st := t
		if st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		if st.Kind() == reflect.Struct {
			if f, ok := st.FieldByName(name); ok {
				return reflect.Value{}, f.Type
			}
		}
	}
	return reflect.Value{}, nil
}

// names0 lists the names usable at the start of an expression.
func (s *Session) names0() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := map[string]bool{}
	for _, k := range goKeywords {
		set[k] = true
	}
	for k := range builtinFuncs {
		set[k] = true
	}
	for k := range intTypes {
		set[k] = true
	}
	for k := range builtinTypes {
		set[k] = true
	}
	for _, k := range []string{"true", "false", "nil", "iota"} {
		set[k] = true
	}
	for name := range s.imported[inputFile] {
		set[name] = true
	}
	for _, d := range s.names {
		set[d.name] = true
	}
	delete(set, rtName)
	return sortedKeys(set)
}

// members lists the members of head: a package's exported names, or the
// methods and fields of the type of the value head evaluates to.
func (s *Session) members(head string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path, ok := s.imported[inputFile][head]; ok && head != rtName {
		// The checker's view of the package has the members of the
		// shell's source packages and overlays too (slices.Sort,
		// errors.AsType).
		if pkg, err := sharedImporter().Import(path); err == nil {
			var names []string
			for _, n := range pkg.Scope().Names() {
				if token.IsExported(n) {
					names = append(names, n)
				}
			}
			return names
		}
		for key, syms := range s.exports {
			if strings.TrimSuffix(key, "/"+key[strings.LastIndexByte(key, '/')+1:]) == path {
				var names []string
				for n := range syms {
					if !strings.HasPrefix(n, "_") {
						names = append(names, n)
					}
				}
				return names
			}
		}
		return nil
	}
	v, err := s.value(head)
	if err != nil || !v.IsValid() {
		return nil
	}
	return typeMembers(v)
}

// typeMembers lists the exported methods and fields of v's type (and of
// a pointer to it).
func typeMembers(v reflect.Value) []string {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	set := map[string]bool{}
	t := v.Type()
	for _, tt := range []reflect.Type{t, reflect.PointerTo(t)} {
		for i := range tt.NumMethod() {
			set[tt.Method(i).Name] = true
		}
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		for i := range st.NumField() {
			if f := st.Field(i); f.IsExported() {
				set[f.Name] = true
			}
		}
	}
	return sortedKeys(set)
}

// dedupSorted returns names sorted, each once.
func dedupSorted(names []string) []string {
	sort.Strings(names)
	return slices.Compact(names)
}

func filterPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// completeFile completes a file name.
func completeFile(arg string) (string, []string) {
	dir, base := filepath.Split(arg)
	entries, err := os.ReadDir(filepath.Join(".", dir))
	if err != nil {
		return base, nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, base) && !strings.HasPrefix(name, ".") {
			if e.IsDir() {
				name += "/"
			}
			out = append(out, name)
		}
	}
	return base, out
}
