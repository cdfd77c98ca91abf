package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// The interpreter binds a call of a function to the function as it was
// compiled: declared again in a later input (a notebook's cell run again
// with a fix), a function is not what the functions of earlier inputs
// call. Methods go through function variables that a new declaration
// sets (forwardMethods); a function's callers are declared again instead,
// from their source, after the input that declared it again, and theirs
// in turn.

// funcSource is a function or method of the session as an input
// declared it: its source, the session's functions it calls, and the
// order of its declaration. A method is known as T.M.
type funcSource struct {
	text  string
	calls []string
	order int
}

// declaredFuncs returns the functions and methods that the chunks of
// declarations of p (an input's segment, checked into c, from src)
// declare, not generic, by name, with their source.
func (s *Session) declaredFuncs(src string, p *parsedInput, c *checked) map[string]*funcSource {
	fset := s.in.FileSet()
	out := map[string]*funcSource{}
	for i, f := range p.files {
		if p.kinds[i] != declChunk {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Type.TypeParams != nil || fd.Name.Name == "init" || fd.Name.Name == "_" {
				continue
			}
			key := fd.Name.Name
			if fd.Recv != nil {
				// A method, by its receiver's type: T.M.
				fn, ok := c.info.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				rt := fn.Signature().Recv().Type()
				if pt, ok := rt.(*types.Pointer); ok {
					rt = pt.Elem()
				}
				n, ok := types.Unalias(rt).(*types.Named)
				if !ok || n.TypeParams().Len() > 0 {
					continue
				}
				key = n.Obj().Name() + "." + key
			}
			lo := p.chunks[i].start + fset.PositionFor(fd.Pos(), false).Offset - p.prefix[i]
			hi := p.chunks[i].start + fset.PositionFor(fd.End(), false).Offset - p.prefix[i]
			if fd.Doc != nil {
				// Its comment, unless that is the chunk's line directive.
				if d := p.chunks[i].start + fset.PositionFor(fd.Doc.Pos(), false).Offset - p.prefix[i]; d >= p.chunks[i].start {
					lo = d
				}
			}
			if lo < 0 || hi > len(src) || lo >= hi {
				continue
			}
			fs := &funcSource{text: src[lo:hi]}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				if fn, ok := c.info.Uses[id].(*types.Func); ok && fn.Pkg() == c.pkg && fn.Parent() == c.pkg.Scope() && !slices.Contains(fs.calls, fn.Name()) {
					fs.calls = append(fs.calls, fn.Name())
				}
				return true
			})
			out[key] = fs
		}
	}
	return out
}

// refreshCallers records the functions that a segment declared (see
// declaredFuncs), and declares again, from their source and in the order
// they were declared, the functions of earlier inputs that call one that
// it declared again, and those that call those.
func (s *Session) refreshCallers(ctx context.Context, declared map[string]*funcSource) {
	if len(declared) == 0 {
		return
	}
	if s.funcSrc == nil {
		s.funcSrc = map[string]*funcSource{}
	}
	changed := map[string]bool{}
	var again []string
	for _, name := range sortedKeys(declared) {
		if _, ok := s.funcSrc[name]; ok && !strings.Contains(name, ".") {
			changed[name] = true // methods go through variables already
			again = append(again, name)
		}
		s.funcOrder++
		declared[name].order = s.funcOrder
		s.funcSrc[name] = declared[name]
	}
	if len(changed) == 0 || s.refreshing {
		return
	}
	var callers []string
	for grew := true; grew; {
		grew = false
		for name, fs := range s.funcSrc {
			if changed[name] || declared[name] != nil {
				continue
			}
			for _, c := range fs.calls {
				if changed[c] {
					changed[name] = true
					callers = append(callers, name)
					grew = true
					break
				}
			}
		}
	}
	if len(callers) == 0 {
		return
	}
	slices.SortFunc(callers, func(a, b string) int { return s.funcSrc[a].order - s.funcSrc[b].order })
	var b strings.Builder
	for _, name := range callers {
		b.WriteString(s.funcSrc[name].text)
		b.WriteString("\n\n")
	}
	s.refreshing = true
	defer func() { s.refreshing = false }()
	if err := s.evalChunks(ctx, refreshFile, b.String(), 1, false); err != nil {
		fmt.Fprintf(s.stderr, "note: kept the earlier declaration of %s, which calls %s as declared before: declared again, it failed: %v\n",
			strings.Join(callers, ", "), strings.Join(again, ", "), err)
	}
}

// refreshFile names the source of the functions that refreshCallers
// declares again.
const refreshFile = "sparknet-callers"
