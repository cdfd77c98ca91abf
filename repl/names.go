package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"strings"
)

// value evaluates expr quietly (for completion and :vars) and returns its
// value; it runs no statements.
func (s *Session) value(expr string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	e, err := parser.ParseExprFrom(s.in.FileSet(), inputFile, expr, 0)
	if err != nil {
		return v, err
	}
	if hasCall(e) {
		return v, fmt.Errorf("repl: %s calls a function", expr)
	}
	s.universeIdents(e)
	block := &ast.BlockStmt{Lbrace: e.Pos(), List: []ast.Stmt{&ast.ExprStmt{X: e}}}
	prog, err := s.compile(block, nil)
	if err != nil {
		return v, err
	}
	v, err = s.in.Execute(prog)
	s.stderr.take()
	return v, err
}

func hasCall(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.CallExpr, *ast.FuncLit, *ast.UnaryExpr:
			found = true
		}
		return !found
	})
	return found
}

// globalInt reports whether the session variable name holds an integer.
func (s *Session) globalInt(name string) bool {
	if !s.declared(name, "var") && !s.declared(name, "const") {
		return false
	}
	v, err := s.value(name)
	if err != nil || !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func (s *Session) declared(name, kind string) bool {
	for _, d := range s.names {
		if d.name == name && (kind == "" || d.kind == kind) {
			return true
		}
	}
	return false
}

func (s *Session) addName(name, kind string) {
	// A variable named like a predeclared identifier, by its own name
	// (see universeName).
	name = strings.TrimPrefix(name, universeName(""))
	if name == "_" || name == "init" || strings.HasPrefix(name, rtName) {
		return
	}
	for i, d := range s.names {
		if d.name == name {
			s.names = append(s.names[:i], s.names[i+1:]...)
			break
		}
	}
	s.names = append(s.names, declared{name, kind})
}

// learn records the names that top-level statements declare.
func (s *Session) learn(stmts []ast.Stmt) {
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						s.addName(id.Name, "var")
					}
				}
			}
		case *ast.DeclStmt:
			s.learnDecls([]ast.Decl{st.Decl})
		}
	}
}

func (s *Session) learnDecls(decls []ast.Decl) {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				s.addName(d.Name.Name, "func")
			}
			name := d.Name.Name
			if strings.HasPrefix(name, rtName+"_main") {
				name = "main"
			}
			s.funcPos[name] = s.in.FileSet().Position(d.Name.Pos()).String()
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						s.addName(id.Name, strings.ToLower(d.Tok.String()))
					}
				case *ast.TypeSpec:
					s.addName(sp.Name.Name, "type")
				}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
