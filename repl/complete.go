package repl

import (
	"os"
	"path/filepath"
	"reflect"
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
	word, cands := c.sh.s.Complete(before)
	var out [][]rune
	for _, cand := range cands {
		out = append(out, []rune(strings.TrimPrefix(cand, word)))
	}
	return out, len([]rune(word))
}

// Complete returns the word being typed at the end of before and the
// completions of it, sorted.
func (s *Session) Complete(before string) (word string, cands []string) {
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
		return expr, filterPrefix(s.names0(), expr)
	}
	head, partial := expr[:dot], expr[dot+1:]
	return partial, filterPrefix(s.members(head), partial)
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
